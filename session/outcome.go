package session

import (
	"context"
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// Firer runs the hooks of one event. *hooks.Engine implements it; the
// interface lets the server swap engines and lets a benchmark leave hook
// processes out. gate is told when the event's hook processes start and
// end (hooks.ReadGate): the session passes its own, so that it never
// writes its transcript in place while a hook may read it.
type Firer interface {
	FireGated(ctx context.Context, in event.Input, gate hooks.ReadGate) hooks.Result
}

// hookPlanner is a Firer that can tell, before an event, whether any hook
// may run for it (*hooks.Engine.MayRun): with Options.SaveBeforeHooks, an
// event no hook can read does not write the transcript. A Firer without it
// is taken to run hooks for every event.
type hookPlanner interface {
	MayRun(in event.Input) bool
}

// AskFunc asks the user about a PreToolUse "ask" and returns true to allow.
// The lsp package implements it with an editor prompt; it must return deny
// when the ask times out or the editor disconnects. A nil AskFunc denies.
type AskFunc func(ctx context.Context, req AskRequest) (allow bool)

// AskRequest is what the user is asked about: the tool call as it would run
// (with any updatedInput applied) and the hooks' reason for asking.
type AskRequest struct {
	SessionID string
	ToolUseID string
	ToolName  string
	ToolInput json.RawMessage
	Reason    string
}

// Outcome is what the agent must do after an event (flow.Answer, decided by
// the rules in package flow) and the blocks the event added or changed, in
// order, for the editor to render: the tool block of a tool event included,
// the user's own prompt not. Blocks is never nil. The lsp package turns an
// Outcome into the wire result.
type Outcome struct {
	flow.Answer
	Blocks []Block
}
