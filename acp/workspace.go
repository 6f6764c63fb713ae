package acp

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// workspace is one project root's hooks and sessions, opened by the host
// (internal/host) as every host opens one: the engine with the settings of
// that root, its trust, and the session store. Sessions of an editor that
// opens several roots through one proxy each use their own root's hooks,
// as `wavehooks serve` does per workspace. What the proxy adds is
// skipClaude.
type workspace struct {
	*host.Workspace

	mu sync.Mutex
	// skipClaude drops the hooks of Claude Code's settings files: the agent
	// runs them itself (agents.RunsClaudeHooks).
	skipClaude bool
	// trustOffered: the proxy asked the user to trust the project (trust.go).
	trustOffered bool
	// driftReported: the proxy told the editor of the drift it loaded (drift.go).
	driftReported bool
}

func newWorkspace(h *host.Host, root string, skipClaude bool, onAsync func(event.Input, hooks.Result, hooks.EventRun)) *workspace {
	w := &workspace{skipClaude: skipClaude}
	w.Workspace = h.Open(root, host.Options{AsyncNote: "async", OnAsyncRun: onAsync,
		Filter: func(cfg *hooksettings.Config) *hooksettings.Config {
			w.mu.Lock()
			skip := w.skipClaude
			w.mu.Unlock()
			return withoutClaudeHooks(cfg, skip)
		}})
	return w
}

// reload reads the settings files again, when any input of the last load
// changed (host.Workspace.ReloadIfChanged): the proxy calls it at every
// prompt, so a change of the settings or of the trust applies from the
// next prompt on, and an unchanged workspace costs a few stats.
func (w *workspace) reload() *hooksettings.Config { return w.ReloadIfChanged().Config }

// setSkipClaude says whether the agent runs Claude Code's hooks itself.
func (w *workspace) setSkipClaude(skip bool) {
	w.mu.Lock()
	changed := w.skipClaude != skip
	w.skipClaude = skip
	w.mu.Unlock()
	if changed {
		w.Reload() // skipClaude is an input of the configuration no stamp covers
	}
}

// withoutClaudeHooks is cfg without the hooks of Claude Code's settings
// files when skip is set; cfg itself is never changed.
func withoutClaudeHooks(cfg *hooksettings.Config, skip bool) *hooksettings.Config {
	if !skip || !cfg.ImportClaudeHooks {
		return cfg
	}
	c := *cfg
	c.Hooks = make([]hooksettings.Hook, 0, len(cfg.Hooks))
	for _, h := range cfg.Hooks {
		if !h.Source.IsClaude() {
			c.Hooks = append(c.Hooks, h)
		}
	}
	return &c
}

// matchingPreToolHooks reports whether any PreToolUse hook that would run
// matches the tool name: only then is a tool that ran without asking worth
// recording as not checked.
func (w *workspace) matchingPreToolHooks(tool string) bool {
	cfg := w.Engine.Config()
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != event.PreToolUse || !h.Matcher.Match(tool) {
			continue
		}
		if ok, _ := cfg.Active(h); ok {
			return true
		}
	}
	return false
}

// projectDir checks a directory an editor names (session/new's cwd) before
// it becomes a project root: nothing a client sends becomes a path unchecked.
func projectDir(dir string) (string, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return "", false
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return "", false
	}
	return dir, true
}
