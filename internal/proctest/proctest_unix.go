//go:build !windows

package proctest

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether pid is a running process: it exists and is not a
// zombie waiting for a parent (an orphan's parent may be an init that never
// reaps).
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	state := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	return len(state) > 0 && string(state[0]) != "Z" && string(state[0]) != "X"
}

// Kill kills a process a test left behind.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// Mkfifo makes a named pipe, the gate a test's hook waits on.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
