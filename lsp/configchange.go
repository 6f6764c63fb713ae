package lsp

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"sort"
	"sync"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// configGuard is what ConfigChange needs to know about the settings files:
// what each held on disk when last looked at, which text is in force, and
// which files' latest change a ConfigChange hook blocked. A blocked change
// does not take effect: the text in force stays the one before it, until
// the file changes again and no hook blocks that (docs/parity.md,
// "ConfigChange").
type configGuard struct {
	mu      sync.Mutex
	started bool
	seen    map[string][]byte // each file's text on disk at the last look; absent: no file
	applied map[string][]byte // the text in force; absent: no file
	held    map[string]bool   // files whose change is blocked
}

// codeChangeBlocked marks a settings file whose change a ConfigChange hook blocked.
const codeChangeBlocked = "config-change-blocked"

// settingsOnDisk reads every settings file that exists and that the
// configuration reads: the user's, project's and local settings, the
// managed file, and Claude Code's and VS Code's files when a settings file
// imports them — through the bounded reader (settings.Paths.ReadTexts), so a
// FIFO or /dev/zero planted at one of these paths neither hangs the server
// nor fills its memory.
func (s *Server) settingsOnDisk() map[string][]byte {
	return s.paths.ReadTexts()
}

// settingsInForce is the text of each settings file as it is in force, for
// loading the configuration: what is on disk, except for files whose
// change is blocked (an empty text stands for a file that did not exist).
func (s *Server) settingsInForce() map[string][]byte {
	g := &s.observed.config
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started {
		g.started, g.seen = true, s.settingsOnDisk()
		g.applied, g.held = maps.Clone(g.seen), map[string]bool{}
	}
	texts := maps.Clone(g.applied)
	for p := range g.held {
		if _, ok := texts[p]; !ok {
			texts[p] = []byte{}
		}
	}
	return texts
}

// guardConfigChanges fires ConfigChange, with the hooks in force, for each
// settings file that changed on disk since the last load, and holds back
// the changes a hook blocks (except the managed file's: policy always
// applies). Files that do not count in the configuration in force (Claude
// Code's or VS Code's when not imported) change without it. The caller
// holds reloadMu, so reloads fire in turn.
func (s *Server) guardConfigChanges() {
	g := &s.observed.config
	s.settingsInForce() // starts the guard if need be
	disk := s.settingsOnDisk()
	g.mu.Lock()
	var changed []string
	for p := range mergedKeys(g.seen, disk) {
		if !sameText(g.seen, disk, p) {
			changed = append(changed, p)
		}
	}
	g.seen = disk
	g.mu.Unlock()
	sort.Strings(changed)
	cfg := s.engine.Config()
	for _, p := range changed {
		g.mu.Lock()
		reverted := sameText(g.applied, disk, p)
		if reverted {
			delete(g.held, p)
		}
		g.mu.Unlock()
		if reverted {
			continue
		}
		blocked := false
		if src, ok := settingsSource(cfg, p); ok && counts(cfg, src) {
			path, _ := json.Marshal(p)
			out := s.fireObserved(s.connCtx, event.Input{Event: event.ConfigChange, Source: settings.ConfigSource(src),
				Extra: map[string]json.RawMessage{"file_path": path}})
			blocked = out.Blocked
		}
		g.mu.Lock()
		if blocked {
			g.held[p] = true
			s.log.Info("a ConfigChange hook blocked a settings change; the previous version stays in force", "file", p)
		} else {
			delete(g.held, p)
			if b, ok := disk[p]; ok {
				g.applied[p] = b
			} else {
				delete(g.applied, p)
			}
		}
		g.mu.Unlock()
	}
}

// noteBlockedChanges adds a warning to each settings file whose change is
// blocked, so that the editor shows why an edit has no effect.
func (s *Server) noteBlockedChanges(cfg *settings.Config) {
	g := &s.observed.config
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range cfg.Files {
		f := &cfg.Files[i]
		if g.held[f.Path] {
			f.Diagnostics = append(f.Diagnostics, settings.Diagnostic{File: f.Path, Severity: settings.SeverityWarning, Code: codeChangeBlocked,
				Message: "a ConfigChange hook blocked the latest change of this file: the version before it stays in force " +
					"until the file changes again and no ConfigChange hook blocks that"})
		}
	}
}

// settingsSource is the source of a settings file of cfg.
func settingsSource(cfg *settings.Config, path string) (settings.Source, bool) {
	for _, f := range cfg.Paths.SettingsFiles() {
		if f.Path == path {
			return f.Source, true
		}
	}
	if dir := cfg.Paths.VSCodeHooksDir(); dir != "" && filepath.Dir(path) == dir {
		return settings.SourceVSCode, true
	}
	return 0, false
}

// counts reports whether a file of this source takes part in cfg.
func counts(cfg *settings.Config, src settings.Source) bool {
	switch {
	case src.IsClaude():
		return cfg.ImportClaudeHooks
	case src == settings.SourceVSCode:
		return cfg.ImportVSCodeHooks
	}
	return true
}

func mergedKeys(a, b map[string][]byte) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// sameText reports whether p has the same text in a and b, absence included.
func sameText(a, b map[string][]byte, p string) bool {
	x, inA := a[p]
	y, inB := b[p]
	return inA == inB && bytes.Equal(x, y)
}
