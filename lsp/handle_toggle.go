package lsp

import (
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// toggleActions are the "Disable this hook" / "Enable this hook" code
// actions for the hooks of a settings file that the range touches: each a
// WorkspaceEdit of the buffer as the editor has it (one small edit of the
// hook's "enabled" key, comments and layout kept), so that it undoes as
// any edit does and runs nothing until the file is saved.
func (s *Server) toggleActions(u protocol.DocumentURI, path string, r protocol.Range) []protocol.CodeAction {
	text, f, ok := s.settingsBuffer(path)
	if !ok {
		return nil
	}
	idx := settings.NewLineIndex(text)
	var out []protocol.CodeAction
	for i := range f.Hooks {
		h := &f.Hooks[i]
		if !overlaps(toRange(h.Place.Range), r) {
			continue
		}
		title, on, group := "Disable this hook", false, false
		if h.Disabled {
			title, on = "Enable this hook", true
			if h.Place.GroupDisabled {
				title, group = "Enable this hook's matcher group", true
			}
		}
		edit, err := settings.EnableEdit(text, h.Event, h.Place, on, group)
		if err != nil {
			continue
		}
		out = append(out, protocol.CodeAction{Title: title, Kind: protocol.RefactorRewrite,
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{
				u: {{Range: toRange(idx.Span(edit.Start, edit.End)), NewText: edit.Text}}}}})
	}
	return out
}

// settingsBuffer is a settings file's text as the editor has it (the open
// buffer, else the file on disk) and that text parsed, for the code
// actions that edit it.
func (s *Server) settingsBuffer(path string) ([]byte, settings.File, bool) {
	text, open := s.docs.get(path)
	if !open {
		var err error
		if text, err = settings.ReadSettingsText(path); err != nil {
			return nil, settings.File{}, false
		}
	}
	src := settings.SourceVSCode // a file of VS Code's hook directory unless it is one of ours
	for _, f := range s.engine.Config().Paths.SettingsFiles() {
		if filepath.Clean(f.Path) == path {
			src = f.Source
		}
	}
	return text, settings.ParseFile(path, src, text, s.root), true
}
