//go:build !windows

package lsp_test

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// What the tests need of processes and files that differs by OS; the
// Windows versions (osproc_windows_test.go) only have to compile: the tests
// run their sh hooks on Linux (README, "What is tested where").

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// killPid kills a process a test left behind.
func killPid(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// mkfifo makes a named pipe, the gate a test's hook waits on.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
