//go:build !wavehooks_nomemfd

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// NewMemFile returns an anonymous in-memory file (memfd) for a hook's stdin,
// stdout or stderr: the child writes and reads it directly, with no pipe to
// poll and no goroutine copying, which is most of what separates running a
// hook from a bare fork/exec. It allows seals, which bound what the file can
// hold once the hook has exited (sealInput, sealOutput).
func NewMemFile(name string) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return newTempFile(name)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// sealInput makes a hook's stdin read-only for good: a hook or any process
// that inherits the descriptor (which is open for reading and writing)
// cannot grow it to fill memory, nor change what the next reader sees.
func sealInput(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
}

// stopGrowth seals a hook's stdout or stderr against growing, once the hook
// has exited: a background child that still holds it gets EPERM for every
// write past its end instead of filling memory that nothing caps any more.
// It reports whether the seal holds (false for a temporary file, where
// memfd does not exist).
func stopGrowth(f *os.File) bool {
	_, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_GROW)
	return err == nil
}

// sealOutput empties an output file whose growth is sealed, once it has
// been read, and seals it against writes: what a background child still
// holds then costs no memory. F_SEAL_WRITE fails (EBUSY) if the child mapped
// the file for writing; the file cannot grow either way.
func sealOutput(f *os.File) {
	_ = f.Truncate(0)
	_, _ = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE)
}

// SealScript seals the in-memory copy of a trusted script that a hook is
// about to run (pinscript.go) against any change, for good: what the hook
// runs is what was checked. It reports whether the seals hold.
func SealScript(f *os.File) bool {
	_, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	return err == nil
}
