package lsp

import (
	"context"
	"time"

	"github.com/wavehooks/wavehooks/internal/trust"
)

// onStale is told by the engine that an event found a trusted workspace
// script changed (its hooks did not run): reload, so the user is asked again.
func (s *Server) onStale() {
	if s.connCtx.Err() != nil {
		return
	}
	s.background(func() {
		s.reloadConfig()
	})
}

// reloadConfig rereads every settings file (with the editor's unsaved text),
// installs the new hooks with their trust, republishes diagnostics and
// tells the editor, and asks for trust if the workspace needs it. The next
// event uses the new hooks.
func (s *Server) reloadConfig() {
	l := s.install()
	if s.approveEditorSaves(l.Config) {
		l = s.install()
	}
	s.rediagnose()
	s.reportDrift(l.Config)
	if !l.Trusted {
		s.background(func() {
			s.askTrustIfNeeded(s.connCtx)
		})
	}
}

// install loads the settings, decides trust for exactly what it loaded,
// and installs the two together, so that no event ever sees one without
// the other (docs/security.md, "Workspace trust"). Reloads from the
// watcher, a quick fix and a trust answer take turns: one that started
// later can never be overwritten by one that started earlier.
func (s *Server) install() *trust.Loaded {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.guardConfigChanges()
	s.installMu.Lock() // no request answered on the read loop sees the change half way (inlineRequest)
	l := s.ws.Reload()
	s.installMu.Unlock()
	s.watchScripts(l)
	s.announceHooks(l)
	s.updateWatchList()
	return l
}

// announceHooks sends wave/hooksChanged with the configuration in force, so
// the editor can show it (the status bar's hook count), and asks the editor
// for the "Run hook" code lenses again where it can be asked: a lens names a
// hook by its place in the configuration, which a reload may have moved.
func (s *Server) announceHooks(l *trust.Loaded) {
	s.notify(notifyHooksChanged, s.hooksState(l))
	if !s.lensRefresh {
		return
	}
	s.background(func() {
		ctx, cancel := context.WithTimeout(s.connCtx, 30*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, methodCodeLensRefresh, nil, nil); err != nil {
			s.log.Debug("workspace/codeLens/refresh", "err", err)
		}
	})
}

// hooksState is wave/hooksChanged's account of l: the settings files that
// exist, how many hooks and problems they hold, and whether the workspace's
// own hooks may run.
func (s *Server) hooksState(l *trust.Loaded) *HooksChangedParams {
	cfg := l.Config
	files := []string{}
	for _, f := range cfg.Files {
		if f.Exists {
			files = append(files, f.Path)
		}
	}
	return &HooksChangedParams{Files: files, Hooks: len(cfg.Hooks), Diagnostics: len(cfg.Diagnostics()),
		Trusted: l.Trusted}
}
