package host_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/session"
)

// Finish records the event once, with the adapter's note, and picks out
// exactly the warn and error blocks, in order, for the user.
func TestFinish(t *testing.T) {
	h := host.New(host.Config{})
	out := session.Outcome{Blocks: []session.Block{
		{Type: session.BlockText, Content: "the model's text"},
		{Type: session.BlockWarn, Content: "lint found 3 problems"},
		{Type: session.BlockHook, Content: "context for the model"},
		{Type: session.BlockError, Content: "hook failed: exit 1"},
	}}
	out.Result = hooks.Result{Event: event.Stop, Runs: []hooks.Run{{Command: "lint.sh"}}}
	rep := h.Finish("s1", "", &out, "the agent goes on")
	require.True(t, rep.Recorded)
	require.Equal(t, []host.Notice{{Level: host.Warning, Text: "lint found 3 problems"}, {Level: host.Error, Text: "hook failed: exit 1"}}, rep.Notices)
	require.Equal(t, []hooks.EventRun{rep.Run}, h.History.List("s1", event.Stop, 5))
	require.Regexp(t, "; the agent goes on$", rep.Run.Outcome)
}

// The history says how an ask ended.
func TestAskedNote(t *testing.T) {
	for _, tc := range []struct {
		out  session.Outcome
		want string
	}{
		{out: session.Outcome{}, want: ""},
		{out: session.Outcome{Answer: flowAnswer(true, "allow")}, want: "asked: allowed"},
		{out: session.Outcome{Answer: flowAnswer(true, "deny")}, want: "asked: denied (by the user, or no answer in time)"},
	} {
		require.Equal(t, tc.want, host.AskedNote(tc.out))
	}
}

func flowAnswer(asked bool, permission string) flow.Answer {
	return flow.Answer{Asked: asked, Permission: permission}
}
