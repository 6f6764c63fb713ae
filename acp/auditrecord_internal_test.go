package acp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// A call whose hooks could not run is refused by the proxy itself (fail
// closed), at every decision point that is not a permission request: the
// audit log records the refusal as the proxy's, with the call's input
// hash; a hook's own deny, and a turn the editor cancelled, are not the
// proxy's answer and add no record.
func TestTheProxysFailClosedRefusalIsAudited(t *testing.T) {
	input := []byte(`{"command":"rm -rf /"}`)
	for _, tc := range []struct {
		name      string
		ran       bool
		answer    flow.Answer
		cancelled bool
		recorded  bool
	}{
		{name: "the hooks could not run", ran: false, recorded: true},
		{name: "the turn was cancelled", ran: false, cancelled: true},
		{name: "a hook denied", ran: true, answer: flow.Answer{Continue: true, Permission: "deny", Reason: "no"}},
	} {
		for _, at := range []struct {
			name  string
			point decisionPoint
		}{{"operation", operationPoint}, {"changed input", changedInputPoint}} {
			t.Run(tc.name+", "+at.name, func(t *testing.T) {
				dir := t.TempDir()
				al, err := audit.Open(dir, audit.HostACP, audit.Options{})
				require.NoError(t, err)
				p := &Proxy{audit: al}
				st := &sessState{acpID: "sess-1"}
				d := flow.Decide(event.PreToolUse, "Bash", input, tc.ran, &tc.answer)
				act := p.decideAt(st, d, tc.cancelled, at.point)
				require.NotEmpty(t, act.refuse, "the call is refused either way")
				al.Flush() // answers are written behind
				recs, err := audit.Records(dir)
				require.NoError(t, err)
				if !tc.recorded {
					require.Empty(t, recs)
					return
				}
				require.Len(t, recs, 1)
				r := recs[0]
				require.Equal(t, audit.KindAnswer, r.Kind)
				require.Equal(t, audit.Deny, r.Answer)
				require.Equal(t, failClosedBy, r.By)
				require.Equal(t, "sess-1", r.Session)
				require.Equal(t, "Bash", r.Tool)
				require.Len(t, r.InputSHA256, 64)
			})
		}
	}
}
