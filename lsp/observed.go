package lsp

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/session"
)

// observedState is what the server keeps to fire the events it sees happen
// itself, without an agent asking (docs/parity.md, "Events the server fires
// itself"): ConfigChange when a settings file changes, FileChanged when a
// watched file does, DirectoryAdded when the editor adds a workspace folder.
type observedState struct {
	mu sync.Mutex // guards the fields below
	// active is the session of the latest event: the observed events run
	// for it (its session_id and transcript), or for no session when none
	// is active.
	active string
	// config guards settings changes for ConfigChange (configchange.go);
	// the caller of its methods holds Server.reloadMu instead of mu.
	config configGuard
	// files is FileChanged's watch list (filechanged.go).
	files watchList

	// fire lets one batch of FileChanged or DirectoryAdded events run at a
	// time.
	fire sync.Mutex
	// register serializes the watch list's registrations with the editor.
	register sync.Mutex
}

func newObservedState() *observedState { return &observedState{} }

// noteActive makes sess the active session when the agent sends it an
// event, and no session once it ends; the events the server fires itself
// change nothing (fireObserved runs them through runEvent, which does not
// call this).
func (s *Server) noteActive(sess *session.Session, ev event.Event) {
	o := s.observed
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case ev == event.SessionEnd && o.active == sess.ID():
		o.active = ""
	case ev != event.SessionEnd:
		o.active = sess.ID()
	}
}

// observe takes the watch paths a SessionStart, CwdChanged or FileChanged hook returned
// as FileChanged's dynamic watch list.
func (s *Server) observe(out session.Outcome) {
	if out.WatchPaths != nil {
		s.setDynamicWatch(out.WatchPaths)
	}
}

// activeSession is the session of the latest event, or nil.
func (s *Server) activeSession() *session.Session {
	s.observed.mu.Lock()
	id := s.observed.active
	s.observed.mu.Unlock()
	if id == "" {
		return nil
	}
	sess, err := s.store.Open(id)
	if err != nil {
		s.log.Debug("the active session cannot be opened; firing without it", "session", id, "err", err)
		return nil
	}
	return sess
}

// fireObserved runs an event the server saw happen, for the active
// session when there is one (as if the agent had sent it with
// wave/runHooks, with everything the editor sees around an event), and
// otherwise for no session: the hooks get an empty session_id and
// transcript_path, the run goes to the history, and what the hooks said to
// the user is shown as messages. It returns the outcome the session
// applied, or, without a session, the same fields read from the hooks'
// answer.
func (s *Server) fireObserved(ctx context.Context, in event.Input) session.Outcome {
	title := string(in.Event) + " hooks"
	if !s.hasHooks(in.Event) {
		// Nothing to run: leave the session, the history and the editor alone.
		return session.Outcome{Answer: flow.Answer{Continue: true, AdditionalContext: []string{}}, Blocks: []session.Block{}}
	}
	if sess := s.activeSession(); sess != nil {
		out, err := s.runEvent(ctx, sess, in.Event, in.MatchValue(), title, func(ctx context.Context, _ session.AskFunc) (session.Outcome, error) {
			return sess.RunHooks(ctx, in, nil)
		})
		if err == nil {
			return out
		}
		s.log.Warn("observed event not applied to the active session; firing without it", "event", in.Event, "err", err)
	}
	in.Cwd = s.root
	fireCtx, _, done := s.startProgress(ctx, func() string { return title })
	res := s.engine.Fire(fireCtx, in)
	done()
	s.recordRun("", in.MatchValue(), &res)
	// The same rules as for a session, with nowhere to put blocks: what is
	// for the user is shown as messages, what is for the model is dropped.
	eff := flow.After(in, res, flow.NoSession{ProjectRoot: s.root}, flow.Facts{})
	for _, c := range eff.Changes {
		switch c.Kind {
		case flow.Warn:
			s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: safetext.Line(c.Text, messageRunes)})
		case flow.Error:
			s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: safetext.Line(c.Text, messageRunes)})
		}
	}
	out := session.Outcome{Answer: eff.Answer, Blocks: []session.Block{}}
	s.observe(out)
	return out
}

// goObserved fires observed events off the read loop (hooks take time,
// and notifications must keep flowing), one at a time and in order, tracked
// so that Serve waits for them. (ConfigChange does not come through here:
// a reload fires it, and reloads already take turns.)
func (s *Server) goObserved(ins ...event.Input) {
	if s.connCtx.Err() != nil || len(ins) == 0 {
		return
	}
	s.background(func() {
		s.observed.fire.Lock()
		defer s.observed.fire.Unlock()
		for _, in := range ins {
			s.fireObserved(s.connCtx, in)
		}
	})
}

// localPath is the absolute local path a file URI from the editor names,
// or false for any other URI (untitled:, a remote host, a relative path):
// nothing a client sends becomes a path unchecked.
func localPath(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") ||
		(u.Host != "" && !strings.EqualFold(u.Host, "localhost")) {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), true
}

// hasHooks reports whether the configuration in force has any hook for ev.
func (s *Server) hasHooks(ev event.Event) bool {
	cfg := s.engine.Config()
	for i := range cfg.Hooks {
		if cfg.Hooks[i].Event == ev {
			return true
		}
	}
	return false
}
