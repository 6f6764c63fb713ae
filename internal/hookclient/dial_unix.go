//go:build unix

package hookclient

import (
	"os"
	"syscall"
)

// dial connects to the proxy's unix socket with the system calls alone.
// Importing net would link the cgo resolver into a default (cgo) build,
// which makes the program dynamically linked: on a loaded 2-core machine
// that costs the ld.so start, several ms per tool call, more than the
// client's whole work. A unix socket connects at once or is refused, so
// no timeout is needed.
func dial(path string) (conn, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		_ = syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return &unixConn{File: os.NewFile(uintptr(fd), path), fd: fd}, nil
}

// unixConn is a connected socket read and written as a file.
type unixConn struct {
	*os.File
	fd int
}

// CloseWrite tells the proxy the input is complete (shutdown SHUT_WR).
func (c *unixConn) CloseWrite() error {
	return os.NewSyscallError("shutdown", syscall.Shutdown(c.fd, syscall.SHUT_WR))
}
