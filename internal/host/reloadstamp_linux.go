package host

import (
	"os"
	"syscall"
)

// sysStamp is the device, inode and change time (nanoseconds) of a stat.
func sysStamp(fi os.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, st.Ctim.Nano(), true
}
