package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// `wavehooks doctor` as a user runs it: --help starts with its usage line,
// a bad --format is refused, and the exit code is 0 when every path found
// fires (here: none is found) and 1 when one does not (Claude Code's VS
// Code extension, which skips hooks), in text and JSON alike.
func TestDoctorCommand(t *testing.T) {
	bin := e2eBinary(t)
	home, empty := t.TempDir(), t.TempDir()
	doctor := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, append([]string{"doctor"}, args...)...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + empty, "WAVE_HOME=" + filepath.Join(home, ".wave")}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return stdout.String(), stderr.String(), code
	}

	_, help, code := doctor("--help")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(help, "usage: wavehooks doctor "), help)

	_, errText, code := doctor("--format", "yaml")
	require.Equal(t, 2, code)
	require.Contains(t, errText, "--format must be text or json")

	out, _, code := doctor()
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "NOT FOUND      Claude Code CLI (claude)")
	require.Contains(t, out, "every path found fires")

	ext := filepath.Join(home, ".vscode", "extensions", "anthropic.claude-code-2.1.332-linux-x64")
	require.NoError(t, os.MkdirAll(ext, 0o755))
	out, _, code = doctor()
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "DOES NOT FIRE  Claude Code VS Code extension (~/.vscode/extensions/anthropic.claude-code-2.1.332-linux-x64)")
	require.Contains(t, out, "    fix: Claude Code's VS Code extension skips hooks: use `wavehooks acp` with claude-agent-acp")

	out, _, code = doctor("--format", "json")
	require.Equal(t, 1, code)
	var report struct {
		Paths []struct{ ID, Status string }
		OK    bool
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	require.False(t, report.OK)
	require.Contains(t, report.Paths, struct{ ID, Status string }{"claude-vscode", "does-not-fire"})
}
