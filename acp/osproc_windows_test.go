//go:build windows

package acp

import "os"

// running reports whether a process runs (Windows: it can be found).
func running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err == nil {
		p.Release()
	}
	return err == nil
}
