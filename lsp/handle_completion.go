package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
)

func init() {
	register("textDocument/completion", request((*Server).completion))
}

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
	loc := hooks.Locate(text, off)
	path := loc.Path
	if loc.OnKey && len(path) > 0 && loc.InString {
		path = path[:len(path)-1] // the key being typed is not part of where it goes
	}
	add := func(label string, kind protocol.CompletionItemKind, doc string) {
		list.Items = append(list.Items, protocol.CompletionItem{Label: label, Kind: kind, Detail: doc})
	}
	switch {
	case loc.OnKey && len(path) == 0:
		for _, k := range hooks.RootKeys {
			add(k, protocol.CompletionItemKindProperty, hooks.KeyDocs[k])
		}
	case loc.OnKey && len(path) == 1 && path[0] == "hooks":
		for _, e := range hooks.Events() {
			spec, _ := hooks.Spec(e)
			add(string(e), protocol.CompletionItemKindEvent, spec.Summary)
		}
	case loc.OnKey && len(path) == 3 && path[0] == "hooks":
		add("matcher", protocol.CompletionItemKindProperty, hooks.KeyDocs["matcher"])
		add("hooks", protocol.CompletionItemKindProperty, "The commands of this matcher group.")
	case loc.OnKey && len(path) == 5 && path[0] == "hooks" && path[3] == "hooks":
		for _, k := range hooks.HookKeys {
			add(k, protocol.CompletionItemKindProperty, hooks.KeyDocs[k])
		}
	case !loc.OnKey && len(path) == 6 && path[5] == "type":
		for _, t := range hooks.HookTypes {
			add(t, protocol.CompletionItemKindValue, hooks.KeyDocs["type"])
		}
	case !loc.OnKey && len(path) == 6 && path[5] == "shell":
		for _, sh := range hooks.Shells {
			add(sh, protocol.CompletionItemKindValue, hooks.KeyDocs["shell"])
		}
	case !loc.OnKey && len(path) == 4 && path[3] == "matcher":
		ev := hooks.Event(path[1])
		if spec, ok := hooks.Spec(ev); ok && !hooks.ToolEvent(ev) {
			for _, v := range hooks.MatcherValues[ev] {
				add(v, protocol.CompletionItemKindValue, "compared with "+spec.MatchField)
			}
			break
		}
		for _, t := range hooks.KnownTools {
			add(t, protocol.CompletionItemKindValue, "tool name")
		}
	}
	return list, nil
}
