// Package safefile reads the files a workspace or $WAVE_HOME hands the
// program — settings files, VS Code's hook files, a hook's CLAUDE_ENV_FILE,
// session files — as data that may be hostile. A repository decides what
// sits at those paths before the user has trusted it: a FIFO, a symlink to
// /dev/zero or /dev/stdin, a sparse file of a terabyte. os.ReadFile would
// hang on the first (the server stops answering), grow without bound on the
// second, read the server's own LSP input on the third and allocate the
// whole of the last. Every read here opens without blocking, requires the
// opened file to be a regular file (checked on the open descriptor, so a
// swap between the check and the open cannot slip a device in), and reads
// at most a cap the caller chooses per kind of file
// (docs/protocol-limits.md, "Files the server reads").
//
// Symlinks are followed: a dotfile manager's symlinked settings.json is
// ordinary. What the link finally names must be a regular file.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is returned for a path that names something other than a
// regular file: a directory, a FIFO, a socket, a device (/dev/zero,
// /dev/stdin's pipe).
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is returned for a file larger than the caller's cap. Size is
// what the file system says, or Limit+1 when the file grew while it was read.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s (%d bytes): not read", FormatSize(e.Limit), e.Size)
}

// FormatSize writes a cap the way the docs do: "4 MiB", "1 GiB", or bytes.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading, without blocking, only if it is a regular
// file; the caller closes it. The path is checked with stat first, so a
// device or FIFO is refused without being opened at all (opening some
// devices has effects of its own), and the opened descriptor is checked
// again, so a rename between the two cannot get one through. Errors wrap
// fs.ErrNotExist for a missing file and ErrNotRegular for anything else that
// is not a regular file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return OpenFile(path, os.O_RDONLY)
}

// OpenFile is Open with the flag the caller needs (os.O_RDWR for a session
// file the server rewrites in place); O_NONBLOCK is added, and nothing is
// ever created.
func OpenFile(path string, flag int) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, (flag&^os.O_CREATE)|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st.Mode())
	}
	return f, st, nil
}

func notRegular(path string, m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, what)}
}

// ReadFile reads a regular file of at most limit bytes (see Open). A larger
// file is refused with a *TooLargeError before anything is read when its
// size says so, and after limit+1 bytes when it grew meanwhile: memory never
// exceeds the cap.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, st.Size(), limit)
}

func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	if size > limit {
		return nil, &TooLargeError{Size: size, Limit: limit}
	}
	buf := make([]byte, 0, max(size, 0)+1)
	for {
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Size: int64(len(buf)), Limit: limit}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := min(int64(cap(buf)-len(buf)), limit+1-int64(len(buf)))
		n, err := r.Read(buf[len(buf) : int64(len(buf))+room])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return nil, &TooLargeError{Size: int64(len(buf)), Limit: limit}
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
