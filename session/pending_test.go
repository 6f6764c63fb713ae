package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/session"
)

// PreToolUse in two phases: the hooks run, the caller sees the ask as a
// question and answers it itself; an ask left to a prompt outside the
// session stays "ask" with no result in the tool block (nothing is
// answered yes on the user's behalf), and the answer, when it comes, is
// applied as any other.
func TestStartPreToolUse(t *testing.T) {
	askJSON := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`
	for _, tc := range []struct {
		name     string
		answer   flow.AskAnswer
		wantPerm string
		asked    bool
		result   string
	}{
		{name: "asked elsewhere", answer: flow.AskedElsewhere, wantPerm: "ask"},
		{name: "the caller's user allowed", answer: flow.UserAllowed, wantPerm: "allow", asked: true},
		{name: "the caller's user denied", answer: flow.UserDenied, wantPerm: "deny", asked: true,
			result: "The user denied permission to run Bash."},
		{name: "no one could be asked", answer: flow.NoOneAsked, wantPerm: "deny",
			result: "permission to run Bash was needed and no one could be asked: sure?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, hook{event: event.PreToolUse, command: sh("respond.sh", "0", askJSON)})
			s := e.create(t)
			pend, err := s.StartPreToolUse(context.Background(), "toolu_1", "Bash", json.RawMessage(`{"command":"rm -rf /tmp/x"}`))
			require.NoError(t, err)
			require.NotNil(t, pend.Questions.Ask)
			require.Equal(t, "sure?", pend.Questions.Ask.Reason)
			require.JSONEq(t, `{"command":"rm -rf /tmp/x"}`, string(pend.Questions.Ask.ToolInput))

			out, err := pend.Finish(pend.Facts(tc.answer))
			require.NoError(t, err)
			require.Equal(t, tc.wantPerm, out.Permission)
			require.Equal(t, "ask", out.Decision)
			require.Equal(t, tc.asked, out.Asked)
			tools := blocksOf(s.Messages(), session.BlockTool)
			require.Len(t, tools, 1)
			require.Equal(t, tc.result, tools[0].Tool().Result)
		})
	}
}

// A tool call the session refuses is refused before any hook runs, and
// StartHooks is only for PreToolUse.
func TestStartRefuses(t *testing.T) {
	e := newEnv(t, session.FormatJSON, hook{event: event.PreToolUse, command: sh("respond.sh", "2", "", "never runs")})
	s := e.create(t)
	_, err := s.StartPreToolUse(context.Background(), "", "Bash", json.RawMessage(`{}`))
	var invalid *flow.InvalidError
	require.ErrorAs(t, err, &invalid)
	_, err = s.StartHooks(context.Background(), event.Input{Event: event.Stop})
	require.ErrorContains(t, err, "StartHooks is for PreToolUse")
}
