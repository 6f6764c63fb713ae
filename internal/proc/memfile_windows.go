//go:build windows

package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/windows"
)

// NewMemFile returns a temporary file for a hook's stdin, stdout or stderr.
// Windows cannot delete a file that is open, so it is created
// delete-on-close (gone once the server and the hook have both closed it)
// and marked temporary (kept in the cache where memory allows). It is
// sparse, so that cutting a flooding hook's output back to MaxOutput
// (cut) leaves a hole that takes no disk space while the hook writes on
// past it, as on Linux and macOS.
func NewMemFile(name string) (*os.File, error) {
	path := filepath.Join(os.TempDir(), name+"-"+strconv.Itoa(os.Getpid())+"-"+
		strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.FormatUint(memFileSeq.Add(1), 10))
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.CREATE_NEW,
		windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	var n uint32
	_ = windows.DeviceIoControl(h, windows.FSCTL_SET_SPARSE, nil, 0, nil, 0, &n, nil) // FAT has no sparse files
	return os.NewFile(uintptr(h), path), nil
}

var memFileSeq atomic.Uint64

// sealInput, stopGrowth and sealOutput do nothing on Windows: only Linux's
// memfds can be sealed; the Job Object ends a hook's children instead.
func sealInput(*os.File)       {}
func stopGrowth(*os.File) bool { return false }
func sealOutput(*os.File)      {}

// SealScript cannot seal: the copy of a script a hook runs is an unlinked
// temporary file, which no path leads to (pinscript.go).
func SealScript(*os.File) bool { return false }
