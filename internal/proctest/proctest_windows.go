//go:build windows

package proctest

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Alive reports whether pid is a running process.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// Kill kills a process a test left behind.
func Kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// Mkfifo fails: Windows has no named pipes in the file system.
func Mkfifo(string) error { return errors.New("no fifos on Windows") }
