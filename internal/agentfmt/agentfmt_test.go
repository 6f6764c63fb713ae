package agentfmt_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
)

// Each row of docs/parity.md's answer table: an agent's hook answer is read
// as the Claude Code answer of the same meaning, and a Claude Code answer
// is handed back to the agent in its own shape.
func TestAnswersBothWays(t *testing.T) {
	stdin := []byte(`{"tool_name":"Bash","tool_input":{"command":"ls","description":"list"}}`)
	for _, tc := range []struct {
		name        string
		agent       agentfmt.Agent
		event       string
		agentAnswer string
		claude      string
	}{
		{"gemini deny", agentfmt.Gemini, "BeforeTool", `{"decision":"deny","reason":"no"}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"gemini rewrite merges", agentfmt.Gemini, "BeforeTool", `{"hookSpecificOutput":{"tool_input":{"command":"ls -a"}}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a","description":"list"}}}`},
		{"gemini blocks a prompt", agentfmt.Gemini, "BeforeAgent", `{"decision":"deny","reason":"no","systemMessage":"s"}`,
			`{"decision":"block","reason":"no","systemMessage":"s"}`},
		{"gemini context", agentfmt.Gemini, "AfterTool", `{"hookSpecificOutput":{"additionalContext":"c"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"c"}}`},
		{"cursor deny", agentfmt.Cursor, "beforeShellExecution", `{"permission":"deny","user_message":"u","agent_message":"a"}`,
			`{"systemMessage":"u","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"a"}}`},
		{"cursor prompt", agentfmt.Cursor, "beforeSubmitPrompt", `{"continue":false,"user_message":"u"}`, `{"decision":"block","reason":"u"}`},
		{"cursor follow-up", agentfmt.Cursor, "stop", `{"followup_message":"again"}`, `{"decision":"block","reason":"again"}`},
		{"codex is Claude Code's", agentfmt.Codex, "PreToolUse", `{"decision":"block","reason":"r"}`, `{"decision":"block","reason":"r"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.JSONEq(t, tc.claude, string(agentfmt.Answer(tc.agent, tc.event, []byte(tc.agentAnswer), stdin)))
		})
	}
	for _, tc := range []struct {
		agent         agentfmt.Agent
		event, claude string
		want          string
	}{
		{agentfmt.Gemini, "BeforeTool", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			`{"decision":"deny","reason":"no"}`},
		{agentfmt.Gemini, "BeforeAgent", `{"decision":"block","reason":"no"}`, `{"decision":"deny","reason":"no"}`},
		{agentfmt.Cursor, "preToolUse", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"x":1}}}`,
			`{"permission":"allow","updated_input":{"x":1}}`},
		{agentfmt.Cursor, "beforeSubmitPrompt", `{"decision":"block","reason":"no"}`, `{"continue":false,"user_message":"no"}`},
		{agentfmt.Cursor, "stop", `{"decision":"block","reason":"go on"}`, `{"followup_message":"go on"}`},
	} {
		require.JSONEq(t, tc.want, string(agentfmt.AgentAnswer(tc.agent, tc.event, []byte(tc.claude))), "%s %s", tc.agent, tc.event)
	}
	require.Equal(t, "plain text", string(agentfmt.Answer(agentfmt.Gemini, "BeforeTool", []byte("plain text"), stdin)), "not JSON: as it is")
}

// Matchers: an agent's tool names read as Claude Code's, and back.
func TestMatchers(t *testing.T) {
	require.Equal(t, "Bash", agentfmt.MatcherToClaude(agentfmt.Gemini, "run_shell_command"))
	require.Equal(t, "Write|Edit", agentfmt.MatcherToClaude(agentfmt.Gemini, "write_file|replace"))
	require.Equal(t, "Edit|MultiEdit|Write", agentfmt.MatcherToClaude(agentfmt.Codex, "apply_patch"), "an exact list stays one")
	require.Equal(t, "Bash|Edit|MultiEdit", agentfmt.MatcherToClaude(agentfmt.Cursor, "Shell|StrReplace"))
	require.Equal(t, "^(?:Edit|MultiEdit|Write)$", agentfmt.MatcherToClaude(agentfmt.Codex, "^apply_patch$"), "a regular expression gets a group")
	require.Equal(t, "apply_patch", agentfmt.MatcherFromClaude(agentfmt.Codex, "Write|Edit"))
	require.Equal(t, "run_shell_command", agentfmt.MatcherFromClaude(agentfmt.Gemini, "Bash"))
	require.Equal(t, "*", agentfmt.MatcherToClaude(agentfmt.Gemini, "*"))
}
