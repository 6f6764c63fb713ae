package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/settings"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// TrustStore remembers which workspaces the user trusted, keyed by the
// workspace root and a hash of everything its files would change (hooks,
// settings, the scripts the hooks run): when any of it changes, the old
// trust no longer applies and the user is asked again.
type TrustStore struct {
	mu   sync.Mutex
	path string
}

// NewTrustStore keeps trust in $WAVE_HOME/trusted-workspaces.json.
func NewTrustStore(waveHome string) *TrustStore {
	return &TrustStore{path: filepath.Join(waveHome, "trusted-workspaces.json")}
}

// Path is the one file the store reads: what a caller that keeps a
// decision must watch (Trust and Revoke, in this process or another,
// replace it by a rename).
func (t *TrustStore) Path() string { return t.path }

// Loaded is a configuration together with the trust decision made for it:
// one immutable value, installed in an Engine as a whole, so that an event
// never runs one configuration's hooks under another's trust. Build it with
// TrustStore.Decide or Resolve.
type Loaded struct {
	// Config is what events run: Full when Trusted, else Full.Untrusted()
	// (the workspace's hooks skipped, its settings not applied).
	Config *settings.Config
	// Full is the configuration as the workspace would have it once
	// trusted: what the trust prompt lists and Hash covers.
	Full *settings.Config
	// Trusted says whether the workspace's own hooks and settings are in effect.
	Trusted bool
	// Hash is WorkspaceHash(Full), what the user trusts.
	Hash string
	// UserTrusted says whether the user chose to trust the workspace as it
	// is now: in the trust store for exactly Hash, or for every workspace
	// (--trust-workspace). Unlike Trusted it is false for a workspace with
	// nothing that needs trust, which nobody trusted: what `wavehooks test`
	// and the editor's Run tests require before a case that uses workspace
	// content runs (trusttests.go).
	UserTrusted bool

	files      []fileState // the workspace files its hooks run, as hashed
	looked     []string    // every path digest looked at for them, those it kept out included
	notCovered []string    // the forms of its hooks that run files the hash cannot cover
	tests      []fileState // the hook test files it covers (trusttests.go)
	testCmds   []string    // the commands of the workspace settings files those tests name
	root       string      // the project root, and with symlinks resolved
	real       string
	stale      atomic.Bool // a check found the files changed
	reported   atomic.Bool // and Stale said so
}

// Resolve pairs a configuration from Load with a trust decision made for it.
func Resolve(full *settings.Config, trusted bool) *Loaded {
	d := digest(full)
	return d.loaded(trusted)
}

// Decide is the one trust rule: the workspace's own hooks and settings in
// full take effect when the user trusts every workspace (always:
// --trust-workspace or trustWorkspaceHooks), when they trusted exactly
// these hooks, settings and scripts, or when the workspace has none.
func (t *TrustStore) Decide(root string, full *settings.Config, always bool) *Loaded {
	d := digest(full)
	chosen := always || t.Trusted(root, d.Hash)
	l := d.loaded(chosen || !d.needsTrust())
	l.UserTrusted = chosen
	return l
}

func (d *Loaded) loaded(trusted bool) *Loaded {
	l := &Loaded{Config: d.Full, Full: d.Full, Trusted: trusted, Hash: d.Hash, files: d.files, looked: d.looked,
		notCovered: d.notCovered, tests: d.tests, testCmds: d.testCmds, root: d.root, real: d.real, UserTrusted: d.UserTrusted}
	if !trusted {
		l.Config = d.Full.Untrusted()
	}
	return l
}

// WithConfig is the same decision with cfg in force instead of Config (the
// ACP proxy leaves out hooks its agent runs itself); Full and the trust are
// unchanged.
func (l *Loaded) WithConfig(cfg *settings.Config) *Loaded {
	c := l.loaded(l.Trusted)
	c.Config = cfg
	return c
}

