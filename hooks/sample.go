package hooks

import (
	"context"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// SampleInput is a plausible input for an event, for trying a hook out from
// the editor ("Run hook") without an agent: a Bash tool call, a prompt, a
// startup source, and so on.
func SampleInput(ev event.Event, sessionID, transcriptPath, cwd string) event.Input {
	in := event.Input{SessionID: sessionID, TranscriptPath: transcriptPath, Cwd: cwd, Event: ev}
	event.Sample(&in)
	return in
}

// FireHook runs one configured hook, alone, with the given input, through
// the same executor and interpreter as a real event; trust is the caller's
// business.
func (e *Engine) FireHook(ctx context.Context, h settings.Hook, in event.Input) Result {
	cfg := *e.Config()
	h.Matcher, _ = settings.CompileMatcher("")
	cfg.Hooks = []settings.Hook{h}
	in.Event = h.Event
	return e.fire(ctx, &cfg, nil, trustedForDirect, in, true, noGate{})
}
