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

// TestRunOnFailureBlockWithoutAgentHost: through the real binary, which
// has no agent host, an mcp_tool guard cannot run; with onFailure "block"
// that failure denies the call like any other (#35 item 5), and --explain
// says why; with the default the call goes ahead.
func TestRunOnFailureBlockWithoutAgentHost(t *testing.T) {
	for _, c := range []struct {
		onFailure  string
		permission string
	}{{"block", "deny"}, {"continue", "allow"}} {
		t.Run(c.onFailure, func(t *testing.T) {
			env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "mcp_tool", "server": "scanner", "tool": "scan", "onFailure": "`+c.onFailure+`"}]}]}}`)
			input := `{"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}`
			out, stderr, code := env.run(t, input, "run", "PreToolUse", "--project", env.project)
			require.Equal(t, 0, code, stderr)
			require.Contains(t, stderr, "mcp_tool hook `mcp_tool scanner/scan` did not run: it needs an agent host")
			var res map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &res), out)
			require.Equal(t, c.permission, res["permission"], out)

			explained, _, code := env.run(t, input, "run", "PreToolUse", "--project", env.project, "--explain")
			require.Equal(t, 0, code)
			require.Contains(t, explained, "did not run: needs an agent host: no agent host is connected to evaluate it")
			if c.onFailure == "block" {
				require.Contains(t, res["reason"], "blocked because the hook failed (onFailure: block): hook `mcp_tool scanner/scan`: it could not run: no agent host")
				require.Contains(t, explained, "; blocked because the hook failed (onFailure: block)")
			} else {
				require.NotContains(t, explained, "onFailure")
			}
		})
	}
}
