package lsp

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Settings files are diagnosed from the editor's text as the user types;
// other files are only tracked for the ask diagnostics they may carry.
// Documents that are not local files (untitled:, git:, …) are ignored.

func (s *Server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) {
	path, ok := s.notedDocument(p.TextDocument.URI)
	if !ok || !s.isSettingsFile(path) {
		return
	}
	s.docs.set(path, []byte(p.TextDocument.Text))
	s.rediagnose()
}

func (s *Server) didChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) {
	path, ok := s.notedDocument(p.TextDocument.URI)
	if !ok || !s.isSettingsFile(path) || len(p.ContentChanges) == 0 {
		return
	}
	// Full sync: the last change holds the whole text.
	s.docs.set(path, []byte(p.ContentChanges[len(p.ContentChanges)-1].Text))
	s.rediagnose()
}

// notedDocument is the path of a document a notification names, or false
// for a document that is not a local file, which the server ignores.
func (s *Server) notedDocument(u protocol.DocumentURI) (string, bool) {
	path, err := filePath(u)
	if err != nil {
		s.log.Debug("ignoring a document that is not a local file", "uri", string(u), "err", err)
		return "", false
	}
	return path, true
}

func (s *Server) didSave(context.Context, *protocol.DidSaveTextDocumentParams) {
	// The watcher sees the saved file; nothing to do here.
}

func (s *Server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) {
	path, ok := s.notedDocument(p.TextDocument.URI)
	if !ok {
		return
	}
	if _, open := s.docs.get(path); !open {
		return
	}
	s.docs.remove(path)
	s.rediagnose()
}

// rediagnose recomputes the configuration from disk plus open buffers and
// publishes its diagnostics. The engine keeps running the saved hooks:
// unsaved text is diagnosed, never run.
func (s *Server) rediagnose() {
	cfg := s.loadBuffers()
	if !s.engine.WorkspaceTrusted() {
		cfg = cfg.Untrusted() // what runs: an untrusted workspace's settings explain nothing yet
	}
	cfg.DropDriftNotes() // drift is shown once, by reportDrift
	s.noteBlockedChanges(cfg)
	s.explainHostEvents(cfg)
	for _, path := range s.diagnostics.replace(cfg) {
		s.publishDiagnostics(uri.File(path))
	}
}
