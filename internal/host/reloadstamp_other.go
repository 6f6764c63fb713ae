//go:build !linux && !darwin

package host

import "os"

// sysStamp reports that the device, inode and change time are not known
// here (Windows' stat has no change time): every ReloadIfChanged reloads.
func sysStamp(os.FileInfo) (dev, ino uint64, ctime int64, ok bool) { return 0, 0, 0, false }
