package lsp

import (
	"context"
	"os"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// Preview is the wire result an event's hooks produced, as the matching
// method would answer it: what `wavehooks run` prints. The hooks have
// already run (res); their answer is applied by a real session — in a
// throwaway store, so nothing of the user's changes — so that the blocks
// printed are exactly the ones the server would add, with no second copy of
// the per-event rules. An ask stays "ask": nobody is there to answer it.
func Preview(ctx context.Context, in hooks.Input, res hooks.Result) (any, error) {
	home, err := os.MkdirTemp("", "wavehooks-run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	store, err := session.NewStore(session.Options{WaveHome: home, ProjectRoot: in.Cwd, Firer: answered(res)})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	sess, err := store.Create("")
	if err != nil {
		return nil, err
	}
	applied := in
	if applied.ToolUseID == "" {
		applied.ToolUseID = "toolu_run" // the session keys tool blocks by id; the input may have none
	}
	// Let an ask through unanswered, so the outcome is what the hooks said
	// before any user decided anything; it is reported as "ask" below.
	out, err := sess.RunHooks(ctx, applied, func(context.Context, session.AskRequest) bool { return true })
	if err != nil {
		return nil, err
	}
	if res.Permission == hooks.PermissionAsk && res.Continue {
		out.Permission, out.Reason, out.Asked = string(hooks.PermissionAsk), res.Reason, false
	}
	return resultFor(in.Event, in.SessionID, in.TranscriptPath, out, in.ToolInput), nil
}

// answered is a session.Firer that gives back hooks that already ran.
type answered hooks.Result

func (a answered) Fire(context.Context, hooks.Input) hooks.Result { return hooks.Result(a) }

// MarshalWire encodes a result as the server writes it on the wire
// (segmentio's encoder without HTML escaping), into a buffer of about its
// size: Preview's result for a large tool input holds it twice.
func MarshalWire(v any) ([]byte, error) {
	return appendJSON(make([]byte, 0, sizeHint(v)+64), v)
}
