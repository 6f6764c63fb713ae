//go:build unix

package pollstdio

import (
	"os"
	"syscall"
)

// Pollable returns a duplicate of f in non-blocking mode, registered with
// the runtime's poller, when f is a pipe or a socket (how editors start a
// server), and f itself otherwise. A terminal or a file is left as it is:
// its mode is shared with whoever else has it open. The caller writes
// nothing to f itself but through the duplicate, so f's own blocking writes
// never meet the non-blocking mode.
func Pollable(f *os.File) *os.File {
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
