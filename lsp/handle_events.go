package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

var sessionSources = map[string]bool{"startup": true, "resume": true, "clear": true, "compact": true}

func (s *Server) sessionStart(ctx context.Context, p *SessionStartParams) (*SessionStartResult, error) {
	if p.Source == "" {
		p.Source = "startup"
	}
	if !sessionSources[p.Source] {
		return nil, badParam("source", `must be "startup", "resume", "clear" or "compact", not %q`, p.Source)
	}
	sess, err := s.openOrCreate(p.SessionID)
	if err != nil {
		return nil, err
	}
	out, err := s.event(ctx, sess, event.SessionStart, p.Source, "SessionStart hooks", func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.SessionStart, Source: p.Source}, Client: p.input()})
	})
	if err != nil {
		return nil, err
	}
	return wire.SessionStart(sess.ID(), sess.TranscriptPath(), out), nil
}

func (s *Server) userPromptSubmit(ctx context.Context, p *UserPromptSubmitParams) (*FlowResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	out, err := s.event(ctx, sess, event.UserPromptSubmit, "", "UserPromptSubmit hooks", func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.UserPromptSubmit, Prompt: p.Prompt}, Client: p.input()})
	})
	return wire.Flow(out), err
}

func (s *Server) preToolUse(ctx context.Context, p *PreToolUseParams) (*PreToolUseResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	p.ToolInput = rawjson.OrEmptyObject(p.ToolInput) // on the wire a call without input has {}; the session checks the call
	out, err := s.event(ctx, sess, event.PreToolUse, p.ToolName, "PreToolUse hooks for "+p.ToolName, func(ctx context.Context, ask session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.PreToolUse, ToolUseID: p.ToolUseID, ToolName: p.ToolName,
			ToolInput: p.ToolInput}, Client: p.input(), Ask: ask})
	})
	if err != nil {
		return nil, err
	}
	return wire.PreToolUse(out, p.ToolInput), nil
}

func (s *Server) postToolUse(ctx context.Context, p *PostToolUseParams) (*FlowResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	p.ToolInput = rawjson.OrEmptyObject(p.ToolInput) // on the wire a call without input has {}; the session checks the call
	if len(p.ToolResponse) == 0 {
		p.ToolResponse = json.RawMessage("null")
	}
	client := p.input()
	client.DurationMs = p.DurationMs
	out, err := s.event(ctx, sess, event.PostToolUse, p.ToolName, "PostToolUse hooks for "+p.ToolName, func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.PostToolUse, ToolUseID: p.ToolUseID, ToolName: p.ToolName,
			ToolInput: p.ToolInput, ToolResponse: p.ToolResponse}, Client: client})
	})
	return wire.Flow(out), err
}

func (s *Server) stop(ctx context.Context, p *StopParams) (*FlowResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	out, err := s.event(ctx, sess, event.Stop, "", "Stop hooks", func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.Stop}, Client: p.input()})
	})
	return wire.Flow(out), err
}

func (s *Server) sessionEnd(ctx context.Context, p *SessionEndParams) (*BlocksResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if p.Reason == "" {
		p.Reason = "other"
	}
	out, err := s.event(ctx, sess, event.SessionEnd, p.Reason, "SessionEnd hooks", func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
		return sess.Report(ctx, session.Report{Input: event.Input{Event: event.SessionEnd, Reason: p.Reason}, Client: p.input()})
	})
	if err != nil {
		return nil, err
	}
	return wire.Blocks(out), nil
}

// event runs one lifecycle event of a session with everything the editor
// sees around it: progress when the hooks take long (titled with the
// statusMessage of the hooks that run, if they have one), the run history
// and its notification, warn and error blocks as messages, and what changed
// in the session (every change is announced, a prompt that only adds itself too).
// fire runs the event with the context the progress's Cancel cancels, and
// with the server's ask for a PreToolUse "ask", which ends the progress
// before the user is asked (askEnding). sess becomes the active session.
func (s *Server) event(ctx context.Context, sess *session.Session, ev event.Event, matchValue, title string,
	fire func(ctx context.Context, ask session.AskFunc) (session.Outcome, error)) (session.Outcome, error) {
	s.noteActive(sess, ev)
	return s.runEvent(ctx, sess, ev, matchValue, title, fire)
}

// runEvent is event without making sess the active session: the events
// the server fires itself (observed.go) run through it directly.
func (s *Server) runEvent(ctx context.Context, sess *session.Session, ev event.Event, matchValue, title string,
	fire func(ctx context.Context, ask session.AskFunc) (session.Outcome, error)) (session.Outcome, error) {
	fireCtx, endProgress, done := s.startProgress(ctx, func() string {
		if msgs := s.engine.StatusMessages(ev, matchValue); len(msgs) > 0 {
			return strings.Join(msgs, " · ")
		}
		return title
	})
	out, err := fire(fireCtx, s.askEnding(endProgress))
	done()
	if err != nil {
		whenReplied(ctx, func() { s.announce(sess) }) // what was saved before the error
		return out, err
	}
	rep := s.host.Finish(sess.ID(), matchValue, &out, host.AskedNote(out)) // in wave/hookRuns before the response
	s.observe(out)
	whenReplied(ctx, func() {
		if rep.Recorded {
			s.notify(notifyHookRun, rep.Run)
		}
		s.surface(rep.Notices)
		s.announce(sess)
	})
	return out, nil
}

// recordRun adds an event to the history and announces it, when any hook was configured for it.
func (s *Server) recordRun(sessionID, matchValue string, res *hooks.Result) {
	if run, ok := s.host.Record(sessionID, matchValue, res, ""); ok {
		s.notify(notifyHookRun, run)
	}
}

// session finds a session by id, open or on disk: nothing the client sends
// becomes a path before session.ValidateID accepted it.
func (s *Server) session(id string) (*session.Session, error) {
	if id == "" {
		return nil, badParam("sessionId", "is required")
	}
	if err := session.ValidateID(id); err != nil {
		return nil, badParam("sessionId", "%v", err)
	}
	sess, err := s.store.Open(id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, badParam("sessionId", "no session %q", id)
	case err != nil:
		// The session exists but cannot be opened (a read-only or broken
		// file): the server's problem, not the params'.
		return nil, fmt.Errorf("cannot open session %q: %w", id, err)
	}
	return sess, nil
}

// openOrCreate resumes the session with that id if there is one, and
// otherwise starts it (with a new id when id is empty).
func (s *Server) openOrCreate(id string) (*session.Session, error) {
	if id == "" {
		sess, err := s.store.Create("")
		if err != nil {
			return nil, fmt.Errorf("cannot create session: %w", err)
		}
		return sess, nil
	}
	if err := session.ValidateID(id); err != nil {
		return nil, badParam("sessionId", "%v", err)
	}
	sess, _, err := s.store.OpenOrCreate(id)
	if err != nil {
		return nil, fmt.Errorf("cannot open session %q: %w", id, err)
	}
	return sess, nil
}
