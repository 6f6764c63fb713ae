package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// workspace is one project root's hooks and sessions: the engine with the
// settings of that root, its trust, and the session store. Sessions of an
// editor that opens several roots through one proxy each use their own
// root's hooks, as `wavehooks serve` does per workspace.
//
// The setup mirrors lsp's initialize (lsp/handle_lifecycle.go) in a few
// lines; it is repeated here rather than shared because lsp is the LSP
// adapter and this package must not depend on it.
type workspace struct {
	root   string
	paths  hooks.Paths
	engine *hooks.Engine
	// store is nil when the sessions directory cannot be made (storeErr
	// says why): the workspace's sessions then live in memory.
	store    *session.Store
	storeErr error
	trust    *hooks.TrustStore
	always   bool // --trust-workspace

	mu sync.Mutex
	// skipClaude drops the hooks of Claude Code's settings files: the agent
	// runs them itself (see nativeClaudeHooks).
	skipClaude bool
}

func newWorkspace(o *Options, root string, skipClaude bool, onAsync func(hooks.Input, hooks.Result)) *workspace {
	w := &workspace{root: root, trust: hooks.NewTrustStore(o.WaveHome), always: o.TrustWorkspace, skipClaude: skipClaude,
		paths: hooks.Paths{WaveHome: o.WaveHome, ProjectRoot: root, ClaudeHome: o.ClaudeHome, ManagedFile: o.ManagedFile}}
	cfg := hooks.Load(w.paths, nil)
	w.engine = hooks.NewEngine(cfg)
	w.engine.OnAsyncDone(onAsync)
	w.apply(cfg)
	store, err := session.NewStore(session.Options{WaveHome: o.WaveHome, ProjectRoot: root,
		Format: session.Format(cfg.TranscriptFormat), Firer: w.engine})
	if err != nil {
		// The hooks must run all the same: sessions are kept in memory
		// (openSession), and each one's editor is told.
		w.storeErr = fmt.Errorf("sessions of %s: %w", root, err)
		return w
	}
	w.store = store
	return w
}

// openSession opens or creates the file of a session; when it cannot (no
// store, a read-only directory, a full disk) it returns a session in memory
// and the reason, which the editor is told.
func (w *workspace) openSession(id string) (sess *session.Session, inMemory error) {
	if w.store == nil {
		return session.ScratchWithID(id, w.root, w.engine), w.storeErr
	}
	sess, _, err := w.store.OpenOrCreate(id)
	if err != nil {
		return session.ScratchWithID(id, w.root, w.engine), err
	}
	return sess, nil
}

// reload reads the settings files again; the proxy calls it at every
// prompt, so a change of the settings applies from the next prompt on.
func (w *workspace) reload() *hooks.Config {
	cfg := hooks.Load(w.paths, nil)
	w.apply(cfg)
	if w.store == nil {
		return cfg
	}
	if err := w.store.SetFormat(session.Format(cfg.TranscriptFormat)); err != nil {
		_ = err // the config's own diagnostics already name a bad transcriptFormat
	}
	return cfg
}

// apply swaps the engine's hooks and trust. Trust is judged on every hook
// the workspace's files define, so trust given in `wavehooks serve` holds here.
func (w *workspace) apply(cfg *hooks.Config) {
	loaded := *w.trust.Decide(w.root, cfg, w.always) // config and trust, decided together
	w.mu.Lock()
	skip := w.skipClaude
	w.mu.Unlock()
	loaded.Config = withoutClaudeHooks(loaded.Config, skip)
	w.engine.Install(&loaded)
}

// setSkipClaude says whether the agent runs Claude Code's hooks itself.
func (w *workspace) setSkipClaude(skip bool) {
	w.mu.Lock()
	changed := w.skipClaude != skip
	w.skipClaude = skip
	w.mu.Unlock()
	if changed {
		w.reload()
	}
}

// withoutClaudeHooks is cfg without the hooks of Claude Code's settings
// files when skip is set; cfg itself is never changed.
func withoutClaudeHooks(cfg *hooks.Config, skip bool) *hooks.Config {
	if !skip || !cfg.ImportClaudeHooks {
		return cfg
	}
	c := *cfg
	c.Hooks = make([]hooks.Hook, 0, len(cfg.Hooks))
	for _, h := range cfg.Hooks {
		if !h.Source.IsClaude() {
			c.Hooks = append(c.Hooks, h)
		}
	}
	return &c
}

// nativeClaudeHooks reports whether an agent, named by its initialize
// response's agentInfo.name, is Claude Code's ACP adapter, which runs the
// hooks of Claude Code's settings files itself (it loads the user, project
// and local settings): running the imported copies too would run them twice.
func nativeClaudeHooks(agentName string) bool {
	n := strings.ToLower(agentName)
	return strings.Contains(n, "claude-agent-acp") || strings.Contains(n, "claude-code-acp")
}

// matchingPreToolHooks reports whether any PreToolUse hook that would run
// matches the tool name: only then is a tool that ran without asking worth
// recording as not checked.
func (w *workspace) matchingPreToolHooks(tool string) bool {
	cfg := w.engine.Config()
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != hooks.PreToolUse || !h.Matcher.Match(tool) {
			continue
		}
		if ok, _ := cfg.Active(h); ok {
			return true
		}
	}
	return false
}

func (w *workspace) close() error {
	w.engine.Close()
	if w.store == nil {
		return nil
	}
	return w.store.Close()
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
