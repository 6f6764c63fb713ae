package lsp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Claude Code compatibility details (docs/parity.md) through the real server.

// saveStdin configures, for each event, a hook that saves its stdin bytes to
// $WAVE_PROJECT_DIR/stdin-<event>.raw.
func saveStdin(events ...string) string {
	byEvent := map[string][]string{}
	for _, ev := range events {
		byEvent[ev] = []string{`cat > "$WAVE_PROJECT_DIR/stdin-` + ev + `.raw"`}
	}
	return hookSettings(byEvent)
}

// stdinOf reads what the hook of ev got, as keys in order and values.
func stdinOf(t *testing.T, e *editor, ev string) ([]string, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.root, "stdin-"+ev+".raw"))
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, json.Unmarshal(raw, &values))
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, err = dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys, values
}

// The agent's state the client gives (once) reaches every later hook as
// Claude Code sends it: prompt_id until the next prompt, permission_mode
// and effort where Claude Code has them, duration_ms on PostToolUse, the
// session's last assistant text on Stop.
func TestHooksGetTheAgentState(t *testing.T) {
	e := startEditor(t, editorOpts{settings: saveStdin("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")})
	sid, _ := e.startSession()
	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "list files",
		"promptId": "p-1", "permissionMode": "acceptEdits", "effort": "high"})
	keys, in := stdinOf(t, e, "UserPromptSubmit")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "hook_event_name", "prompt", "user_prompt"}, keys)
	require.Equal(t, "acceptEdits", in["permission_mode"])

	e.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{
		map[string]any{"type": "text", "content": "I will list them."},
		map[string]any{"type": "tool", "id": "t1", "name": "Bash", "input": map[string]any{"command": "ls"}}}})
	e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": json.RawMessage(`{"command":"ls","description":"List"}`)})
	keys, in = stdinOf(t, e, "PreToolUse")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name",
		"tool_name", "tool_input", "tool_use_id"}, keys)
	require.Equal(t, "p-1", in["prompt_id"], "remembered from the prompt")
	require.Equal(t, map[string]any{"level": "high"}, in["effort"])
	raw, err := os.ReadFile(filepath.Join(e.root, "stdin-PreToolUse.raw"))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"tool_input":{"command":"ls","description":"List"}`, "the tool input as the client wrote it")

	e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}, "toolResponse": map[string]any{"stdout": "a"}, "durationMs": 12, "permissionMode": "plan"})
	keys, in = stdinOf(t, e, "PostToolUse")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name",
		"tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"}, keys)
	require.Equal(t, float64(12), in["duration_ms"])
	require.Equal(t, "plan", in["permission_mode"])

	e.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{
		map[string]any{"type": "text", "content": "Two files."}, map[string]any{"type": "text", "content": "Done."}}})
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	keys, in = stdinOf(t, e, "Stop")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name",
		"stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"}, keys)
	require.Equal(t, "Two files.\nDone.", in["last_assistant_message"])
	require.Equal(t, "plan", in["permission_mode"], "the mode the client last gave")
	require.Equal(t, []any{}, in["background_tasks"])

	e.mustCall("wave/sessionEnd", map[string]any{"sessionId": sid, "reason": "logout"})
	keys, in = stdinOf(t, e, "SessionEnd")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "prompt_id", "hook_event_name", "reason", "end_source"}, keys)
	require.Equal(t, "logout", in["end_source"], "Wave's older name of reason")

	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "again"})
	_, in = stdinOf(t, e, "UserPromptSubmit")
	require.NotContains(t, in, "prompt_id", "a new prompt without an id: the last prompt's id no longer applies")
}

// wave/runHooks with the stdin Claude Code sent (testdata/claude-stdin) gives
// the hook the same bytes, but for the session's own id, transcript and root,
// and stop_hook_active, which the session keeps (no Stop of it was blocked).
func TestRunHooksKeepsWhatTheClientSent(t *testing.T) {
	e := startEditor(t, editorOpts{settings: saveStdin("PreToolUse", "Stop")})
	sid, transcript := e.startSession()
	for _, ev := range []string{"PreToolUse", "Stop"} {
		recorded, err := os.ReadFile(filepath.Join("../testdata/claude-stdin", ev+".json"))
		require.NoError(t, err)
		e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": ev, "input": json.RawMessage(recorded)})
		got, err := os.ReadFile(filepath.Join(e.root, "stdin-"+ev+".raw"))
		require.NoError(t, err)
		var orig map[string]any
		require.NoError(t, json.Unmarshal(recorded, &orig))
		quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
		want := strings.NewReplacer(quote(orig["session_id"].(string)), quote(sid),
			quote(orig["transcript_path"].(string)), quote(transcript), quote(orig["cwd"].(string)), quote(e.root),
			`"stop_hook_active":true`, `"stop_hook_active":false`).Replace(string(recorded))
		require.Equal(t, want, string(got))
	}
}

// What SessionStart hooks write to CLAUDE_ENV_FILE comes back as env, for
// the agent host's later tool runs; {} when nothing was written.
func TestSessionStartReturnsTheEnvFilesVariables(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"SessionStart": {
		`set -u; echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"; echo ready`}})})
	r := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	require.Equal(t, map[string]any{"NODE_ENV": "production"}, r["env"])
	require.Equal(t, []any{"ready"}, r["additionalContext"])

	plain := startEditor(t, editorOpts{})
	r = plain.mustCall("wave/sessionStart", map[string]any{})
	require.Equal(t, map[string]any{}, r["env"])
}

// The wire says whether a PreToolUse hook decided ("none": the editor asks
// as it would without hooks), and what PostToolUse's tool output is now.
func TestWireDecisionAndEffectiveToolOutput(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {
		"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "jq -n '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"allow\"}}'"}]}],
		"PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "jq -c '{hookSpecificOutput: {hookEventName: \"PostToolUse\", updatedToolOutput: (.tool_response | .content |= gsub(\"sk-[a-z0-9]+\"; \"[key]\"))}}'"}]}]}}`})
	sid, _ := e.startSession()
	pre := func(tool string) map[string]any {
		return e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t-" + tool, "toolName": tool, "toolInput": map[string]any{}})
	}
	none, allowed := pre("Bash"), pre("Write")
	require.Equal(t, "none", none["decision"])
	require.Equal(t, "allow", none["permission"], "unchanged for clients that read only permission")
	require.Equal(t, "allow", allowed["decision"])

	post := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t-read", "toolName": "Read",
		"toolInput": map[string]any{"file_path": "/p/.env"}, "toolResponse": map[string]any{"content": "KEY=sk-abc123", "success": true}})
	require.Equal(t, map[string]any{"content": "KEY=[key]", "success": true}, post["toolResponse"])
	api := e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})
	require.NotContains(t, mustJSON(api["messages"]), "sk-abc123")
	require.Contains(t, mustJSON(api["messages"]), "KEY=[key]")

	plain := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t-ls", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}, "toolResponse": "a.txt"})
	require.Equal(t, "a.txt", plain["toolResponse"])
}
