package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunSaysWhatAnUntrustedDisableAllHooksDoes: an untrusted project's
// disableAllHooks does not apply, and `wavehooks run` says so, not that the
// user's hooks "do not run" (they run, and deny here); once the project is
// trusted, the setting applies and the diagnostic says that the user's hooks
// do not run, which is then true.
func TestRunSaysWhatAnUntrustedDisableAllHooksDoes(t *testing.T) {
	guard := `jq -e '.tool_input.command == "rm -rf /"' >/dev/null || exit 0; echo "the user's guard" >&2; exit 2`
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": guard}}}}}})
	require.NoError(t, err)
	env := newCLIEnv(t, string(settings))
	require.NoError(t, os.MkdirAll(filepath.Join(env.project, ".wave"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(env.project, ".wave", "settings.json"), []byte(`{"disableAllHooks": true}`), 0o644))
	const rmRF = `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`
	const doNotRun = "the hooks of this user settings file do not run: disableAllHooks is set in the project settings"
	cases := []struct {
		name       string
		args       []string
		permission string
		says       string
		saysNot    string
	}{
		{"untrusted: the setting waits, the user's guard runs", nil, "deny",
			`wavehooks run: the workspace is not trusted, so its setting "disableAllHooks": true in .wave/settings.json ` +
				`(turns off every hook but the managed ones, your own user hooks included) does not apply: your own hooks run as if it were not set`,
			doNotRun},
		{"trusted: the setting applies, the user's guard does not run", []string{"--trust-workspace"}, "allow",
			doNotRun, "is not trusted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := env.run(t, rmRF, append([]string{"run", "PreToolUse"}, c.args...)...)
			require.Equal(t, 0, code, stderr)
			var r struct{ Permission, Reason string }
			require.NoError(t, json.Unmarshal([]byte(out), &r), out)
			require.Equal(t, c.permission, r.Permission, stderr)
			require.Contains(t, stderr, c.says)
			require.NotContains(t, stderr, c.saysNot)
		})
	}
}
