package transcript

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// reserve allocates the blocks of f from off to off+n without changing its
// size (FALLOC_FL_KEEP_SIZE), so that writing them later cannot fail for
// lack of space. A file system that cannot reserve is not an error: the
// write itself finds out, and is undone.
func reserve(f *os.File, off, n int64) error {
	err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return nil
	}
	return err
}
