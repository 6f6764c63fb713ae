package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// trustProject is a project whose own settings run a guard script that
// denies `rm -rf /`, and a second hook whose command carries a terminal
// escape (clear screen) that a listing must show escaped, never send.
func trustProject(t *testing.T) (cliEnv, string) {
	t.Helper()
	env := newCLIEnv(t, `{}`)
	dir := filepath.Join(env.project, ".wave")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	script := filepath.Join(dir, "guard.sh")
	require.NoError(t, os.WriteFile(script, []byte(
		"#!/bin/sh\njq -e '.tool_input.command == \"rm -rf /\"' >/dev/null || exit 0\necho 'project guard' >&2\nexit 2\n"), 0o755))
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "command": "sh .wave/guard.sh"},
			map[string]any{"type": "command", "command": "true \x1b[2J"}}}},
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "true"}}}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o644))
	return env, script
}

// permissionOf runs PreToolUse for `rm -rf /` through `wavehooks run` and
// returns the permission it answers: "deny" when the project guard ran.
func permissionOf(t *testing.T, env cliEnv) string {
	t.Helper()
	const rmRF = `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`
	out, stderr, code := env.run(t, rmRF, "run", "PreToolUse")
	require.Equal(t, 0, code, stderr)
	var r struct{ Permission string }
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r.Permission
}

// TestTrustCommand: `wavehooks trust` lists what the project would run,
// escaped, asks, and records the answer where `wavehooks run` (and the
// server) read it; --revoke takes it back; an edited script needs trust
// again.
func TestTrustCommand(t *testing.T) {
	env, script := trustProject(t)
	require.Equal(t, "allow", permissionOf(t, env), "untrusted: the project guard does not run")
	out, _, code := env.run(t, `{"session_id":"s1"}`, "run", "Stop")
	require.Equal(t, 0, code)
	require.Contains(t, out, "not trusted yet — run `wavehooks trust` in the project, or trust it in the editor",
		"the skipped hooks' warning says how to trust them")

	out, stderr, code := env.run(t, "", "trust")
	require.Equal(t, 1, code, "no answer is no trust")
	require.Contains(t, out, "Commands it runs on your machine:")
	require.Contains(t, out, "• sh .wave/guard.sh")
	require.Contains(t, out, `• true \u001b[2J`, "the escape is shown, not sent")
	require.NotContains(t, out, "\x1b")
	require.Contains(t, out, ".wave/guard.sh\n", "the script the trust covers is listed")
	require.Contains(t, stderr, "Trust these hooks for "+env.project+"? [y/N]")
	require.Contains(t, stderr, "--yes")

	_, stderr, code = env.run(t, "n\n", "trust")
	require.Equal(t, 1, code, stderr)
	require.Equal(t, "allow", permissionOf(t, env), "declined: still untrusted")

	out, stderr, code = env.run(t, "y\n", "trust")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "trusted "+env.project)
	require.Equal(t, "deny", permissionOf(t, env), "trusted: the project guard runs")
	out, _, code = env.run(t, "", "trust")
	require.Equal(t, 0, code)
	require.Contains(t, out, "already trusted")

	out, stderr, code = env.run(t, "", "trust", "--revoke")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "no longer trusted")
	require.Equal(t, "allow", permissionOf(t, env), "revoked: the project guard is skipped again")

	_, stderr, code = env.run(t, "", "trust", "--yes")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "deny", permissionOf(t, env))

	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	require.Equal(t, "allow", permissionOf(t, env), "an edited script is not run under the old trust")
	out, _, code = env.run(t, "", "trust")
	require.Equal(t, 1, code)
	require.Contains(t, out, "• sh .wave/guard.sh", "the edited project is listed again")
}

// TestTrustCommandUsage: bad usage exits 2; a project with nothing of its
// own to trust says so and exits 0.
func TestTrustCommandUsage(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"nothing to trust", []string{"trust"}, 0, "has no hooks or settings of its own that need trust"},
		{"unknown flag", []string{"trust", "--force"}, 2, ""},
		{"stray argument", []string{"trust", "somewhere"}, 2, ""},
		{"yes and revoke", []string{"trust", "--yes", "--revoke"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := env.run(t, "", c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, out, c.out)
		})
	}
}
