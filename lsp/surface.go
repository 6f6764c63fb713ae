package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/session"
)

// notify sends a notification on the connection; a failure only means the
// editor is gone, which Serve notices on its own.
func (s *Server) notify(method string, params any) {
	if err := s.conn.Notify(s.connCtx, method, params); err != nil {
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

// announce sends the session's conversation after it changed.
func (s *Server) announce(sess *session.Session) {
	s.notify(notifySessionChanged, &SessionChangedParams{SessionID: sess.ID(), Messages: nonNil(sess.Messages())})
}
