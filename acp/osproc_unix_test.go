//go:build !windows

package acp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// running reports whether a process runs: it exists and is not a zombie
// waiting for a parent (an orphan's parent may be an init that never reaps).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}
