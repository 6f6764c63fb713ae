package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
	"github.com/wavehooks/wavehooks/watcher"
)

// startWatching watches every settings file and the sessions directory.
// Settings changes reload the hooks; session files changed by another
// process are reloaded and announced.
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
	s.watch = w
}

func (s *Server) onFilesChanged(paths []string) {
	if s.connCtx.Err() != nil {
		return
	}
	settings := false
	for _, p := range paths {
		if s.isSettingsFile(p) {
			settings = true
			continue
		}
		if filepath.Dir(p) == s.store.Dir() {
			s.onSessionFileChanged(p)
		}
	}
	if settings {
		s.reloadConfig()
	}
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

// reloadConfig rereads every settings file (with the editor's unsaved text),
// swaps the engine's hooks, rechecks trust, republishes diagnostics and
// tells the editor. The next event uses the new hooks.
func (s *Server) reloadConfig() {
	cfg := s.loadConfig(false)
	s.engine.SetConfig(cfg)
	if err := s.store.SetFormat(session.Format(cfg.TranscriptFormat)); err != nil {
		s.log.Warn("transcript format", "err", err)
	}
	trusted := s.trust.WorkspaceTrusted(s.root, cfg, s.opts.TrustWorkspace)
	s.engine.SetWorkspaceTrusted(trusted)
	s.rediagnose()
	s.announceHooks(cfg)
	if !trusted {
		s.handlers.Add(1)
		go func() {
			defer s.handlers.Done()
			s.askTrustIfNeeded(s.connCtx)
		}()
	}
}

// Titles of the trust prompt's answers.
const (
	titleTrust  = "Trust"
	titleNotNow = "Not now"
)

// askTrustIfNeeded asks the user, once per set of workspace hook commands,
// whether the repository's own hooks may run.
func (s *Server) askTrustIfNeeded(ctx context.Context) {
	if !s.trustPrompt.TryLock() {
		return // a prompt is already up
	}
	defer s.trustPrompt.Unlock()
	cfg := s.engine.Config()
	cmds := hooks.WorkspaceCommands(cfg)
	if len(cmds) == 0 || s.engine.WorkspaceTrusted() {
		return
	}
	msg := fmt.Sprintf("This workspace (%s) defines hooks that run shell commands on your machine:\n%s\nTrust them?",
		s.root, "  "+strings.Join(cmds, "\n  "))
	var item *protocol.MessageActionItem
	_, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: msg,
		Actions: []protocol.MessageActionItem{{Title: titleTrust}, {Title: titleNotNow}}}, &item)
	if err != nil || item == nil || item.Title != titleTrust {
		return
	}
	if err := s.trustWorkspace(cfg); err != nil {
		s.log.Warn("cannot record trust", "err", err)
	}
}

// trustWorkspace records trust for the workspace's hooks as they are in cfg.
func (s *Server) trustWorkspace(cfg *hooks.Config) error {
	if err := s.trust.Trust(s.root, hooks.WorkspaceHash(cfg)); err != nil {
		return err
	}
	// Trust only applies if the hooks did not change while the user decided.
	s.engine.SetWorkspaceTrusted(hooks.WorkspaceHash(s.engine.Config()) == hooks.WorkspaceHash(cfg))
	s.announceHooks(s.engine.Config())
	return nil
}

// announceHooks sends wave/hooksChanged with the configuration in force, so
// the editor can show it (the status bar's hook count), and asks the editor
// for the "Run hook" code lenses again where it can be asked: a lens names a
// hook by its place in the configuration, which a reload may have moved.
func (s *Server) announceHooks(cfg *hooks.Config) {
	s.notify(notifyHooksChanged, s.hooksState(cfg))
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

// hooksState is wave/hooksChanged's account of cfg: the settings files that
// exist, how many hooks and problems they hold, and whether the workspace's
// own hooks may run.
func (s *Server) hooksState(cfg *hooks.Config) *HooksChangedParams {
	files := []string{}
	for _, f := range cfg.Files {
		if f.Exists {
			files = append(files, f.Path)
		}
	}
	return &HooksChangedParams{Files: files, Hooks: len(cfg.Hooks), Diagnostics: len(cfg.Diagnostics()),
		Trusted: s.engine.WorkspaceTrusted()}
}
