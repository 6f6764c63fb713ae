package lsp

import (
	"context"
)

func (s *Server) addAssistantMessage(ctx context.Context, p *AddAssistantMessageParams) (*struct{}, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	err = sess.AddAssistantMessage(p.Blocks)
	whenReplied(ctx, func() { s.announce(sess) })
	if err != nil {
		return nil, err
	}
	return &struct{}{}, nil
}

func (s *Server) getSession(_ context.Context, p *SessionParams) (*GetSessionResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	version, msgs := sess.Snapshot()
	return &GetSessionResult{SessionID: sess.ID(), TranscriptPath: sess.TranscriptPath(), Messages: nonNil(msgs), Version: version}, nil
}

func (s *Server) apiMessages(_ context.Context, p *SessionParams) (*APIMessagesResult, error) {
	sess, err := s.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	return &APIMessagesResult{Messages: nonNil(sess.APIMessages())}, nil
}
