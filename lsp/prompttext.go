package lsp

import (
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Bounds of what one prompt shows: a repository's text must not push the
// part that matters off the first screen.
const (
	promptItemRunes  = 200 // one command, setting or file
	promptReasonRune = 500 // a hook's reason or message
	messageRunes     = 2000
)

// trustMessage is the trust prompt for l: host.TrustListing, the same
// listing `wavehooks trust` shows, and the editor's question.
func trustMessage(root string, l *trust.Loaded) string {
	return host.TrustListing(root, l) + "Trust them?"
}
