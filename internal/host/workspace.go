package host

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
	"github.com/wavehooks/wavehooks/session"
)

// Options are what one adapter adds to the opening of a workspace. The zero
// value is the safe host: a trust decision on every load, a reload when a
// trusted script changed, no delegation, async runs recorded.
type Options struct {
	// WaveHome overrides the host's (the LSP client's
	// initializationOptions.waveHome); "" keeps it.
	WaveHome string
	// TrustWorkspace trusts the workspace's own hooks without asking, on
	// top of the host's --trust-workspace.
	TrustWorkspace bool
	// NoStore opens no session store (`wavehooks run` keeps no session).
	NoStore bool
	// Texts is the text of the settings files as they are in force (the
	// LSP server's ConfigChange guard holds a blocked change out); nil
	// reads the files.
	Texts func() map[string][]byte
	// Filter changes what was loaded before it is installed (the ACP proxy
	// leaves out Claude Code's hooks when the agent runs them itself); it
	// must not change cfg itself.
	Filter func(cfg *settings.Config) *settings.Config
	// Delegate evaluates prompt, agent and mcp_tool hooks through the
	// host's agent (wave/evaluateHook); nil skips them with
	// hooks.NeedsAgentHost.
	Delegate hooks.Delegate
	// OnStale is told that an event found a trusted workspace script
	// changed (its hooks did not run). nil reloads at once, so that the
	// changed script is judged by a new trust decision; an adapter that
	// can ask the user again reloads and asks instead.
	OnStale func()
	// AsyncNote is added to the run-history record of an async hook
	// ("async" in the ACP proxy's log).
	AsyncNote string
	// OnAsyncRun is told about every async hook after its run was
	// recorded (the editor is told, an asyncRewake hook wakes its session).
	OnAsyncRun func(in event.Input, res hooks.Result, run hooks.EventRun)
}

// Workspace is one project root's hooks and sessions: the engine with the
// settings of that root and their trust, and the session store.
type Workspace struct {
	Root   string
	Paths  settings.Paths
	Engine *hooks.Engine
	Trust  *trust.TrustStore
	// Store is nil when the sessions directory cannot be made (StoreErr
	// says why) or with NoStore: sessions then live in memory.
	Store    *session.Store
	StoreErr error

	host   *Host
	opts   Options
	always bool
	mu     sync.Mutex // one reload (load, decide trust, install) at a time
	// stamps are the inputs of the last load as ReloadIfChanged took them;
	// nil when the next one must load (after Reload, or racy stamps).
	stamps *inputStamps
	margin time.Duration // racyMargin; tests shorten it
	grain  time.Duration // tests play a file system of coarse times
	loads  atomic.Int64  // full loads (settings read, trust decided)
}

// Open opens the workspace at root: it loads the settings, decides trust
// for exactly what it loaded, builds the engine with both installed
// together, and opens the session store. A store that cannot be opened is
// not fatal here (StoreErr): the hooks must run all the same; an adapter
// that cannot work without it (serve, demo) refuses.
func (h *Host) Open(root string, o Options) *Workspace {
	c := h.cfg
	if o.WaveHome != "" {
		c.WaveHome = o.WaveHome
	}
	w := &Workspace{Root: root, Paths: c.Paths(root), Trust: trust.NewTrustStore(c.WaveHome),
		host: h, opts: o, always: c.TrustWorkspace || o.TrustWorkspace, margin: racyMargin}
	full := w.load()
	w.Engine = hooks.NewEngine(full)
	loaded := w.decide(full)
	w.Engine.Install(loaded)
	w.Engine.OnAsyncDone(w.asyncDone)
	if o.Delegate != nil {
		w.Engine.SetDelegate(o.Delegate)
	}
	w.Engine.OnStale(w.stale)
	if o.NoStore {
		return w
	}
	store, err := session.NewStore(session.Options{WaveHome: c.WaveHome, ProjectRoot: root,
		Format: session.Format(loaded.Config.TranscriptFormat), Firer: w.Engine, SaveBeforeHooks: c.SaveBeforeHooks})
	if err != nil {
		w.StoreErr = fmt.Errorf("sessions of %s: %w", root, err)
		return w
	}
	w.Store = store
	return w
}

// load reads every settings file (or the text in force).
func (w *Workspace) load() *settings.Config {
	w.loads.Add(1)
	var texts map[string][]byte
	if w.opts.Texts != nil {
		texts = w.opts.Texts()
	}
	return settings.Load(w.Paths, texts)
}

