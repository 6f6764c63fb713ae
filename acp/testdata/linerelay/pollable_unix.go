//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollable is cmd/wavehooks's: a non-blocking duplicate of f, in the
// runtime's poller, when f is a pipe or a socket; f itself otherwise. A
// blocking read keeps the runtime's monitor polling (cmd/wavehooks/stdio_unix.go).
func pollable(f *os.File) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return f
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return f
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
