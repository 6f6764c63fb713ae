//go:build !linux && !windows

package proc

import (
	"os"
	"syscall"
)

// killRun kills the hook's process group. Without /proc there is no way to
// find the processes that left the group with setsid (docs/security.md).
func killRun(p *os.Process, _ string, hookGone bool) {
	if !hookGone {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
}
