package proc

import (
	"github.com/wavehooks/wavehooks/internal/settings"
	"os/exec"
)

// shellArgv is the program and arguments that run a shell-form command
// hook: `sh -c COMMAND` by default, or the shell its "shell" option names.
// PowerShell is pwsh (PowerShell 7) where it is installed, else
// powershell, as Claude Code picks it.
func shellArgv(h *settings.Hook) []string {
	switch h.Shell {
	case "bash", "zsh":
		return []string{h.Shell, "-c", h.Command}
	case "powershell", "pwsh":
		ps := "pwsh"
		if _, err := exec.LookPath(ps); err != nil {
			ps = "powershell"
		}
		return []string{ps, "-NoProfile", "-NonInteractive", "-Command", h.Command}
	}
	return []string{"/bin/sh", "-c", h.Command}
}
