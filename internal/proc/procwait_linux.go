package proc

import (
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitProcess waits for a started hook process and reaps it. The wait
// itself happens in the runtime's poller, on a pidfd that becomes readable
// when the process exits, rather than in a waitid call that blocks a thread:
// a thread blocked in a system call makes the runtime's monitor poll every
// 20 µs and hand the thread's processor to another, which the whole server
// pays for as long as the hook runs (docs/performance.md). Reaping once the
// process has exited returns at once. Without pidfds (Linux before 5.3) it
// is cmd.Wait.
func waitProcess(cmd *exec.Cmd) error {
	if fd, err := unix.PidfdOpen(cmd.Process.Pid, unix.PIDFD_NONBLOCK); err == nil {
		f := os.NewFile(uintptr(fd), "pidfd")
		if rc, err := f.SyscallConn(); err == nil {
			_ = rc.Read(func(fd uintptr) bool {
				p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
				n, err := unix.Poll(p, 0)
				return n > 0 || (err != nil && err != unix.EINTR)
			})
		}
		f.Close()
	}
	return cmd.Wait()
}
