package proc

import (
	"os"
	"syscall"
	"time"
)

// StatKey identifies a file's contents without reading them: the same
// device, inode, size, modification and change times. The change time
// cannot be set back by a user, so a rewrite that restores the modification
// time still changes the key.
type StatKey struct {
	dev, ino uint64
	size     int64
	mtime    int64
	Changed  time.Time // the change time
}

// StatKeyOf reads a file's key from its Stat.
func StatKeyOf(fi os.FileInfo) (StatKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return StatKey{}, false
	}
	return StatKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: fi.ModTime().UnixNano(),
		Changed: time.Unix(st.Ctim.Sec, st.Ctim.Nsec)}, true
}
