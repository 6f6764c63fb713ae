//go:build !wavehooks_nomemfd

package hooks

import (
	"os"

	"golang.org/x/sys/unix"
)

// newMemFile returns an anonymous in-memory file (memfd) for a hook's stdin,
// stdout or stderr: the child writes and reads it directly, with no pipe to
// poll and no goroutine copying, which is most of what separates running a
// hook from a bare fork/exec.
func newMemFile(name string) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return newTempFile(name)
	}
	return os.NewFile(uintptr(fd), name), nil
}