// decide is the trust decision for exactly full, filtered as the adapter
// asks: config and trust are decided together (docs/security.md,
// "Workspace trust").
func (w *Workspace) decide(full *settings.Config) *trust.Loaded {
	l := w.Trust.Decide(w.Root, full, w.always)
	if w.opts.Filter != nil {
		l = l.WithConfig(w.opts.Filter(l.Config))
	}
	return l
}

// Loaded is the configuration in force with its trust decision.
func (w *Workspace) Loaded() *trust.Loaded { return w.Engine.Loaded() }

// AlwaysTrusted reports whether the workspace's own hooks run without the
// user's trust (--trust-workspace, or the editor's trustWorkspaceHooks):
// what a run of other settings for the same workspace (the editor's hook
// tests) must decide trust with, so that it runs what the events run.
func (w *Workspace) AlwaysTrusted() bool { return w.always }

// Reload reads the settings again, decides trust for exactly what it read
// and installs the two together; the next event uses them. Reloads take
// turns: one that started later is never overwritten by an earlier one.
func (w *Workspace) Reload() *trust.Loaded {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stamps = nil
	_, l := w.reload()
	return l
}

// ReloadIfChanged is Reload for a caller that reloads in case something
// changed (the ACP proxy, at every prompt): when every input of the last
// load it made — each settings file, whether or not it exists, VS Code's
// hooks directory when imported, the files its checks looked at, the trust
// store, the project root and every file the workspace's hooks run — stats
// as it did then (existence, device, inode, size, modification and change
// times, mode, through lstat and stat), the configuration and trust
// decision installed are kept, unread. Anything in doubt reloads: texts
// from the editor (Options.Texts), a path that cannot be stamped, a stamp
// taken less than a second after its file changed (racyMargin), a decision
// installed by someone else, one whose trusted files a check found changed.
func (w *Workspace) ReloadIfChanged() *trust.Loaded {
	w.mu.Lock()
	defer w.mu.Unlock()
	cur := w.Engine.Loaded()
	if s := w.stamps; s != nil && s.loaded == cur && !cur.Changed() && s.unchanged() {
		return cur
	}
	w.stamps = nil
	start := time.Now()
	full, l := w.reload()
	if w.opts.Texts == nil {
		w.stamps = takeStamps(start, w.margin, w.grain, full, l, w.Trust.Path())
	}
	return l
}

// reload loads, decides and installs; the caller holds mu.
func (w *Workspace) reload() (*settings.Config, *trust.Loaded) {
	full := w.load()
	l := w.decide(full)
	w.Engine.Install(l)
	if w.Store != nil {
		if err := w.Store.SetFormat(session.Format(l.Config.TranscriptFormat)); err != nil {
			w.host.log.Warn("transcript format", "err", err) // the config's diagnostics name it too
		}
	}
	return full, l
}

// Loads counts the workspace's full loads (settings read and parsed, trust
// decided), the opening's included: how a test, or a profile, tells a
// reload that read from one ReloadIfChanged skipped.
func (w *Workspace) Loads() int64 { return w.loads.Load() }

// stale is the engine's OnStale: the adapter's, or a reload.
func (w *Workspace) stale() {
	if w.opts.OnStale != nil {
		w.opts.OnStale()
		return
	}
	w.Reload() // the event has already refused the hooks; the next one sees the new decision
}

// asyncDone records an async hook's run in the host's history, then tells
// the adapter.
func (w *Workspace) asyncDone(in event.Input, res hooks.Result) {
	run, ok := w.host.Record(in.SessionID, in.MatchValue(), &res, w.opts.AsyncNote)
	if ok && w.opts.OnAsyncRun != nil {
		w.opts.OnAsyncRun(in, res, run)
	}
}

// OpenSession opens or creates the file of a session; when it cannot (no
// store, a read-only directory, a full disk) it returns a session in memory
// and the reason: a session whose state cannot be kept still runs every hook.
func (w *Workspace) OpenSession(id string) (sess *session.Session, inMemory error) {
	if w.Store == nil {
		return session.ScratchWithID(id, w.Root, w.Engine), w.StoreErr
	}
	sess, _, err := w.Store.OpenOrCreate(id)
	if err != nil {
		return session.ScratchWithID(id, w.Root, w.Engine), err
	}
	return sess, nil
}

// Close kills the async hooks still running and closes the store.
func (w *Workspace) Close() error {
	w.Engine.Close()
	if w.Store == nil {
		return nil
	}
	return w.Store.Close()
}
