package lsp

import (
	"github.com/wavehooks/wavehooks/internal/wire"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/session"
)

// notify sends a notification on the connection; a failure only means the
// editor is gone, which Serve notices on its own.
func (s *Server) notify(method string, params any) {
	// What conn.Notify does, without marshalling the params twice.
	if err := s.stream.writeNotification(method, params, wire.SizeHint(params)); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

// surface shows what hooks said where the user looks (host.Notices): warn
// blocks as warning messages and error blocks as error messages, each on
// one line and escaped: a hook's text must not pass for the server's.
func (s *Server) surface(notices []host.Notice) {
	for _, n := range notices {
		typ := protocol.MessageTypeWarning
		if n.Level == host.Error {
			typ = protocol.MessageTypeError
		}
		s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: safetext.Line(n.Text, messageRunes)})
	}
}

// announcements keeps, per session, the version of the conversation the
// editor was last told about, so that wave/sessionChanged carries only what
// changed since (session.Delta). One announcement per session is sent at a
// time, in version order; changes made while one is being sent are gathered
// into the next, so a burst of events costs what it changed, not more.
type announcements struct {
	mu       sync.Mutex
	sessions map[string]*announced
}

type announced struct {
	told    uint64 // the version in the last notification
	sending bool   // an announcement is being sent
	again   bool   // the session changed while it was
}

func newAnnouncements() *announcements {
	return &announcements{sessions: map[string]*announced{}}
}

// announce tells the editor what changed in the session since it was last
// told, if anything did. The first announcement of a session reaches back to
// the version it had when this server opened it: what came before, an
// editor reads with wave/getSession.
func (s *Server) announce(sess *session.Session) {
	a := s.announced
	id := sess.ID()
	a.mu.Lock()
	st := a.sessions[id]
	if st == nil {
		st = &announced{told: sess.FirstVersion()}
		a.sessions[id] = st
	}
	if st.sending {
		st.again = true
		a.mu.Unlock()
		return
	}
	st.sending = true
	for {
		st.again = false
		since := st.told
		a.mu.Unlock()
		d, changed := sess.ChangesSince(since)
		if changed && s.connCtx.Err() == nil {
			s.notify(notifySessionChanged, &SessionChangedParams{SessionID: id, Messages: nonNil(d.Messages),
				Version: d.Version, Since: d.Since, From: d.From, Full: d.From == 0})
		}
		a.mu.Lock()
		if changed {
			st.told = d.Version
		}
		if !st.again {
			break
		}
	}
	st.sending = false
	a.mu.Unlock()
}
