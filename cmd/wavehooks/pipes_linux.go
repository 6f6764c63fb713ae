package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the pipes to and from an editor. A
// pipe holds 64 KiB by default, so a 100 MB message crosses it in 1,600
// hand-offs between the two processes, each a wake-up on a busy machine;
// at 1 MiB (the largest an unprivileged process may ask by default,
// /proc/sys/fs/pipe-max-size) there are 16 times fewer
// (docs/performance.md, "Large frames").
const pipeSize = 1 << 20

// growPipe enlarges the pipe behind f, if f is one; anything else (a
// terminal, a file, a socket) is left alone, as is a pipe the kernel will
// not enlarge.
func growPipe(f any) {
	file, ok := f.(*os.File)
	if !ok {
		return
	}
	raw, err := file.SyscallConn() // not Fd(), which would make the file blocking
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
		}
	})
}
