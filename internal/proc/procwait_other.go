//go:build !linux

package proc

import "os/exec"

// waitProcess waits for a started hook process and reaps it.
func waitProcess(cmd *exec.Cmd) error { return cmd.Wait() }
