package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// completion offers what fits where the cursor is in a settings file: event
// names under "hooks", the keys of a matcher group and of a hook, hook types,
// and known tool names in a matcher.
func (s *Server) completion(_ context.Context, p *protocol.CompletionParams) (*protocol.CompletionList, error) {
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	text, off, ok, err := s.settingsText(p.TextDocument.URI, p.Position)
	if err != nil {
		return nil, err
	}
	if !ok {
		return list, nil
	}
	add := func(label string, kind protocol.CompletionItemKind, doc string) {
		list.Items = append(list.Items, protocol.CompletionItem{Label: label, Kind: kind, Detail: doc})
	}
	place := Locate(text, off).Place()
	switch place.Kind {
	case PlaceRootKey:
		for _, k := range settings.RootKeys {
			add(k, protocol.CompletionItemKindProperty, settings.KeyDocs[k])
		}
	case PlaceEventKey:
		for _, e := range event.Events() {
			spec, _ := event.Spec(e)
			add(string(e), protocol.CompletionItemKindEvent, spec.Summary)
		}
	case PlaceGroupKey:
		add("matcher", protocol.CompletionItemKindProperty, settings.KeyDocs["matcher"])
		add("hooks", protocol.CompletionItemKindProperty, "The commands of this matcher group.")
	case PlaceHookKey:
		for _, k := range settings.HookKeys {
			add(k, protocol.CompletionItemKindProperty, settings.KeyDocs[k])
		}
	case PlaceHookValue:
		switch place.Key {
		case "type":
			for _, t := range settings.HookTypes {
				add(t, protocol.CompletionItemKindValue, settings.KeyDocs["type"])
			}
		case "shell":
			for _, sh := range settings.Shells {
				add(sh, protocol.CompletionItemKindValue, settings.KeyDocs["shell"])
			}
		case "onFailure":
			for _, v := range settings.OnFailureValues {
				add(v, protocol.CompletionItemKindValue, settings.KeyDocs["onFailure"])
			}
		}
	case PlaceMatcher:
		// The event's own values (PreSkillShellCommand's shells too), else
		// tool names for the tool events; nothing for names the user chose.
		spec, ok := event.Spec(place.Event)
		if vals := event.MatcherValues[place.Event]; ok && (len(vals) > 0 || !event.ToolEvent(place.Event)) {
			for _, v := range vals {
				add(v, protocol.CompletionItemKindValue, "compared with "+spec.MatchField)
			}
			break
		}
		for _, t := range settings.KnownTools {
			add(t, protocol.CompletionItemKindValue, "tool name")
		}
	}
	return list, nil
}
