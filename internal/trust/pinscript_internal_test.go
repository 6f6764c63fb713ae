package trust

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestDirectScript pins down which hooks run a workspace script directly,
// and so run the sealed copy that was checked against the trust, with the
// shell and $0 they get: the rest run as configured (docs/security.md says
// what window remains for them).
func TestDirectScript(t *testing.T) {
	const root = "/repo"
	sh := []byte("#!/bin/sh\necho hi\n")
	cases := []struct {
		name    string
		hook    settings.Hook
		content []byte
		argv    []string // nil: not pinned
		check   bool     // checked just before, run by path
	}{
		{"a script as the command", settings.Hook{Command: "./x.sh a b"}, sh, []string{"/bin/sh", "-c", ". /dev/fd/3", "./x.sh", "a", "b"}, false},
		{"its #! options", settings.Hook{Command: "./x.sh"}, []byte("#!/bin/bash -eu\n"), []string{"/bin/bash", "-eu", "-c", ". /dev/fd/3", "./x.sh"}, false},
		{"env in its #! line", settings.Hook{Command: "./x.sh"}, []byte("#!/usr/bin/env bash\n"), []string{"bash", "-c", ". /dev/fd/3", "./x.sh"}, false},
		{"the project directory", settings.Hook{Command: `"$CLAUDE_PROJECT_DIR"/.wave/x.sh`}, sh,
			[]string{"/bin/sh", "-c", ". /dev/fd/3", "/repo/.wave/x.sh"}, false},
		{"exec form, placeholder", settings.Hook{Command: "${WAVE_PROJECT_DIR}/x.sh", Args: []string{"$HOME"}}, sh,
			[]string{"/bin/sh", "-c", ". /dev/fd/3", "/repo/x.sh", "$HOME"}, false},
		{"exec form, a shell with options", settings.Hook{Command: "bash", Args: []string{"-e", "--", "x.sh", "a"}}, sh,
			[]string{"bash", "-e", "-c", ". /dev/fd/3", "x.sh", "a"}, false},
		{"shell form, a shell", settings.Hook{Command: "sh -x ./x.sh"}, sh, []string{"sh", "-x", "-c", ". /dev/fd/3", "./x.sh"}, false},
		{"a python script is checked, not pinned", settings.Hook{Command: "python3 x.py"}, sh, nil, true},
		{"a script whose #! is python", settings.Hook{Command: "./x.py"}, []byte("#!/usr/bin/env python3\n"), nil, true},
		{"a script that finds itself by BASH_SOURCE", settings.Hook{Command: "./x.sh"}, []byte("#!/bin/bash\ncd \"$(dirname \"${BASH_SOURCE[0]}\")\"\n"),
			nil, true},
		{"zsh, which sets $0 to a sourced file", settings.Hook{Command: "zsh x.sh"}, sh, nil, true},
		{"a binary", settings.Hook{Command: "./bin/check"}, []byte("\x7fELF"), nil, true},
		{"a redirection", settings.Hook{Command: "./x.sh 2>&1"}, sh, nil, false},
		{"a pipe", settings.Hook{Command: "./x.sh | tee log"}, sh, nil, false},
		{"two commands", settings.Hook{Command: "./x.sh; ./y.sh"}, sh, nil, false},
		{"a variable argument", settings.Hook{Command: "./x.sh $HOME"}, sh, nil, false},
		{"ANSI-C quoting, which shells read differently", settings.Hook{Command: `./x.sh $'a\nb'`}, sh, nil, false},
		{"an assignment first", settings.Hook{Command: "A=1 ./x.sh"}, sh, nil, false},
		{"a wrapper", settings.Hook{Command: "timeout 5 ./x.sh"}, sh, nil, false},
		{"a program from PATH", settings.Hook{Command: "npm test"}, sh, nil, false},
		{"sh -c", settings.Hook{Command: "sh -c ./x.sh"}, sh, nil, false},
		{"powershell as the hook's shell", settings.Hook{Command: "./x.sh", HookOptions: settings.HookOptions{Shell: "powershell"}}, sh, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.hook
			form, ok := directScript(&h, root)
			if c.argv == nil && !c.check {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			if c.check {
				require.True(t, form.checkOnly || form.shellArgv(c.content) == nil)
				return
			}
			require.False(t, form.checkOnly)
			require.Equal(t, c.argv, form.shellArgv(c.content))
		})
	}
}
