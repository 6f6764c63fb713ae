package loopback

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The table's rows are matched by both addresses, as the kernel writes
// them, and the uid is the eighth column.
func TestPeerUIDReadsTheKernelsTable(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1183 1 0 100 0 0 10 0
   1: 0100007F:CE84 0100007F:8021 01 00000000:00000000 00:00000000 00000000  1000        0 7777 1 0 20 4 30 10 -1
   2: 0100007F:8021 0100007F:CE84 01 00000000:00000000 00:00000000 00000000     0        0 7778 1 0 20 4 30 10 -1
   3: 0100007F:CE85 0100007F:8021 01 00000000:00000000 00:00000000 00000000 notanumber 0 7779 1 0 20 4 30 10 -1
`
	ours := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0x8021}
	for _, tc := range []struct {
		name    string
		from    int
		uid     uint32
		wantErr string
	}{
		{name: "the connecting socket's row", from: 0xCE84, uid: 1000},
		{name: "no such connection", from: 0xCE99, wantErr: "is not in the kernel's TCP table"},
		{name: "a garbled uid", from: 0xCE85, wantErr: "not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uid, err := peerUID(strings.NewReader(table), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: tc.from}, ours)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.uid, uid)
		})
	}
}

func TestProcAddrIsTheKernelsFormat(t *testing.T) {
	require.Equal(t, "0100007F:8021", procAddr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 0x8021}))
	require.Equal(t, "00000000000000000000000001000000:0050", procAddr(&net.TCPAddr{IP: net.IPv6loopback, Port: 80}))
}

// A connection of this user is accepted; one made by another user's socket
// (nobody's, by bash's /dev/tcp) is closed as it is accepted and never
// reaches the server. Making a socket as another user takes root: without
// it the second half is SKIPPED.
func TestSameUserRefusesAnotherUsersConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refusedErr := make(chan error, 4)
	sl := SameUser(ln, func(_ net.Addr, err error) { refusedErr <- err })
	t.Cleanup(func() { _ = sl.Close() })
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := sl.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()

	mine, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer mine.Close()
	c := <-accepted
	require.Equal(t, mine.LocalAddr().String(), c.RemoteAddr().String(), "this user's connection is served")
	_ = c.Close()

	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: making a socket as another user takes root")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("SKIPPED: no bash to connect as another user")
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	other := exec.Command(bash, "-c", "exec 3<>/dev/tcp/127.0.0.1/"+port+"; read -t 5 line <&3")
	other.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	require.NoError(t, other.Start())
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	select {
	case err := <-refusedErr:
		require.True(t, errors.Is(err, ErrOtherUser), "%v", err)
		require.ErrorContains(t, err, "uid 65534")
	case c := <-accepted:
		t.Fatalf("another user's connection was served: %s", c.RemoteAddr())
	case <-time.After(10 * time.Second):
		t.Fatal("the other user's connection was neither refused nor served")
	}
	var exit *exec.ExitError
	require.ErrorAs(t, other.Wait(), &exit)
	require.Equal(t, 1, exit.ExitCode(), "bash's read hit the end of its closed connection (1), not its timeout (>128)")
}

// What one check costs (docs/security.md): it reads the whole table, so it
// grows with the machine's TCP sockets; it is paid once per connection.
func BenchmarkPeerUID(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(b, err)
	defer c.Close()
	s, err := ln.Accept()
	require.NoError(b, err)
	defer s.Close()
	local, remote := s.LocalAddr().(*net.TCPAddr), s.RemoteAddr().(*net.TCPAddr)
	for range b.N {
		if _, err := PeerUID(local, remote); err != nil {
			b.Fatal(err)
		}
	}
}
