package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunAnswerFields: `wavehooks run` (the real binary) prints what
// hooks answer with Claude Code 2.1.332's newer fields, and never writes a
// hook's terminal sequence to the terminal raw: the JSON escapes it and
// --explain shows it escaped.
func TestRunAnswerFields(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {
  "PreToolUse": [{"hooks": [{"type": "command", "command": "jq -e .tool_name >/dev/null && jq -n '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"defer\", permissionDisplay: {title: \"Later\"}}}'"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "jq -r .prompt >/dev/null; jq -n '{decision: \"block\", reason: \"no\", hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", suppressOriginalPrompt: true}}'"}]}],
  "StopFailure": [{"hooks": [{"type": "command", "command": "e=$(jq -r .error); jq -nc --arg s \"$(printf '\\033]0;failed: %s\\007' \"$e\")\" '{terminalSequence: $s}'"}]}]
}}`)
	run := func(event, stdin string, extra ...string) (map[string]any, string) {
		out, stderr, code := env.run(t, stdin, append([]string{"run", event, "--project", env.project}, extra...)...)
		require.Equal(t, 0, code, stderr)
		if len(extra) > 0 {
			return nil, out
		}
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		return res, out
	}
	res, _ := run("PreToolUse", `{"tool_name": "Bash", "tool_input": {"command": "make"}}`)
	require.Equal(t, "defer", res["permission"])
	require.Equal(t, map[string]any{"title": "Later"}, res["permissionDisplay"])

	res, _ = run("UserPromptSubmit", `{"prompt": "hi"}`)
	require.Equal(t, true, res["blocked"])
	require.Equal(t, true, res["suppressOriginalPrompt"])

	res, out := run("StopFailure", `{"error": "rate_limit"}`)
	require.Equal(t, []any{"\x1b]0;failed: rate_limit\a"}, res["terminalSequences"])
	require.NotContains(t, out, "\x1b", "escaped in the JSON printed")
	_, explained := run("StopFailure", `{"error": "rate_limit"}`, "--explain")
	require.NotContains(t, explained, "\x1b")
	require.Contains(t, explained, "decision: json: terminal sequence; output discarded: StopFailure ignores what its hooks print",
		"kept although StopFailure discards the rest, as Claude Code does")
}

// TestRunUpdatedPrompt: `wavehooks run UserPromptSubmit` (the real binary)
// prints the prompt a hook rewrote as updatedPrompt; with a second hook that
// rewrites differently the last one wins and a warning says so.
func TestRunUpdatedPrompt(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"UserPromptSubmit": [
  {"hooks": [{"type": "command", "command": "jq -n --arg p \"$(jq -r .prompt)\" '{hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", updatedPrompt: (\"Answer in French: \" + $p)}}'"}]},
  {"matcher": "", "hooks": [{"type": "command", "command": "jq -n --arg p \"$(jq -r .prompt)\" '{hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", updatedPrompt: (\"Answer in German: \" + $p)}}'"}]}
]}}`)
	out, stderr, code := env.run(t, `{"prompt": "hello"}`, "run", "UserPromptSubmit", "--project", env.project)
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, "Answer in German: hello", res["updatedPrompt"])
	require.Contains(t, mustJSON(res["blocks"]), "the rewritten prompt differently; the last one in configuration order was used")
}
