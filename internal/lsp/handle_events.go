package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooks"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/session"
	"github.com/wavehooks/wavehooks/internal/wire"
)

func init() {
	register(methodSessionStart, request((*Server).sessionStart))
	register(methodUserPromptSubmit, request((*Server).userPromptSubmit))
	register(methodPreToolUse, request((*Server).preToolUse))
	register(methodPostToolUse, request((*Server).postToolUse))
	register(methodStop, request((*Server).stop))
	register(methodSessionEnd, request((*Server).sessionEnd))
}

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
	ctx = session.WithClientInput(ctx, p.input())
	out, err := s.event(ctx, sess, event.SessionStart, p.Source, "SessionStart hooks", func(ctx context.Context) (session.Outcome, error) {
		return sess.SessionStart(ctx, p.Source)
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
	ctx = session.WithClientInput(ctx, p.input())
	out, err := s.event(ctx, sess, event.UserPromptSubmit, "", "UserPromptSubmit hooks", func(ctx context.Context) (session.Outcome, error) {
		return sess.UserPromptSubmit(ctx, p.Prompt)
	})
	return wire.Flow(out), err
}

func (s *Server) preToolUse(ctx context.Context, p *PreToolUseParams) (*PreToolUseResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	p.ToolInput = rawjson.OrEmptyObject(p.ToolInput) // on the wire a call without input has {}; the session checks the call
	ctx = session.WithClientInput(ctx, p.input())
	out, err := s.event(ctx, sess, event.PreToolUse, p.ToolName, "PreToolUse hooks for "+p.ToolName, func(ctx context.Context) (session.Outcome, error) {
		return sess.PreToolUse(ctx, p.ToolUseID, p.ToolName, p.ToolInput, s.ask)
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
	in := p.input()
	in.DurationMs = p.DurationMs
	ctx = session.WithClientInput(ctx, in)
	out, err := s.event(ctx, sess, event.PostToolUse, p.ToolName, "PostToolUse hooks for "+p.ToolName, func(ctx context.Context) (session.Outcome, error) {
		return sess.PostToolUse(ctx, p.ToolUseID, p.ToolName, p.ToolInput, p.ToolResponse)
	})
	return wire.Flow(out), err
}

func (s *Server) stop(ctx context.Context, p *StopParams) (*FlowResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	ctx = session.WithClientInput(ctx, p.input())
	out, err := s.event(ctx, sess, event.Stop, "", "Stop hooks", sess.Stop)
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
	ctx = session.WithClientInput(ctx, p.input())
	out, err := s.event(ctx, sess, event.SessionEnd, p.Reason, "SessionEnd hooks", func(ctx context.Context) (session.Outcome, error) {
		return sess.SessionEnd(ctx, p.Reason)
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
func (s *Server) event(ctx context.Context, sess *session.Session, ev event.Event, matchValue, title string,
	fire func(context.Context) (session.Outcome, error)) (session.Outcome, error) {
	s.noteActive(ctx, sess, ev)
	fireCtx, done := s.startProgress(ctx, func() string {
		if msgs := s.engine.StatusMessages(ev, matchValue); len(msgs) > 0 {
			return strings.Join(msgs, " · ")
		}
		return title
	})
	out, err := fire(fireCtx)
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