// NeedsTrust reports whether the workspace has anything that waits for
// trust: hooks that would run, or settings that would take effect.
func (l *Loaded) NeedsTrust() bool { return l.needsTrust() }

func (l *Loaded) needsTrust() bool {
	return len(WorkspaceCommands(l.Full)) > 0 || len(WorkspaceSettings(l.Full)) > 0
}

// Scripts lists the workspace files the workspace's hooks run, relative to
// the project root, whose contents the trust covers: those it hashed, and
// those that do not exist yet (creating one asks again), but not a file it
// only might run (a module's possible places) while that is absent.
func (l *Loaded) Scripts() []string {
	var out []string
	for _, f := range l.files {
		if f.covered() && !(f.maybe && f.State == stateAbsent) {
			out = append(out, f.Rel)
		}
	}
	return out
}

// NotCovered lists, one per line for the trust prompt, what the
// workspace's hooks run that the trust does not cover: a file they run
// whose contents are not hashed (a symlink out of the project, a FIFO, an
// unreadable file) and the forms that load files found only at run time
// (docs/hooks.md, "Workspace trust: what it covers").
func (l *Loaded) NotCovered() []string {
	var out []string
	for _, f := range l.files {
		if !f.covered() {
			out = append(out, f.Rel+": "+f.State+"; its contents are not covered")
		}
	}
	return append(out, l.notCovered...)
}

// ScriptPaths lists the same files as absolute paths, for a caller that
// watches them.
func (l *Loaded) ScriptPaths() []string {
	var out []string
	for _, f := range l.files {
		out = append(out, f.Path)
	}
	return out
}

// Check reports whether the workspace's hooks may run now: they are
// trusted, and every workspace file they run is still what was trusted.
// If not, it says why. Files whose size, times and identity are unchanged
// are not read again.
func (l *Loaded) Check() (bool, string) {
	if !l.Trusted {
		return false, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor"
	}
	for i := range l.files {
		prev := &l.files[i]
		now, ok := workspaceFile(prev.Path, l.root, l.real, prev)
		if !ok || now.State != prev.State {
			l.stale.Store(true)
			return false, fmt.Sprintf("%s changed since the workspace was trusted; it must be trusted again", prev.Rel)
		}
	}
	return true, ""
}

// Inputs lists the paths the decision depends on besides the settings
// (settings.Config.Inputs) and the trust store (TrustStore.Path): the
// project root, whose real path tells which files are in the project, and
// every path its hooks run that the hash looked at, those it left out as
// no workspace file included (one could become one). A caller that finds
// their stamps unchanged knows Decide would hash the same (host's
// ReloadIfChanged); the files the hooks run are also checked again at
// every event (Check).
func (l *Loaded) Inputs() []string {
	if l.root == "" {
		return l.looked
	}
	return append([]string{l.root}, l.looked...)
}

// Changed reports whether a Check found a trusted file changed, without
// taking the report that Stale gives once.
func (l *Loaded) Changed() bool { return l.stale.Load() }

// Stale reports whether a Check found a trusted file changed, the first
// time it is called after that, so the caller reloads once.
func (l *Loaded) Stale() bool { return l.stale.Load() && !l.reported.Swap(true) }

// digest computes the hash of a full configuration and the files it covers.
func digest(full *settings.Config) *Loaded {
	root := full.Paths.ProjectRoot
	d := &Loaded{Full: full, root: root, real: root}
	if root != "" {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			d.real = r
		}
	}
	d.files, d.looked, d.notCovered = trustedFiles(full, root, d.real)
	var testLooked []string
	d.tests, d.testCmds, testLooked = workspaceTests(root, d.real)
	d.looked = append(d.looked, testLooked...)
	on, off := allOn(full)
	sum := sha256.Sum256(encodeTests(encodeTrust(on, d.files), d.tests))
	d.Hash = hex.EncodeToString(sum[:]) + off
	return d
}

