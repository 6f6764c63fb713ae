package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/protocol"
)

// Titles of the trust prompt's answers.
const (
	titleTrust  = "Trust"
	titleNotNow = "Not now"
)

// askTrustIfNeeded asks the user, once per set of workspace hooks, settings
// and scripts, whether the repository's own may take effect. One prompt is
// up at a time; a reload while it is up is asked about when it is answered.
func (s *Server) askTrustIfNeeded(ctx context.Context) {
	s.trustWanted.Store(true)
	for s.trustWanted.Load() && s.trustPrompt.TryLock() {
		s.trustWanted.Store(false)
		s.promptForTrust(ctx)
		s.trustPrompt.Unlock()
	}
}

// promptForTrust shows the trust prompt for the configuration in use,
// unless it needs none or the user already answered for exactly it. The
// caller holds trustPrompt.
func (s *Server) promptForTrust(ctx context.Context) {
	l := s.engine.Loaded()
	if ctx.Err() != nil || l.Trusted || !l.NeedsTrust() || l.Hash == s.trustAsked {
		return
	}
	var item *protocol.MessageActionItem
	_, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: trustMessage(s.root, l),
		Actions: []protocol.MessageActionItem{{Title: titleTrust}, {Title: titleNotNow}}}, &item)
	if err != nil {
		return
	}
	s.trustAsked = l.Hash
	if item == nil || item.Title != titleTrust {
		return
	}
	if err := s.trustWorkspace(l.Hash); err != nil {
		s.log.Warn("trust not recorded", "err", err)
	}
}

// trustWorkspace records that the user trusts the workspace as hash
// describes it, then loads it again: the trust takes effect only if the
// files are still what the user was shown.
func (s *Server) trustWorkspace(hash string) error {
	if err := s.trust.Trust(s.root, hash); err != nil {
		return err
	}
	l := s.install()
	s.rediagnose()
	if !l.Trusted {
		s.background(func() {
			s.askTrustIfNeeded(s.connCtx)
		})
		return errors.New("the workspace's hooks, settings or scripts changed before the trust was recorded; review them again")
	}
	return nil
}
