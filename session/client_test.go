package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// What a client says with an event travels in the call (Report.Client):
// it reaches the hooks' stdin beside the event's own fields, which win
// over it; the agent's state is remembered for the next event; an event
// the session does not know is refused before anything is recorded.
func TestReportCarriesWhatTheClientSaid(t *testing.T) {
	record := `jq -c . > "$WAVE_PROJECT_DIR/stdin.json"`
	e := newEnv(t, session.FormatJSON, hook{event: event.UserPromptSubmit, command: record}, hook{event: event.Stop, command: record})
	s := e.create(t)
	ctx := context.Background()
	stdin := func() map[string]any {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(e.root, "stdin.json"))
		require.NoError(t, err)
		var in map[string]any
		require.NoError(t, json.Unmarshal(raw, &in))
		return in
	}

	_, err := s.Report(ctx, session.Report{
		Input: event.Input{Event: event.UserPromptSubmit, Prompt: "the prompt"},
		Client: event.Input{Prompt: "not the prompt", PromptID: "p-1", PermissionMode: "plan",
			Extra: map[string]json.RawMessage{"source": json.RawMessage(`"cli"`)}},
	})
	require.NoError(t, err)
	in := stdin()
	require.Equal(t, "the prompt", in["prompt"], "the event's own fields win")
	require.Equal(t, "p-1", in["prompt_id"])
	require.Equal(t, "plan", in["permission_mode"])
	require.Equal(t, "cli", in["source"])

	_, err = s.Report(ctx, session.Report{Input: event.Input{Event: event.Stop}})
	require.NoError(t, err)
	in = stdin()
	require.Equal(t, "p-1", in["prompt_id"], "remembered until the next prompt")
	require.Equal(t, "plan", in["permission_mode"], "remembered until it changes")
	require.NotContains(t, in, "source", "said with the prompt only")

	before := len(s.Messages())
	for _, fire := range []func() error{
		func() error {
			_, err := s.Report(ctx, session.Report{Input: event.Input{Event: "NoSuchEvent"}})
			return err
		},
		func() error { _, err := s.RunHooks(ctx, event.Input{Event: "NoSuchEvent"}, nil); return err },
	} {
		require.ErrorContains(t, fire(), `unknown hook event "NoSuchEvent"`)
	}
	require.Len(t, s.Messages(), before, "nothing was recorded")
}
