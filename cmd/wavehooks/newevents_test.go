package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// newEventsSettings registers testdata/hooks' model-switch and skill-shell
// hooks (real sh + jq) on Claude Code 2.1.332's three new events.
const newEventsSettings = `{"hooks": {
  "PreModelSwitch": [{"hooks": [{"type": "command", "command": "$SCRIPTS/model-switch.sh"}]}],
  "PostModelSwitch": [{"hooks": [{"type": "command", "command": "$SCRIPTS/model-switch.sh"}]}],
  "PreSkillShellCommand": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/skill-shell.sh"}]}]
}}`

// TestRunNewEvents fires PreSkillShellCommand, PreModelSwitch and
// PostModelSwitch with `wavehooks run` (the real binary) and checks the
// printed result of each answer.
func TestRunNewEvents(t *testing.T) {
	env := newCLIEnv(t, newEventsSettings)
	run := func(t *testing.T, event, stdin string) map[string]any {
		t.Helper()
		out, stderr, code := env.run(t, stdin, "run", event, "--project", env.project)
		require.Equal(t, 0, code, stderr)
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		return res
	}
	skill := func(shell, command string) string {
		b, _ := json.Marshal(map[string]any{"tool_name": shell, "tool_input": map[string]any{"command": command},
			"tool_use_id": "toolu_1:preamble-0", "command_name": "ship", "invoked_by": "user"})
		return string(b)
	}
	for _, c := range []struct {
		name, shell, command, permission, reason string
	}{
		{"deny", "Bash", "deny rm", "deny", "no deny rm from /ship (user)"},
		{"ask", "Bash", "ask me", "deny", "the hook asked for approval, which a skill can't wait for: confirm ask me"},
		{"defer", "Bash", "defer it", "deny", "the hook deferred the command, which a skill can't wait for"},
		{"updatedInput", "Bash", "rewrite it", "deny", "the hook rewrote the command, which is never applied"},
		{"block", "Bash", "block it", "deny", "blocked block it"},
		{"exit 2", "Bash", "exit2 now", "deny", "exit 2 refuses exit2 now"},
		{"allow", "Bash", "allow ls", "allow", ""},
		{"other shell", "PowerShell", "deny Remove-Item", "allow", ""},
	} {
		t.Run("PreSkillShellCommand "+c.name, func(t *testing.T) {
			res := run(t, "PreSkillShellCommand", skill(c.shell, c.command))
			require.Equal(t, c.permission, res["permission"], res)
			require.Equal(t, c.permission == "deny", res["blocked"], res)
			if c.reason != "" {
				require.Equal(t, c.reason, res["reason"])
			}
		})
	}
	var stdin map[string]any
	raw, err := os.ReadFile(filepath.Join(env.project, "skill-stdin.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &stdin))
	require.Equal(t, "user", stdin["invoked_by"])
	require.Nil(t, stdin["command_source"], "an optional field the host did not send")

	_, stderr, code := env.run(t, `{"tool_name": "sh", "tool_input": {"command": "ls"}}`, "run", "PreSkillShellCommand", "--project", env.project)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `tool_name must be "Bash" or "PowerShell"`)

	for _, c := range []struct{ decide, permission, reason string }{
		{"allow", "allow", "model switch: allow"}, {"ask", "ask", "model switch: ask"},
		{"deny", "deny", "model switch: deny"}, {"exit2", "deny", "keep the current model"},
	} {
		t.Run("PreModelSwitch "+c.decide, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(env.project, "model-decision"), []byte(c.decide), 0o644))
			res := run(t, "PreModelSwitch", `{}`)
			require.Equal(t, c.permission, res["permission"], res)
			require.Equal(t, c.reason, res["reason"])
		})
	}
	res := run(t, "PostModelSwitch", `{"session_id": "s1"}`)
	require.Equal(t, []any{"The model changed: re-read CONTRIBUTING.md"}, res["additionalContext"])

	require.NoError(t, os.WriteFile(filepath.Join(env.project, "model-decision"), []byte("deny"), 0o644))
	out, _, code := env.run(t, `{}`, "run", "PreModelSwitch", "--project", env.project, "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, out, "decision: json: deny")
}

// TestLintRefusesModelHooksOnSkillCommands: Claude Code 2.1.332 runs no
// prompt or agent hook on PreSkillShellCommand; lint warns, and the hook
// never runs.
func TestLintRefusesModelHooksOnSkillCommands(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PreSkillShellCommand": [{"hooks": [{"type": "agent", "prompt": "Is $ARGUMENTS safe?"}]}]}}`)
	out, stderr, code := env.run(t, "", "lint", "--project", env.project)
	require.Equal(t, 0, code, "a warning: "+out+stderr)
	require.Contains(t, out, "PreSkillShellCommand runs command, http and mcp_tool hooks, not agent hooks (as in Claude Code); this hook will not run")
	explained, _, code := env.run(t, `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`, "run", "PreSkillShellCommand", "--project", env.project, "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, explained, "did not run: PreSkillShellCommand runs command, http and mcp_tool hooks, not agent hooks")
}
