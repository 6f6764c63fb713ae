//go:build !windows

package acp

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup starts cmd in a process group of its own, so that
// signalGroup reaches the processes the agent starts too.
func inOwnProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group that pid leads.
func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
