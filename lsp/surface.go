package lsp

import (
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/session"
)

// notify sends a notification on the connection; a failure only means the
// editor is gone, which Serve notices on its own.
func (s *Server) notify(method string, params any) {
	// What conn.Notify does, without marshalling the params twice.
	if err := s.stream.writeNotification(method, params, sizeHint(params)); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}

// surface shows what hooks said where the user looks: warn blocks as warning
// messages, error blocks as error messages, and the changed conversation.
func (s *Server) surface(sess *session.Session, blocks []session.Block) {
	for _, b := range blocks {
		switch b.Type {
		case session.BlockWarn:
			s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: b.Content})
		case session.BlockError:
			s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: b.Content})
		}
	}
	if len(blocks) > 0 {
		s.announce(sess)
	}
}

// announceDelay is how long changes to a session are gathered before
// wave/sessionChanged goes out.
const announceDelay = 10 * time.Millisecond

// announcements coalesces wave/sessionChanged per session. The notification
// carries the whole conversation, so sending one per event would make a
// burst of n events cost O(n²); instead a change schedules one notification
// with the state at the time it is sent, and a long conversation backs off in
// proportion to what sending it costs.
type announcements struct {
	mu      sync.Mutex
	pending map[string]bool
	cost    map[string]time.Duration
}

func newAnnouncements() *announcements {
	return &announcements{pending: map[string]bool{}, cost: map[string]time.Duration{}}
}

// announce sends the session's conversation soon after it changed.
func (s *Server) announce(sess *session.Session) {
	a := s.announced
	id := sess.ID()
	a.mu.Lock()
	if a.pending[id] {
		a.mu.Unlock()
		return
	}
	a.pending[id] = true
	delay := max(announceDelay, 4*a.cost[id])
	a.mu.Unlock()
	time.AfterFunc(delay, func() {
		a.mu.Lock()
		delete(a.pending, id) // changes from now on schedule another notification
		a.mu.Unlock()
		if s.connCtx.Err() != nil {
			return
		}
		start := time.Now()
		s.notify(notifySessionChanged, &SessionChangedParams{SessionID: id, Messages: nonNil(sess.Messages())})
		a.mu.Lock()
		a.cost[id] = time.Since(start)
		a.mu.Unlock()
	})
}
