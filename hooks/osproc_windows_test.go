//go:build windows

package hooks_test

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// alive reports whether pid is a running process.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// killPid kills a process a test left behind.
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.New("no fifos on Windows") }
