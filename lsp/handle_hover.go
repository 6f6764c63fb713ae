package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// hover explains event names (when the event fires, its stdin fields, what
// exit 2 means) and settings keys. It returns nil where there is nothing to say.
func (s *Server) hover(_ context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	text, off, ok, err := s.settingsText(p.TextDocument.URI, p.Position)
	if err != nil || !ok {
		return nil, err
	}
	loc := Locate(text, off)
	if !loc.InString {
		return nil, nil
	}
	var doc string
	switch place := loc.Place(); place.Kind {
	case PlaceEventKey:
		doc, _ = settings.EventDoc(event.Event(loc.Text))
	case PlaceRootKey, PlaceGroupKey, PlaceHookKey:
		doc = settings.KeyDocs[loc.Text]
	case PlaceMatcher:
		if m, err := settings.CompileMatcherFor(place.Event, loc.Text); err == nil {
			doc = "Matcher: " + describeMatcherFor(place.Event, m)
		}
	}
	if path, err := documentPath(p.TextDocument.URI); err == nil && s.engine.Config().Paths.IsManagedFile(path) {
		// Anywhere in a managed file: say whose it is and what that means.
		note := "**Managed** (policy) settings: " + managedHoverNote
		if doc == "" {
			doc = note
		} else {
			doc = note + "\n\n" + doc
		}
	}
	if doc == "" {
		return nil, nil
	}
	r := toRange(settings.NewLineIndex(text).Span(loc.Start, loc.End))
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}, Range: &r}, nil
}

// managedHoverNote is what hover says of a managed settings file.
const managedHoverNote = "its hooks always run; disableAllHooks in user or project settings, \"enabled\": false, " +
	"the editor's toggle and `wavehooks hooks disable` do not turn them off, and wavehooks never edits this file."

func describeMatcher(m *settings.Matcher) string {
	return m.Explain("Bash") + "; " + m.Explain("Write")
}

// describeMatcherFor explains a matcher with values its event is matched
// against: tool names for tool events, the documented values otherwise; an
// event that ignores matchers says so.
func describeMatcherFor(ev event.Event, m *settings.Matcher) string {
	spec, known := event.Spec(ev)
	switch vals := event.MatcherValues[ev]; {
	case !known:
		return describeMatcher(m)
	case !ev.UsesMatcher():
		return string(ev) + " ignores matchers: its hooks run on every " + string(ev)
	case len(vals) >= 2:
		return "compared with `" + spec.MatchField + "`: " + m.Explain(vals[0]) + "; " + m.Explain(vals[1])
	case event.ToolEvent(ev):
		return describeMatcher(m)
	default:
		return "compared with `" + spec.MatchField + "`"
	}
}

// settingsText returns the text of a settings file (the editor's buffer when
// open) and the byte offset of an LSP position in it; false for any other
// file, and an error for a URI that names no local file.
func (s *Server) settingsText(u protocol.DocumentURI, pos protocol.Position) ([]byte, int, bool, error) {
	path, err := documentPath(u)
	if err != nil {
		return nil, 0, false, err
	}
	if !s.isSettingsFile(path) {
		return nil, 0, false, nil
	}
	text, ok := s.docs.get(path)
	if !ok {
		if text, err = settings.ReadSettingsText(path); err != nil {
			return nil, 0, false, nil
		}
	}
	return text, settings.NewLineIndex(text).Offset(settings.Position{Line: int(pos.Line), Column: int(pos.Character)}), true, nil
}
