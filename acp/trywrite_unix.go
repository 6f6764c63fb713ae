//go:build unix

package acp

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errWouldBlock: the pipe is full; the rest must wait for the peer.
var errWouldBlock = syscall.EAGAIN

// nonBlockingConn is w's descriptor when w is a pipe in non-blocking mode
// (os.Pipe makes them so), else nil: a descriptor in blocking mode (an
// inherited stdout) could make a single write wait.
func nonBlockingConn(w io.Writer) syscall.RawConn {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonBlocking := false
	if rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonBlocking = err == nil && flags&unix.O_NONBLOCK != 0
	}) != nil || !nonBlocking {
		return nil
	}
	return rc
}

// writeOnce makes one write(2) of b to rc's descriptor, which never waits.
func writeOnce(rc syscall.RawConn, b []byte) (int, error) {
	var n int
	var werr error
	err := rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if !errors.Is(werr, syscall.EINTR) {
				return true
			}
		}
	})
	if n < 0 {
		n = 0
	}
	if err != nil {
		return n, err
	}
	return n, werr
}
