package hooks

import (
	"os"
	"syscall"
	"time"
)

// statKey identifies a file's contents without reading them: the same
// device, inode, size, modification and change times. The change time
// cannot be set back by a user, so a rewrite that restores the modification
// time still changes the key.
type statKey struct {
	dev, ino uint64
	size     int64
	mtime    int64
	changed  time.Time // the change time
}

// statKeyOf reads a file's key from its Stat.
func statKeyOf(fi os.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: fi.ModTime().UnixNano(),
		changed: time.Unix(st.Ctim.Sec, st.Ctim.Nsec)}, true
}
