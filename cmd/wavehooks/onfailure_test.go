package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunOnFailureBlock: through the real binary, a PreToolUse guard whose
// script is missing denies the call when its onFailure is "block", and
// --explain says why; with the default the call goes ahead.
func TestRunOnFailureBlock(t *testing.T) {
	for _, c := range []struct {
		onFailure  string
		permission string
	}{{"block", "deny"}, {"continue", "allow"}} {
		t.Run(c.onFailure, func(t *testing.T) {
			env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "$SCRIPTS/no-such-guard.sh", "onFailure": "`+c.onFailure+`"}]}]}}`)
			input := `{"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}`
			out, stderr, code := env.run(t, input, "run", "PreToolUse", "--project", env.project)
			require.Equal(t, 0, code, stderr)
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			require.Equal(t, c.permission, res["permission"], out)

			explained, _, code := env.run(t, input, "run", "PreToolUse", "--project", env.project, "--explain")
			require.Equal(t, 0, code)
			if c.onFailure == "block" {
				require.Contains(t, res["reason"], "blocked because the hook failed (onFailure: block): hook `")
				require.Contains(t, explained, "decision: exit 127: command not found; blocked because the hook failed (onFailure: block)")
			} else {
				require.NotContains(t, explained, "onFailure")
			}
		})
	}
	// Stop ignores it: lint warns, and the agent may stop.
	env := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >/dev/null; exit 1", "onFailure": "block"}]}]}}`)
	lint, _, _ := env.run(t, "", "lint", "--project", env.project)
	require.Contains(t, lint, "onFailure is ignored on Stop, as in Claude Code")
	out, _, code := env.run(t, `{}`, "run", "Stop", "--project", env.project)
	require.Equal(t, 0, code)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, false, res["blocked"])
}
