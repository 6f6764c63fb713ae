//go:build !windows

package proc

import (
	"github.com/wavehooks/wavehooks/internal/settings"
	"os/exec"
	"syscall"
)

// shellCommand runs a hook's shell-form command with sh, as Claude Code
// does on Linux and macOS.
func shellCommand(h *settings.Hook) *exec.Cmd {
	argv := shellArgv(h) // sh, or the hook's "shell" (shell.go)
	return exec.Command(argv[0], argv[1:]...)
}

// processTree is a hook's process and everything it starts: here, the
// process group the hook leads, so that one kill reaches its children and
// grandchildren.
type processTree struct{ pid int }

// newProcessTree makes cmd start in a process group of its own.
func newProcessTree(cmd *exec.Cmd) *processTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &processTree{}
}

// started is called right after cmd.Start: the group exists from the fork on.
func (t *processTree) started(cmd *exec.Cmd) error {
	t.pid = cmd.Process.Pid
	return nil
}

// kill kills every process in the group.
func (t *processTree) kill() { _ = syscall.Kill(-t.pid, syscall.SIGKILL) }

// release is called once the hook has been waited for; a group needs no cleanup.
func (t *processTree) release() {}
