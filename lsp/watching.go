package lsp

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
	"github.com/wavehooks/wavehooks/watcher"
)

// startWatching watches every settings file, the workspace scripts the
// trust covers, and the sessions directory. Settings and script changes
// reload the hooks; session files changed by another process are reloaded
// and announced.
func (s *Server) startWatching() {
	w, err := watcher.New(s.opts.Debounce, s.onFilesChanged)
	if err != nil {
		s.log.Warn("cannot watch settings files; changes need a restart", "err", err)
		return
	}
	paths := s.engine.Config().Paths
	for _, f := range paths.SettingsFiles() {
		if err := w.WatchFile(f.Path); err != nil {
			s.log.Warn("cannot watch", "path", f.Path, "err", err)
		}
	}
	if paths.ClaudeManagedDir != "" {
		// A drop-in added to Claude Code's managed-settings.d is new policy.
		if dir := filepath.Join(paths.ClaudeManagedDir, "managed-settings.d"); isDir(dir) {
			if err := w.WatchDir(dir, watcher.KeepExt(".json")); err != nil {
				s.log.Warn("cannot watch", "path", dir, "err", err)
			}
		}
	}
	if dir := paths.VSCodeHooksDir(); dir != "" {
		if err := w.WatchDir(dir, watcher.KeepExt(".json")); err != nil {
			s.log.Warn("cannot watch", "path", dir, "err", err)
		}
	}
	for _, f := range agentFiles(paths) {
		if err := w.WatchFile(f); err != nil {
			s.log.Debug("cannot watch", "path", f, "err", err)
		}
	}
	if err := s.watchSessions(w); err != nil {
		s.log.Warn("cannot watch sessions", "err", err)
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.watch = w
	s.watchScripts(s.engine.Loaded())
}

// agentFiles are other agents' hook files (importAgentHooks): read only
// when imported, but a change to one may need a reload either way.
func agentFiles(paths settings.Paths) []string {
	var out []string
	for _, a := range agentfmt.Agents {
		for _, f := range paths.AgentFiles(a) {
			out = append(out, filepath.Clean(f.Path))
		}
	}
	return out
}

// watchSessions watches the sessions directory (not in a measuring build,
// measure_nowatch.go).
func (s *Server) watchSessions(w *watcher.Watcher) error {
	if measureNoWatch {
		return nil
	}
	return w.WatchDir(s.store.Dir(), watcher.KeepExt(".json", ".jsonl"))
}

// watchScripts watches the workspace files that l's trust covers, so that
// editing one reloads, and asks for trust again. The caller holds reloadMu.
func (s *Server) watchScripts(l *trust.Loaded) {
	if s.watch == nil {
		return
	}
	for _, p := range l.ScriptPaths() {
		if err := s.watch.WatchFile(p); err != nil {
			s.log.Debug("cannot watch", "path", p, "err", err)
		}
	}
}

func (s *Server) onFilesChanged(paths []string) {
	if s.connCtx.Err() != nil || !s.enterWork() {
		return
	}
	defer s.handlers.Done()
	reload := false
	scripts := s.engine.Loaded().ScriptPaths()
	var watched []string
	for _, p := range paths {
		if s.isSettingsFile(p) || slices.Contains(scripts, p) || slices.Contains(agentFiles(s.engine.Config().Paths), p) {
			reload = true
			continue
		}
		if s.isFallbackWatched(p) {
			watched = append(watched, p) // and it may be a session file too
		}
		if filepath.Dir(p) == s.store.Dir() {
			s.onSessionFileChanged(p)
		}
	}
	if reload {
		s.reloadConfig()
	}
	s.watchedFilesChanged(watched)
}

func (s *Server) onSessionFileChanged(path string) {
	id, changed, err := s.store.ExternalChange(path)
	if err != nil {
		s.log.Warn("session file changed but cannot be reloaded", "path", path, "err", err)
		return
	}
	if !changed {
		return
	}
	if sess, err := s.store.Open(id); err == nil {
		s.announce(sess)
	}
}

// isDir reports whether path is a directory now.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
