package loopback

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// Checked is whether SameUser can tell who connected (Linux: it can).
const Checked = true

// PeerUID is the uid owning the socket at the other end (remote) of a TCP
// connection on loopback accepted at local: the socket whose local address
// is remote and whose remote address is local. It asks the kernel for that
// one socket (sock_diag, sockdiag_linux.go), and reads the kernel's whole
// TCP table (/proc/net/tcp) only when that is refused, as a sandbox may.
func PeerUID(local, remote *net.TCPAddr) (uint32, error) {
	if uid, err := sockDiagUID(remote, local); err == nil {
		return uid, nil
	}
	return peerUIDFromTable(local, remote)
}

// peerUIDFromTable is PeerUID read from the row of /proc/net/tcp (or tcp6)
// whose local address is remote and whose remote address is local.
func peerUIDFromTable(local, remote *net.TCPAddr) (uint32, error) {
	table := "/proc/net/tcp"
	if remote.IP.To4() == nil {
		table = "/proc/net/tcp6"
	}
	f, err := os.Open(table)
	if err != nil {
		return 0, fmt.Errorf("who connected cannot be known: %w", err)
	}
	defer f.Close()
	return peerUID(f, remote, local)
}

// peerUID finds, in a table in the format of /proc/net/tcp, the uid of
// the socket bound to from and connected to to.
func peerUID(table io.Reader, from, to *net.TCPAddr) (uint32, error) {
	want := [2]string{procAddr(from), procAddr(to)}
	sc := bufio.NewScanner(table)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	sc.Scan() // the header
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		// sl local rem st tx:rx tr:when retrnsmt uid …
		if len(f) < 8 || string(f[1]) != want[0] || string(f[2]) != want[1] {
			continue
		}
		uid, err := strconv.ParseUint(string(f[7]), 10, 32)
		if err != nil {
			return 0, fmt.Errorf("the kernel's TCP table has a uid that is not a number: %q", f[7])
		}
		return uint32(uid), nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("reading the kernel's TCP table: %w", err)
	}
	return 0, fmt.Errorf("%s → %s is not in the kernel's TCP table", from, to)
}

// procAddr is a as /proc/net/tcp writes it: the address's bytes as
// host-order 32-bit words in hex, a colon, the port in hex.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		ip = a.IP.To16()
	}
	var b []byte
	for i := 0; i+4 <= len(ip); i += 4 {
		var w [4]byte
		binary.NativeEndian.PutUint32(w[:], binary.BigEndian.Uint32(ip[i:i+4]))
		b = append(b, w[:]...)
	}
	return fmt.Sprintf("%s:%04X", strings.ToUpper(hex.EncodeToString(b)), a.Port)
}
