//go:build unix

package doctor

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// startGroup starts cmd in a process group of its own, so a probe's end
// kills the agent and everything it started.
func startGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A process that left the group (setsid) and kept stderr open must not
	// hold Wait: its output stops being read this long after the exit.
	cmd.WaitDelay = 2 * time.Second
	return cmd.Start()
}

// waitGroup waits for cmd until ctx ends, then kills its process group
// (and does so anyway once it exited, for the children it left).
func waitGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		err = errTimedOut
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	return err
}
