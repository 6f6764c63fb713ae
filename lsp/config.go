package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
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
	if dir := paths.VSCodeHooksDir(); dir != "" {
		if err := w.WatchDir(dir, watcher.KeepExt(".json")); err != nil {
			s.log.Warn("cannot watch", "path", dir, "err", err)
		}
	}
	if err := w.WatchDir(s.store.Dir(), watcher.KeepExt(".json", ".jsonl")); err != nil {
		s.log.Warn("cannot watch sessions", "err", err)
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.watch = w
	s.watchScripts(s.engine.Loaded())
}

// watchScripts watches the workspace files that l's trust covers, so that
// editing one reloads, and asks for trust again. The caller holds reloadMu.
func (s *Server) watchScripts(l *hooks.Loaded) {
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
	if s.connCtx.Err() != nil {
		return
	}
	reload := false
	scripts := s.engine.Loaded().ScriptPaths()
	var watched []string
	for _, p := range paths {
		if s.isSettingsFile(p) || slices.Contains(scripts, p) {
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

// onStale is told by the engine that an event found a trusted workspace
// script changed (its hooks did not run): reload, so the user is asked again.
func (s *Server) onStale() {
	if s.connCtx.Err() != nil {
		return
	}
	s.handlers.Add(1)
	go func() {
		defer s.handlers.Done()
		s.reloadConfig()
	}()
}

// reloadConfig rereads every settings file (with the editor's unsaved text),
// installs the new hooks with their trust, republishes diagnostics and
// tells the editor, and asks for trust if the workspace needs it. The next
// event uses the new hooks.
func (s *Server) reloadConfig() {
	l := s.install()
	s.rediagnose()
	if !l.Trusted {
		s.handlers.Add(1)
		go func() {
			defer s.handlers.Done()
			s.askTrustIfNeeded(s.connCtx)
		}()
	}
}

// install loads the settings, decides trust for exactly what it loaded,
// and installs the two together, so that no event ever sees one without
// the other (docs/security.md, "Workspace trust"). Reloads from the
// watcher, a quick fix and a trust answer take turns: one that started
// later can never be overwritten by one that started earlier.
func (s *Server) install() *hooks.Loaded {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	s.guardConfigChanges()
	l := s.trust.Decide(s.root, s.loadConfig(false), s.opts.TrustWorkspace)
	s.engine.Install(l)
	if err := s.store.SetFormat(session.Format(l.Config.TranscriptFormat)); err != nil {
		s.log.Warn("transcript format", "err", err)
	}
	s.watchScripts(l)
	s.announceHooks(l)
	s.updateWatchList()
	return l
}

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
		s.handlers.Add(1)
		go func() {
			defer s.handlers.Done()
			s.askTrustIfNeeded(s.connCtx)
		}()
		return errors.New("the workspace's hooks, settings or scripts changed before the trust was recorded; review them again")
	}
	return nil
}

// announceHooks sends wave/hooksChanged with the configuration in force, so
// the editor can show it (the status bar's hook count), and asks the editor
// for the "Run hook" code lenses again where it can be asked: a lens names a
// hook by its place in the configuration, which a reload may have moved.
func (s *Server) announceHooks(l *hooks.Loaded) {
	s.notify(notifyHooksChanged, s.hooksState(l))
	if !s.lensRefresh {
		return
	}
	s.handlers.Add(1)
	go func() {
		defer s.handlers.Done()
		ctx, cancel := context.WithTimeout(s.connCtx, 30*time.Second)
		defer cancel()
		if _, err := s.conn.Call(ctx, methodCodeLensRefresh, nil, nil); err != nil {
			s.log.Debug("workspace/codeLens/refresh", "err", err)
		}
	}()
}

// hooksState is wave/hooksChanged's account of l: the settings files that
// exist, how many hooks and problems they hold, and whether the workspace's
// own hooks may run.
func (s *Server) hooksState(l *hooks.Loaded) *HooksChangedParams {
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
