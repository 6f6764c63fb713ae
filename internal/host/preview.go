package host

import (
	"context"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// Preview is the wire result an event's hooks produced, as the matching
// method would answer it: what `wavehooks run` prints. The hooks have
// already run (res); their answer is applied by a session in memory
// (session.Scratch: the same per-event rules, nothing written), so that the
// blocks printed are exactly the ones the server would add. An ask stays
// "ask": nobody is there to answer it (flow.AskedElsewhere).
func Preview(ctx context.Context, in event.Input, res hooks.Result) (any, error) {
	sess := session.Scratch(in.Cwd, answered(res))
	applied := withToolUseID(in)
	out, err := previewOutcome(ctx, sess, applied)
	if err != nil {
		return nil, err
	}
	if applied.ToolUseID != in.ToolUseID {
		for i := range out.Blocks {
			if t := out.Blocks[i].Tool(); t.ID == previewToolUseID {
				t.ID = "" // the input named no id: print none
				out.Blocks[i].SetTool(t)
			}
		}
	}
	return wire.For(in.Event, in.SessionID, in.TranscriptPath, out, in.ToolInput), nil
}

// previewOutcome applies the hooks' answer to sess: a PreToolUse in two
// phases, its ask reported and answered by nobody, any other event whole.
func previewOutcome(ctx context.Context, sess *session.Session, in event.Input) (session.Outcome, error) {
	if in.Event != event.PreToolUse {
		return sess.RunHooks(ctx, in, nil)
	}
	pend, err := sess.StartHooks(ctx, in)
	if err != nil {
		return session.Outcome{}, err
	}
	return pend.Finish(pend.Facts(flow.AskedElsewhere))
}

// CheckPreviewInput checks, before any hook runs, an input that Preview
// would refuse: the session's check of a tool call, with the stand-in id
// for an input that names none.
func CheckPreviewInput(in event.Input) error {
	if in.Event != event.PreToolUse && in.Event != event.PostToolUse {
		return nil
	}
	in = withToolUseID(in)
	_, err := flow.CheckToolCall(flow.StdinToolCall, in.ToolUseID, in.ToolName, in.ToolInput)
	return err
}

// withToolUseID gives an input without a tool use id the stand-in one: the
// session keys a tool call's block by its id, and a hand-written input often
// has none. Preview takes it out of what it prints.
func withToolUseID(in event.Input) event.Input {
	if in.ToolUseID == "" {
		in.ToolUseID = previewToolUseID
	}
	return in
}

// previewToolUseID stands in for the tool use id of an input that has none.
const previewToolUseID = "toolu_preview"

// answered is a session.Firer that gives back hooks that already ran.
type answered hooks.Result

func (a answered) FireGated(context.Context, event.Input, hooks.ReadGate) hooks.Result {
	return hooks.Result(a)
}
