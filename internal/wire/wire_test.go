package wire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// The result `wavehooks run` prints and serve answers: the event's typed
// shape, [] rather than null, the caller's tool input when no hook changed
// it, and text as the hook wrote it (no HTML escaping of <, > and &).
func TestForAndMarshal(t *testing.T) {
	requested := json.RawMessage(`{"command":"a && b > c"}`)
	for _, tc := range []struct {
		ev   event.Event
		out  session.Outcome
		want string
	}{{
		ev:  event.PreToolUse,
		out: session.Outcome{Answer: flow.Answer{Permission: "ask", Decision: "ask", Reason: "<sure?>", Continue: true}},
		want: `{"asked":false,"blocks":[],"continue":true,"decision":"ask","permission":"ask","reason":"<sure?>",` +
			`"toolInput":{"command":"a && b > c"}}`,
	}, {
		ev:   event.SessionEnd,
		out:  session.Outcome{},
		want: `{"blocks":[]}`,
	}, {
		ev:   event.Stop,
		out:  session.Outcome{Answer: flow.Answer{Blocked: true, Reason: "tests fail", Continue: true}},
		want: `{"additionalContext":[],"blocked":true,"blocks":[],"continue":true,"reason":"tests fail"}`,
	}} {
		t.Run(string(tc.ev), func(t *testing.T) {
			b, err := wire.Marshal(wire.For(tc.ev, "s1", "/t.json", tc.out, requested))
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(b))
			require.NotContains(t, string(b), `\u003c`, "no HTML escaping")
		})
	}
}

// A message with a large tool call is encoded into a buffer of about its
// size, its tool's fields counted though a block keeps them out of
// reflection's sight: the estimate is at least the encoding, and not much
// more.
func TestSizeHintCountsAToolCall(t *testing.T) {
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"input", []session.Block{session.ToolBlock(session.Tool{ID: "t", Name: "Write", Input: json.RawMessage(big)})}},
		{"result", wire.BlocksResult{Blocks: []session.Block{session.ToolBlock(session.Tool{ID: "t", Result: big})}}},
		{"error", &session.Message{Role: session.RoleUser, Blocks: []session.Block{session.ToolBlock(session.Tool{Error: big})}}},
		{"hook", []session.Block{session.Block{Type: session.BlockHook}.WithHook(session.Hook{Event: "SessionStart", Metadata: map[string]any{"k": big}})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := wire.Marshal(tc.v)
			require.NoError(t, err)
			hint := wire.SizeHint(tc.v)
			require.GreaterOrEqual(t, hint, len(data)-64)
			require.Less(t, hint, 2*len(data))
		})
	}
}
