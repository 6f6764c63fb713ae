package loopback

import (
	"encoding/binary"
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
	"golang.org/x/sys/unix"
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

// connected is a TCP connection on loopback, as the listener sees it: its
// own address and the peer's.
func connected(tb testing.TB) (local, remote *net.TCPAddr) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = ln.Close() })
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	s, err := ln.Accept()
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Close() })
	return s.LocalAddr().(*net.TCPAddr), s.RemoteAddr().(*net.TCPAddr)
}

// Both ways of asking the kernel name this process's user as the owner of
// a connection it made; a connection that does not exist is an error to
// both, never a uid.
func TestBothWaysOfAskingAgree(t *testing.T) {
	local, remote := connected(t)
	viaDiag, err := sockDiagUID(remote, local)
	require.NoError(t, err)
	viaTable, err := peerUIDFromTable(local, remote)
	require.NoError(t, err)
	require.Equal(t, uint32(os.Getuid()), viaDiag)
	require.Equal(t, viaDiag, viaTable)

	gone := &net.TCPAddr{IP: remote.IP, Port: remote.Port + 1}
	_, err = sockDiagUID(gone, local)
	require.ErrorIs(t, err, syscall.ENOENT)
	_, err = peerUIDFromTable(local, gone)
	require.ErrorContains(t, err, "is not in the kernel's TCP table")
}

// Answers the kernel does not give are errors, not a uid read from the
// wrong bytes.
func TestParseDiagAnswerRefusesWhatIsNotAnAnswer(t *testing.T) {
	msg := func(kind uint16, body []byte) []byte {
		b := make([]byte, nlmsgHdrLen, nlmsgHdrLen+len(body))
		binary.NativeEndian.PutUint32(b[0:], uint32(nlmsgHdrLen+len(body)))
		binary.NativeEndian.PutUint16(b[4:], kind)
		return append(b, body...)
	}
	sock := make([]byte, diagMsgLen)
	binary.NativeEndian.PutUint32(sock[diagMsgUIDAt:], 1000)
	errno := make([]byte, 4+nlmsgHdrLen)
	eacces := int32(syscall.EACCES)
	binary.NativeEndian.PutUint32(errno, uint32(-eacces))
	for _, tc := range []struct {
		name    string
		answer  []byte
		uid     uint32
		wantErr string
	}{
		{name: "a socket", answer: msg(sockDiagByFamily, sock), uid: 1000},
		{name: "an error", answer: msg(unix.NLMSG_ERROR, errno), wantErr: "permission denied"},
		{name: "a short socket", answer: msg(sockDiagByFamily, sock[:20]), wantErr: "a short socket"},
		{name: "a header that lies", answer: append(msg(sockDiagByFamily, sock)[:8], make([]byte, 8)...), wantErr: "says it has"},
		{name: "too short", answer: []byte{1, 2, 3}, wantErr: "a short answer"},
		{name: "another type", answer: msg(99, sock), wantErr: "type 99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uid, err := parseDiagAnswer(tc.answer)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.uid, uid)
		})
	}
}

// What one check costs, each way (docs/security.md): the lookup is paid
// once per connection.
func BenchmarkPeerUID(b *testing.B) {
	local, remote := connected(b)
	for _, way := range []struct {
		name string
		uid  func() (uint32, error)
	}{
		{"sock_diag", func() (uint32, error) { return sockDiagUID(remote, local) }},
		{"table", func() (uint32, error) { return peerUIDFromTable(local, remote) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			for range b.N {
				if _, err := way.uid(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
