//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollable returns a duplicate of f in non-blocking mode, registered with
// the runtime's poller, when f is a pipe or a socket (how editors start the
// server), and f itself otherwise. A blocking read on stdin keeps a thread
// in a system call between requests, and the runtime's monitor then polls
// every 20 µs and hands that thread's processor over whenever a request
// arrives (docs/performance.md); through the poller, a request wakes the
// goroutine that reads it and nothing else, and closing the duplicate ends
// a pending read. A terminal or a file is left as it is: its mode is shared
// with whoever else has it open. The server writes nothing to stdout but
// its frames, so f's own blocking writes never meet the non-blocking mode.
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
		syscall.Close(fd)
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
