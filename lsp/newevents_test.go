package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// newEventsSettings registers testdata/hooks' model-switch and skill-shell
// hooks (real sh + jq) on Claude Code 2.1.332's three new events.
const newEventsSettings = `{"hooks": {
  "PreModelSwitch": [{"hooks": [{"type": "command", "command": "$SCRIPTS/model-switch.sh"}]}],
  "PostModelSwitch": [{"hooks": [{"type": "command", "command": "$SCRIPTS/model-switch.sh"}]}],
  "PreSkillShellCommand": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/skill-shell.sh"}]}]
}}`

// TestRunHooksPreSkillShellCommand fires PreSkillShellCommand through
// wave/runHooks: only a refusal counts — deny, ask, defer, an updatedInput,
// decision "block" and exit 2 keep the command from running; allow and no
// answer let it run; the matcher is compared with the shell.
func TestRunHooksPreSkillShellCommand(t *testing.T) {
	e := startEditor(t, editorOpts{settings: newEventsSettings})
	sid, _ := e.startSession()
	cases := []struct {
		shell, command string
		permission     string
		reason         string
	}{
		{"Bash", "deny rm", "deny", "no deny rm from /ship (claude)"},
		{"Bash", "ask me", "deny", "the hook asked for approval, which a skill can't wait for: confirm ask me"},
		{"Bash", "defer it", "deny", "the hook deferred the command, which a skill can't wait for"},
		{"Bash", "rewrite it", "deny", "the hook rewrote the command, which is never applied"},
		{"Bash", "block it", "deny", "blocked block it"},
		{"Bash", "exit2 now", "deny", "exit 2 refuses exit2 now"},
		{"Bash", "allow ls", "allow", ""},
		{"Bash", "git status", "allow", ""},
		{"PowerShell", "deny Remove-Item", "allow", ""}, // the matcher is Bash: no hook runs
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			out := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreSkillShellCommand", "input": map[string]any{
				"tool_name": c.shell, "tool_input": map[string]any{"command": c.command}, "tool_use_id": "toolu_1:preamble-0",
				"command_name": "ship", "command_source": "project", "invoked_by": "claude"}})
			require.Equal(t, c.permission, out["permission"], mustJSON(out))
			require.Equal(t, c.permission == "deny", out["blocked"], mustJSON(out))
			if c.reason == "" {
				require.Nil(t, out["reason"], mustJSON(out))
			} else {
				require.Equal(t, c.reason, out["reason"])
			}
		})
	}
	raw, err := os.ReadFile(filepath.Join(e.root, "skill-stdin.json"))
	require.NoError(t, err)
	var stdin map[string]any
	require.NoError(t, json.Unmarshal(raw, &stdin))
	require.Equal(t, "git status", stdin["tool_input"].(map[string]any)["command"], "the last Bash command the hook saw")
	for k, v := range map[string]any{"hook_event_name": "PreSkillShellCommand", "session_id": sid, "tool_name": "Bash",
		"tool_use_id": "toolu_1:preamble-0", "command_name": "ship", "command_source": "project", "invoked_by": "claude"} {
		require.Equal(t, v, stdin[k], "stdin field %s", k)
	}

	err = e.call("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreSkillShellCommand",
		"input": map[string]any{"tool_name": "zsh", "tool_input": map[string]any{"command": "ls"}}}, nil)
	require.ErrorContains(t, err, `tool_name must be "Bash" or "PowerShell"`)
	err = e.call("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreSkillShellCommand",
		"input": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "invoked_by": "someone"}}, nil)
	require.ErrorContains(t, err, `invoked_by must be "user", "claude" or "other"`)
	err = e.call("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreSkillShellCommand",
		"input": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{}}}, nil)
	require.ErrorContains(t, err, "tool_input must be an object like")
}

// TestRunHooksModelSwitch fires PreModelSwitch (the hook's decision, for
// the host to apply; exit 2 denies) and PostModelSwitch (its context
// reaches the model) through wave/runHooks.
func TestRunHooksModelSwitch(t *testing.T) {
	e := startEditor(t, editorOpts{settings: newEventsSettings})
	sid, transcript := e.startSession()
	for _, c := range []struct{ decide, permission, reason string }{
		{"allow", "allow", "model switch: allow"},
		{"ask", "ask", "model switch: ask"},
		{"deny", "deny", "model switch: deny"},
		{"exit2", "deny", "keep the current model"},
	} {
		t.Run(c.decide, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(e.root, "model-decision"), []byte(c.decide), 0o644))
			out := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreModelSwitch", "input": map[string]any{}})
			require.Equal(t, c.permission, out["permission"], mustJSON(out))
			require.Equal(t, c.reason, out["reason"])
			require.Equal(t, c.permission == "deny", out["blocked"])
		})
	}
	require.NoError(t, os.Remove(filepath.Join(e.root, "model-decision")))
	out := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PreModelSwitch", "input": map[string]any{}})
	require.Nil(t, out["permission"], "no hook decided: the host switches as usual")

	out = e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PostModelSwitch", "input": map[string]any{}})
	require.Equal(t, []any{"The model changed: re-read CONTRIBUTING.md"}, out["additionalContext"])
	require.Contains(t, mustJSON(out["blocks"]), `"hookEvent":"PostModelSwitch"`)
	api := e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})
	require.Contains(t, mustJSON(api["messages"]), "re-read CONTRIBUTING.md", "the model reads the context")

	raw, err := os.ReadFile(filepath.Join(e.root, "PostModelSwitch.json"))
	require.NoError(t, err)
	var stdin map[string]any
	require.NoError(t, json.Unmarshal(raw, &stdin))
	require.Equal(t, map[string]any{"session_id": sid, "transcript_path": transcript, "cwd": e.root, "hook_event_name": "PostModelSwitch"}, stdin,
		"the base fields only, as Claude Code 2.1.332 sends them")
}

// TestEditorKnowsTheNewEvents: hover explains the three events, completion
// offers them and PreSkillShellCommand's two shells as matcher values, and
// a prompt hook on PreSkillShellCommand gets a diagnostic.
func TestEditorKnowsTheNewEvents(t *testing.T) {
	text := "{\n  \"hooks\": {\n    \"PreSkillShellCommand\": [{\"matcher\": \"\", \"hooks\": [{\"type\": \"prompt\", \"prompt\": \"ok?\"}]}],\n    \n  }\n}\n"
	e := startEditor(t, editorOpts{settings: text})
	u := uri.File(filepath.Join(e.home, "settings.json"))
	at := func(line, col int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col}}
	}
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(2, 8), &hover))
	require.Contains(t, hover.Contents.Value, "**PreSkillShellCommand**")
	require.Contains(t, hover.Contents.Value, "`invoked_by`")
	require.Contains(t, hover.Contents.Value, "matcher: compared with `tool_name` (`Bash`, `PowerShell`)")

	labels := func(line, col int) []string {
		var list protocol.CompletionList
		require.NoError(t, e.call("textDocument/completion", at(line, col), &list))
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	events := labels(3, 4)
	require.Len(t, events, 34)
	require.Subset(t, events, []string{"PreModelSwitch", "PostModelSwitch", "PreSkillShellCommand"})
	require.Equal(t, []string{"Bash", "PowerShell"}, labels(2, 41))

	diags := e.diagnosticsFor(filepath.Join(e.home, "settings.json"), func(d []protocol.Diagnostic) bool { return len(d) > 0 })
	require.Contains(t, diags[0].Message, "PreSkillShellCommand runs command, http and mcp_tool hooks, not prompt hooks")
}
