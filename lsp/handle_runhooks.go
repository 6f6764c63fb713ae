package lsp

import (
	"bytes"
	"context"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// runHooks fires any event, Claude Code's further events included, with the
// event's own stdin fields, and answers in the shape of the typed method of
// that kind of event.
func (s *Server) runHooks(ctx context.Context, p *RunHooksParams) (any, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	ev := event.Event(p.Event)
	if _, ok := event.Spec(ev); !ok {
		return nil, badParam("event", "unknown event %q", p.Event)
	}
	raw := bytes.TrimSpace(p.Input)
	if len(raw) > 0 && raw[0] != '{' && string(raw) != "null" {
		return nil, badParam("input", "must be an object of the event's stdin fields")
	}
	in, err := event.ParseInput(ev, raw)
	if err != nil {
		return nil, badParam("input", "%v", err)
	}
	switch ev {
	case event.PreToolUse, event.PostToolUse:
		in.ToolInput = rawjson.OrEmptyObject(in.ToolInput) // as a hook's stdin has it; the session checks the call
	case event.SessionStart:
		if in.Source == "" {
			in.Source = "startup"
		}
	}
	out, err := s.event(ctx, sess, ev, in.MatchValue(), string(ev)+" hooks", func(ctx context.Context, ask session.AskFunc) (session.Outcome, error) {
		return sess.RunHooks(ctx, in, ask)
	})
	if err != nil {
		return nil, err
	}
	return wire.For(ev, sess.ID(), sess.TranscriptPath(), out, in.ToolInput), nil
}