// offMark begins the second part of a trust hash: the positions, among the
// workspace's hooks in configuration order, of those that are off
// ("enabled": false). The first part hashes the workspace as if every hook
// were on. So a hash says exactly which hooks are off, and trust given to
// one holds for the same workspace with more hooks off (trustedWithMoreOff):
// turning a hook off never needs trust, turning one on always does.
const offMark = "/off:"

// allOn is cfg with every workspace hook on, and the offMark suffix that
// lists the ones that are off ("" when none is).
func allOn(cfg *settings.Config) (*settings.Config, string) {
	var off []string
	n := 0
	for i := range cfg.Hooks {
		if !cfg.Hooks[i].Source.FromWorkspace() {
			continue
		}
		if cfg.Hooks[i].Disabled {
			off = append(off, strconv.Itoa(n))
		}
		n++
	}
	if len(off) == 0 {
		return cfg, ""
	}
	on := *cfg
	on.Hooks = slices.Clone(cfg.Hooks)
	for i := range on.Hooks {
		on.Hooks[i].Disabled = false
	}
	return &on, offMark + strings.Join(off, ",")
}

// trustedWithMoreOff reports whether hash describes the workspace that was
// trusted as stored, with the same hooks or more of them off.
func trustedWithMoreOff(stored, hash string) bool {
	sBase, sOff, _ := strings.Cut(stored, offMark)
	hBase, hOff, _ := strings.Cut(hash, offMark)
	if sBase == "" || sBase != hBase {
		return false
	}
	now := strings.Split(hOff, ",")
	for _, i := range strings.Split(sOff, ",") {
		if i != "" && !slices.Contains(now, i) {
			return false // a hook that was off when trusted is on now
		}
	}
	return true
}

