package session_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// Claude Code compatibility details (docs/parity.md), through a real session
// and real hooks.

func apiJSON(t *testing.T, s *session.Session) string {
	t.Helper()
	b, err := json.Marshal(s.APIMessages())
	require.NoError(t, err)
	return string(b)
}

// A redaction hook's updatedToolOutput is what the model sees, and what
// the transcript keeps: the secret reaches neither.
func TestPostToolUseUpdatedToolOutputReplacesTheResult(t *testing.T) {
	redact := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[redacted]","stderr":"","interrupted":false,"isImage":false}}}`
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			e := newEnv(t, format, hook{event: event.PostToolUse, command: sh("respond.sh", "0", redact)})
			s := e.create(t)
			out, err := s.PostToolUse(context.Background(), "t1", "Bash", json.RawMessage(`{"command":"cat .env"}`),
				json.RawMessage(`{"stdout":"API_KEY=sk-secret-123","stderr":"","interrupted":false,"isImage":false}`))
			require.NoError(t, err)
			require.JSONEq(t, `{"stdout":"[redacted]","stderr":"","interrupted":false,"isImage":false}`, string(out.ToolResponse))
			tool := blocksOf(s.Messages(), session.BlockTool)[0]
			require.Contains(t, tool.Tool().Result, "[redacted]")
			require.NotContains(t, apiJSON(t, s), "sk-secret-123", "the model must not see the secret")
			file, err := os.ReadFile(s.TranscriptPath())
			require.NoError(t, err)
			require.NotContains(t, string(file), "sk-secret-123", "the transcript must not keep it either")
		})
	}

	// updatedMCPToolOutput counts for MCP tools only; without any, the
	// effective output is the tool's own.
	mcp := `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"[redacted]"}]}}`
	e := newEnv(t, session.FormatJSON, hook{event: event.PostToolUse, command: sh("respond.sh", "0", mcp)})
	s := e.create(t)
	out, err := s.PostToolUse(context.Background(), "t1", "mcp__db__query", nil, json.RawMessage(`"row: secret"`))
	require.NoError(t, err)
	require.JSONEq(t, `[{"type":"text","text":"[redacted]"}]`, string(out.ToolResponse))
	out, err = s.PostToolUse(context.Background(), "t2", "Bash", nil, json.RawMessage(`"plain output"`))
	require.NoError(t, err)
	require.JSONEq(t, `"plain output"`, string(out.ToolResponse), "not an MCP tool: updatedMCPToolOutput does not apply")
	require.Contains(t, apiJSON(t, s), "plain output")
}

// Stop's additionalContext keeps the agent going as non-error feedback
// (Claude Code's Stop decision control), with stop_hook_active set on the
// next stop and the same cap as a block.
func TestStopAdditionalContextContinues(t *testing.T) {
	hookCmd := `active=$(jq -r .stop_hook_active); [ "$active" = true ] && exit 0; ` +
		`echo '{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Run the tests before finishing."}}'`
	e := newEnv(t, session.FormatJSON, hook{event: event.Stop, command: hookCmd})
	s := e.create(t)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Done."}}))
	out, err := s.Stop(context.Background())
	require.NoError(t, err)
	require.True(t, out.Blocked, "the agent goes on")
	require.Equal(t, "Run the tests before finishing.", out.Reason)
	require.Equal(t, []string{"Run the tests before finishing."}, out.AdditionalContext)
	require.Empty(t, blocksOf(s.Messages(), session.BlockError), "feedback, not an error")
	require.Contains(t, apiJSON(t, s), `"[Hook:Stop] Run the tests before finishing."`)

	out, err = s.Stop(context.Background())
	require.NoError(t, err)
	require.False(t, out.Blocked, "stop_hook_active was true: the hook let the agent stop")
}

// PreToolUse says what the hooks decided, apart from what the editor must
// do: "none" lets the editor apply its own permission rules.
func TestPreToolUseDecision(t *testing.T) {
	cases := []struct {
		answer               string
		decision, permission string
	}{
		{"", "none", "allow"},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "allow", "allow"},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "deny", "deny"},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, "ask", "allow"},
		{`{"continue":false,"stopReason":"halt"}`, "deny", "deny"},
	}
	for _, c := range cases {
		t.Run(c.decision+"/"+c.permission, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, hook{event: event.PreToolUse, command: sh("respond.sh", "0", c.answer)})
			s := e.create(t)
			out, err := s.PreToolUse(context.Background(), "t1", "Bash", json.RawMessage(`{"command":"ls"}`),
				func(context.Context, session.AskRequest) bool { return true })
			require.NoError(t, err)
			require.Equal(t, c.decision, out.Decision)
			require.Equal(t, c.permission, out.Permission)
		})
	}
}

// A deny without a reason reads as Claude Code's "Blocked by hook" to the
// model; a systemMessage and wavehooks' own notes are for the user only.
func TestWhatTheModelReadsOfAHooksAnswer(t *testing.T) {
	e := newEnv(t, session.FormatJSON,
		hook{event: event.PreToolUse, command: sh("respond.sh", "0",
			`{"systemMessage":"policy check ran","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`)},
		hook{event: event.PreToolUse, command: sh("respond.sh", "0", `{"decision": 42}`) + " # a broken answer"})
	s := e.create(t)
	out, err := s.PreToolUse(context.Background(), "t1", "Bash", json.RawMessage(`{"command":"ls"}`), nil)
	require.NoError(t, err)
	require.Equal(t, "deny", out.Permission)
	require.Equal(t, "Blocked by hook", out.Reason)
	warns := contents(blocksOf(s.Messages(), session.BlockWarn))
	require.Len(t, warns, 2, "the user sees the systemMessage and the note about the broken answer")
	api := apiJSON(t, s)
	require.Contains(t, api, `"content":"Blocked by hook","is_error":true`)
	require.NotContains(t, api, "policy check ran")
	require.NotContains(t, api, "hook output ignored")
	require.NotContains(t, api, "Warning")
}
