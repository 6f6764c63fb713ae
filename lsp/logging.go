package lsp

import (
	"context"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/safetext"
)

// clientLog sends the server's log records of level Info and above to the
// editor as window/logMessage, whatever the level of the configured handler
// (stderr): an editor shows them in its output panel, where a user who never
// started the server by hand can read them. Editors also copy a server's
// stderr into that panel (VS Code marks every line of it an error), so they
// start the server with a high stderr level and nothing is shown twice.
// Nothing but protocol frames ever goes to stdout.
type clientLog struct {
	slog.Handler
	s     *Server
	attrs []slog.Attr
}

// Enabled is true for what stderr takes and for Info and above, which the editor takes.
func (h *clientLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.Handler.Enabled(ctx, l)
}

func (h *clientLog) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.Handler.Enabled(ctx, r.Level) {
		err = h.Handler.Handle(ctx, r)
	}
	if r.Level >= slog.LevelInfo && h.s.connected.Load() {
		var b strings.Builder
		b.WriteString(r.Message)
		add := func(a slog.Attr) bool {
			b.WriteString(" " + a.Key + "=" + a.Value.String())
			return true
		}
		for _, a := range h.attrs {
			add(a)
		}
		r.Attrs(add)
		// A failed notification is logged at Debug, which is not sent here: no loop. The values can be a
		// repository's or an agent's text (a root path, a tool name): escaped, as the stderr handler quotes them.
		h.s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: messageType(r.Level),
			Message: safetext.Line(b.String(), 0)})
	}
	return err
}

// WithAttrs keeps the attributes for the editor's copy too.
func (h *clientLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLog{Handler: h.Handler.WithAttrs(attrs), s: h.s, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...)}
}

// WithGroup groups the stderr copy; the editor's copy stays flat.
func (h *clientLog) WithGroup(name string) slog.Handler {
	return &clientLog{Handler: h.Handler.WithGroup(name), s: h.s, attrs: h.attrs}
}

func messageType(l slog.Level) protocol.MessageType {
	switch {
	case l >= slog.LevelError:
		return protocol.MessageTypeError
	case l >= slog.LevelWarn:
		return protocol.MessageTypeWarning
	case l >= slog.LevelInfo:
		return protocol.MessageTypeInfo
	}
	return protocol.MessageTypeLog
}
