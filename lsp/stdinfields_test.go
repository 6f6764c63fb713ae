package lsp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readStdin reads what testdata/hooks/record-stdin.sh kept of an event's
// stdin, with its keys in order.
func readStdin(t *testing.T, root, event string) (map[string]any, []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "stdin-"+event+".json"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return m, keys
}

// TestDurationMsFromTheServer: PostToolUse and PostToolUseFailure hooks get
// duration_ms when the client does not send it — the time since the server
// let the call run (its PreToolUse answer); the client's own value wins,
// and a call the server did not see start gets none.
func TestDurationMsFromTheServer(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{
		"PostToolUse": {"$SCRIPTS/record-stdin.sh"}, "PostToolUseFailure": {"$SCRIPTS/record-stdin.sh"}})})
	sid, _ := e.startSession()
	call := func(id string) {
		pre := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Bash", "toolInput": map[string]any{"command": "make"}})
		require.Equal(t, "allow", pre["permission"])
	}
	const ran = 30 * time.Millisecond

	call("toolu_ok")
	time.Sleep(ran) // the tool "runs": a lower bound on duration_ms, never an upper one
	e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_ok", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make"}, "toolResponse": "built"})
	stdin, _ := readStdin(t, e.root, "PostToolUse")
	require.GreaterOrEqual(t, stdin["duration_ms"], float64(ran.Milliseconds()), "since the PreToolUse answer")

	call("toolu_fail")
	time.Sleep(ran)
	e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PostToolUseFailure", "input": map[string]any{
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": "toolu_fail", "error": "exit 2"}})
	stdin, _ = readStdin(t, e.root, "PostToolUseFailure")
	require.GreaterOrEqual(t, stdin["duration_ms"], float64(ran.Milliseconds()))

	call("toolu_said")
	e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_said", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make"}, "toolResponse": "built", "durationMs": 4187})
	stdin, _ = readStdin(t, e.root, "PostToolUse")
	require.Equal(t, float64(4187), stdin["duration_ms"], "the client's value wins")

	e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_unseen", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make"}, "toolResponse": "built"})
	stdin, _ = readStdin(t, e.root, "PostToolUse")
	require.NotContains(t, stdin, "duration_ms", "no PreToolUse: the server cannot know")

	e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_ok", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make"}, "toolResponse": "built"})
	stdin, _ = readStdin(t, e.root, "PostToolUse")
	require.NotContains(t, stdin, "duration_ms", "a call's start is used once")
}

// TestSessionStartAndPromptInputs: what the host says of the session (model,
// agent type, title, …) and of the prompt (source, title) reaches the
// hooks' stdin under Claude Code 2.1.332's names and in its order, and
// nothing is added when the host says nothing.
func TestSessionStartAndPromptInputs(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{
		"SessionStart": {"$SCRIPTS/record-stdin.sh"}, "UserPromptSubmit": {"$SCRIPTS/record-stdin.sh"}})})
	r := e.mustCall("wave/sessionStart", map[string]any{"source": "resume", "model": "claude-sonnet-5", "agentType": "reviewer",
		"sessionTitle": "Fix the parser", "secondsSinceLastResponse": 3600.5, "contextTokens": 120000,
		"promptCacheLikelyExpired": true, "estimatedCacheWriteUsd": 0.42})
	sid := r["sessionId"].(string)
	stdin, keys := readStdin(t, e.root, "SessionStart")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "hook_event_name", "source", "agent_type", "model", "session_title",
		"seconds_since_last_response", "context_tokens", "prompt_cache_likely_expired", "estimated_cache_write_usd"}, keys)
	require.Equal(t, "claude-sonnet-5", stdin["model"])
	require.Equal(t, "reviewer", stdin["agent_type"])
	require.Equal(t, "Fix the parser", stdin["session_title"])
	require.Equal(t, 3600.5, stdin["seconds_since_last_response"])
	require.Equal(t, float64(120000), stdin["context_tokens"])
	require.Equal(t, true, stdin["prompt_cache_likely_expired"])
	require.Equal(t, 0.42, stdin["estimated_cache_write_usd"])

	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "go on", "source": "sdk", "sessionTitle": "Fix the parser"})
	stdin, _ = readStdin(t, e.root, "UserPromptSubmit")
	require.Equal(t, "sdk", stdin["source"])
	require.Equal(t, "Fix the parser", stdin["session_title"])

	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "and then"})
	stdin, _ = readStdin(t, e.root, "UserPromptSubmit")
	require.NotContains(t, stdin, "source")
	require.NotContains(t, stdin, "session_title")

	e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	_, keys = readStdin(t, e.root, "SessionStart")
	require.Equal(t, []string{"session_id", "transcript_path", "cwd", "hook_event_name", "source"}, keys)
}
