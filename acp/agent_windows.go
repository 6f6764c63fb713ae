//go:build windows

package acp

import (
	"errors"
	"os/exec"
	"syscall"
)

// inOwnProcessGroup does nothing on Windows, which has no process groups
// that a signal reaches: the agent itself is ended (cross-compiled, never
// run; README, "What is tested where").
func inOwnProcessGroup(*exec.Cmd) {}

// signalGroup cannot signal a group on Windows; the caller then signals
// the agent's process alone.
func signalGroup(int, syscall.Signal) error { return errors.New("no process groups on Windows") }