// trustedFiles fingerprints the workspace files that the workspace's hooks
// run, each once, in a stable order, and lists the forms of those hooks
// that run files the trust cannot cover; looked are all the paths it
// looked at, those that are no workspace file included.
func trustedFiles(full *settings.Config, root, realRoot string) (files []fileState, looked, notCovered []string) {
	if root == "" {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	noted := map[string]bool{}
	for i := range full.Hooks {
		h := &full.Hooks[i]
		if !h.Source.FromWorkspace() {
			continue
		}
		run := filesRun(h, root)
		for _, n := range run.notCovered {
			if !noted[n] {
				noted[n] = true
				notCovered = append(notCovered, n)
			}
		}
		for i, p := range append(run.paths, run.maybe...) {
			if seen[p] {
				continue
			}
			seen[p] = true
			looked = append(looked, p)
			if f, ok := workspaceFile(p, root, realRoot, nil); ok {
				f.maybe = i >= len(run.paths)
				files = append(files, f)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, looked, notCovered
}

// WorkspaceHash hashes everything the workspace's own files would change
// once trusted, in one canonical encoding (encodeTrust, trustencode.go):
// every field of every hook, every setting of each of its settings files
// that counts, and the contents of the workspace files those hooks run
// (docs/hooks.md lists which). Trust given under an earlier encoding never
// matches it: the user is asked again, once.
func WorkspaceHash(cfg *settings.Config) string { return digest(cfg).Hash }

// WorkspaceCommands lists the distinct commands the workspace would run, for
// the trust prompt, with their directory and environment; hooks that a
// policy ignores (disableAllHooks, allowManagedHooksOnly) are left out.
func WorkspaceCommands(cfg *settings.Config) []string {
	seen := map[string]bool{}
	var out []string
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if ok, _ := cfg.Active(h); !ok || !h.Source.FromWorkspace() {
			continue
		}
		if d := h.Describe(); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// workspaceSetting is one setting a workspace file sets that takes effect once trusted.
type workspaceSetting struct {
	source     settings.Source
	file       string
	key, value string
	effect     string
}

// workspaceSettings lists the settings of the workspace's own files that
// would change something once the workspace is trusted: disableAllHooks,
// importClaudeHooks and importVSCodeHooks set to true, and transcriptFormat
// (false never changes anything: each of these is true if any file says
// so). Claude Code's project files count when importClaudeHooks is on;
// VS Code's hook files have no settings of ours, and allowManagedHooksOnly
// only counts in the managed file.
func workspaceSettings(cfg *settings.Config) []workspaceSetting {
	var out []workspaceSetting
	for _, f := range cfg.Files {
		if !settingsCount(cfg, &f) {
			continue
		}
		add := func(key, value, effect string) {
			out = append(out, workspaceSetting{source: f.Source, file: f.Path, key: key, value: value, effect: effect})
		}
		s := f.Settings
		if b := s.DisableAllHooks; b != nil && *b {
			add("disableAllHooks", "true", "turns off every hook but the managed ones, your own user hooks included")
		}
		if s.AllowedHTTPHookURLs != nil {
			add("allowedHttpHookUrls", fmt.Sprintf("%q", s.AllowedHTTPHookURLs), "changes where http hooks may post")
		}
		if s.HTTPHookAllowedEnvVars != nil {
			add("httpHookAllowedEnvVars", fmt.Sprintf("%q", s.HTTPHookAllowedEnvVars), "changes which environment variables http hooks may send")
		}
		if !f.Source.IsWave() {
			continue
		}
		if b := s.ImportClaudeHooks; b != nil && *b {
			add("importClaudeHooks", "true", "also runs the hooks of Claude Code's settings files, ~/.claude/settings.json included")
		}
		if b := s.ImportVSCodeHooks; b != nil && *b {
			add("importVSCodeHooks", "true", "also runs the hooks of the workspace's .github/hooks/*.json")
		}
		if len(s.ImportAgentHooks) > 0 {
			names := make([]string, len(s.ImportAgentHooks))
			for i, a := range s.ImportAgentHooks {
				names[i] = string(a)
			}
			add("importAgentHooks", fmt.Sprintf("%q", names), "also runs the hooks of those agents' own hook files, the user's included")
		}
		if s.TranscriptFormat != "" {
			add("transcriptFormat", s.TranscriptFormat, "changes how session transcripts are written")
		}
	}
	return out
}

// WorkspaceSettings describes, one per line, the settings of the
// workspace's own files that take effect only once the workspace is
// trusted, with the file that sets each and what it does, for the trust
// prompt.
func WorkspaceSettings(cfg *settings.Config) []string {
	var out []string
	for _, s := range workspaceSettings(cfg) {
		file := s.file
		if rel, err := filepath.Rel(cfg.Paths.ProjectRoot, s.file); err == nil && cfg.Paths.ProjectRoot != "" {
			file = rel
		}
		out = append(out, fmt.Sprintf(`"%s": %s in %s (%s)`, s.key, s.value, file, s.effect))
	}
	return out
}

// Trusted reports whether root was trusted with this hash, or with one that
// differs from it only by hooks that are off now and were on then
// (trustedWithMoreOff): a hook turned off never runs, so turning it off
// needs no new trust.
func (t *TrustStore) Trusted(root, hash string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, _ := t.read()
	stored, ok := m[root]
	return ok && (stored == hash || trustedWithMoreOff(stored, hash))
}

// Trust records that the user trusts root's hooks as they are now.
func (t *TrustStore) Trust(root, hash string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.read()
	if err != nil {
		return err
	}
	m[root] = hash
	return t.write(m)
}

// Revoke forgets the trust given to root, so that its hooks and settings
// wait for trust again (`wavehooks trust --revoke`). It reports whether
// there was any to forget.
func (t *TrustStore) Revoke(root string) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, err := t.read()
	if err != nil {
		return false, err
	}
	if _, ok := m[root]; !ok {
		return false, nil
	}
	delete(m, root)
	return true, t.write(m)
}

// write replaces the store with m, atomically. The caller holds mu.
func (t *TrustStore) write(m map[string]string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".trusted-workspaces-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), t.path)
}

func (t *TrustStore) read() (map[string]string, error) {
	m := map[string]string{}
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]string{}, nil // a broken store trusts nothing
	}
	return m, nil
}
