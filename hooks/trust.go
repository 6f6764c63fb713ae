package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// TrustStore remembers which workspaces' hooks the user trusted, keyed by the
// workspace root and a hash of its hook commands: when the commands change,
// the old trust no longer applies and the user is asked again.
type TrustStore struct {
	mu   sync.Mutex
	path string
}

// NewTrustStore keeps trust in $WAVE_HOME/trusted-workspaces.json.
func NewTrustStore(waveHome string) *TrustStore {
	return &TrustStore{path: filepath.Join(waveHome, "trusted-workspaces.json")}
}

// WorkspaceHash hashes the workspace-sourced hooks of cfg (event, matcher,
// command, and the options that change what runs: arguments, directory,
// environment, background), so any change to what would run changes the hash.
func WorkspaceHash(cfg *Config) string {
	var lines []string
	for _, h := range cfg.Hooks {
		if h.Source.FromWorkspace() {
			line := string(h.Event) + "\x00" + h.Matcher.String() + "\x00" + h.Command
			if h.Args != nil || h.Cwd != "" || len(h.Env) > 0 || h.Async {
				line += "\x00" + h.runKey() // only then, so that trust given before options existed still holds
			}
			lines = append(lines, line)
		}
	}
	sort.Strings(lines)
	sum := sha256.New()
	for _, l := range lines {
		sum.Write([]byte(l))
		sum.Write([]byte{'\n'})
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// WorkspaceCommands lists the distinct commands the workspace would run, for
// the trust prompt, with their directory and environment; hooks that a
// policy ignores (disableAllHooks, allowManagedHooksOnly) are left out.
func WorkspaceCommands(cfg *Config) []string {
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

// WorkspaceTrusted is the one trust rule: root's own hooks in cfg may run
// when the user trusts every workspace (always: --trust-workspace or
// trustWorkspaceHooks), when they trusted exactly these hooks, or when the
// workspace has none.
func (t *TrustStore) WorkspaceTrusted(root string, cfg *Config, always bool) bool {
	return always || len(WorkspaceCommands(cfg)) == 0 || t.Trusted(root, WorkspaceHash(cfg))
}

// Trusted reports whether root was trusted with exactly these hooks.
func (t *TrustStore) Trusted(root, hash string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, _ := t.read()
	return m[root] == hash
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
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, t.path)
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
