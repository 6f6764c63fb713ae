//go:build windows

package proc

import "os"

// killRun has nothing to add on Windows: the hook's Job Object holds every
// process it starts, and processTree.kill ends them all (executor_windows.go).
func killRun(*os.Process, string, bool) {}
