package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/proctest"
)

// userPromptHook is the user's own hook: a real sh hook reading its stdin
// with jq, whose output shows it ran and saw the prompt.
const userPromptHook = `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
  "command": "jq -r '\"user hook saw: \" + .prompt'"}]}]}}`

// runGuarded runs the binary and fails the test, instead of hanging it,
// when the binary does not exit: a FIFO read blocks forever.
func runGuarded(t *testing.T, env cliEnv, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2eBinary(t), args...)
	cmd.Dir = env.project
	cmd.Env = append(os.Environ(), "WAVE_HOME="+env.home, "HOME="+env.home,
		"WAVE_MANAGED_SETTINGS="+filepath.Join(env.home, "none.json"))
	cmd.Stdin = bytes.NewReader([]byte(stdin))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "wavehooks %v did not exit: it hung on a planted file", args)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errOut.String(), code
}

// TestRunAndLintSurviveHostileWorkspaceFiles plants each hostile file as a
// project's .wave/settings.json (and as one of VS Code's hook files, which
// the user's settings import): `wavehooks run` and `wavehooks lint` neither
// crash (a 3 MB "[[[[" overflowed hujson's stack), hang (a FIFO, a symlink
// to /dev/stdin) nor grow without bound (a symlink to /dev/zero); each says
// what is wrong with the file, and the user's own hook still runs.
func TestRunAndLintSurviveHostileWorkspaceFiles(t *testing.T) {
	for _, h := range proctest.HostileFiles {
		for _, where := range []string{".wave/settings.json", ".github/hooks/planted.json"} {
			t.Run(h.Name+" at "+where, func(t *testing.T) {
				env := newCLIEnv(t, `{"importVSCodeHooks": true, `+userPromptHook[1:])
				planted := filepath.Join(env.project, where)
				require.NoError(t, h.Plant(planted))

				out, stderr, code := runGuarded(t, env, `{"prompt":"hello"}`, "run", "UserPromptSubmit", "--project", env.project, "--trust-workspace")
				require.Equal(t, 0, code, stderr)
				require.Contains(t, stderr, planted)
				require.Contains(t, stderr, h.Says)
				var r map[string]any
				require.NoError(t, json.Unmarshal([]byte(out), &r), out)
				require.Contains(t, fmt.Sprint(r["additionalContext"]), "user hook saw: hello")

				out, stderr, code = runGuarded(t, env, "", "lint", "--project", env.project, "--format", "json")
				require.Equal(t, 1, code, stderr)
				var diags []struct {
					File, Code, Message string
					Severity            any
				}
				require.NoError(t, json.Unmarshal([]byte(out), &diags), out)
				found := false
				for _, d := range diags {
					if d.File == planted {
						found = true
						require.Contains(t, d.Message, h.Says)
					}
				}
				require.True(t, found, "lint says nothing about %s: %s", planted, out)
			})
		}
	}
}

// TestClaudeFilesAreNotOpenedWhenTheirImportIsOff plants a FIFO and a
// nested file as Claude Code's project settings. With importClaudeHooks
// off they are never opened: run and lint finish, and say nothing about
// them. (Before, both were read whatever the setting: the FIFO hung.)
func TestClaudeFilesAreNotOpenedWhenTheirImportIsOff(t *testing.T) {
	env := newCLIEnv(t, userPromptHook)
	for _, h := range proctest.HostileFiles {
		switch h.Name {
		case "a FIFO":
			require.NoError(t, h.Plant(filepath.Join(env.project, ".claude", "settings.json")))
		case "nested 1,500,000 deep":
			require.NoError(t, h.Plant(filepath.Join(env.project, ".claude", "settings.local.json")))
		}
	}

	out, stderr, code := runGuarded(t, env, `{"prompt":"hi"}`, "run", "UserPromptSubmit", "--project", env.project, "--trust-workspace")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, ".claude")
	require.Contains(t, out, "user hook saw: hi")

	out, _, code = runGuarded(t, env, "", "lint", "--project", env.project, "--format", "json")
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, ".claude")
}

// TestServeDoesNotReadItsOwnInputThroughASettingsSymlink: a project whose
// .wave/settings.json is a symlink to /dev/stdin made `wavehooks serve`
// read its own LSP input as a settings file, and hang. The real binary on
// stdio now refuses the file and answers: the user's hook runs.
func TestServeDoesNotReadItsOwnInputThroughASettingsSymlink(t *testing.T) {
	env := newCLIEnv(t, userPromptHook)
	require.NoError(t, proctest.HostileFiles[2].Plant(filepath.Join(env.project, ".wave", "settings.json")))
	cmd := exec.Command(e2eBinary(t), "serve", "--wave-home", env.home, "--trust-workspace")
	cmd.Dir = env.project
	cmd.Env = append(os.Environ(), "HOME="+env.home, "WAVE_MANAGED_SETTINGS="+filepath.Join(env.home, "none.json"))
	c := startProc(t, cmd)
	defer c.stop(t)
	require.NoError(t, c.initialize(env.project))
	raw, err := c.call("wave/sessionStart", map[string]any{"source": "startup"})
	require.NoError(t, err, c.stderr.String())
	var start struct{ SessionID string }
	require.NoError(t, json.Unmarshal(raw, &start))
	raw, err = c.call("wave/userPromptSubmit", map[string]any{"sessionId": start.SessionID, "prompt": "hello"})
	require.NoError(t, err, c.stderr.String())
	require.Contains(t, string(raw), "user hook saw: hello")
}
