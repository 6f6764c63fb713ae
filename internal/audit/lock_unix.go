//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lockDir takes the exclusive lock of the log's lock file (flock), waiting
// for another process that holds it, and returns its release.
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil // closing the descriptor releases the lock
}
