// Package agentexport writes the user's wavehooks hooks into another
// agent's own hook file (`wavehooks hooks export --to claude|codex|gemini|cursor`,
// issue #40 item 2), so that one setup runs in every agent, and tells when
// such a file has drifted from its source (`wavehooks lint`). The file's
// other content and comments stay as they are: the edit is a JSON patch of
// the "hooks" key only (hujson, JSONC). Every exported hook's command ends
// in Marker, by which a later export finds and replaces its own entries and
// leaves the user's alone; what was written is recorded, as a hash, in
// $WAVE_HOME/exports.json.
//
// A hook written for wavehooks reads Claude Code's stdin and answers in its
// shape. Claude Code and Codex speak that shape (Codex's file tools aside:
// docs/parity.md), so their exported command is the hook's own. Gemini CLI
// and Cursor do not: their exported command is the shim, `wavehooks hooks
// shim --agent A --event E -- COMMAND`, which translates the agent's stdin
// into Claude Code's, runs the hook, and translates its answer back
// (agentfmt).
package agentexport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Marker ends the command of every exported hook: a shell comment, so that
// the command runs as it is, by which an export tells its own entries.
const Marker = " #wavehooks:export"

// Targets are the agents hooks can be exported to.
var Targets = []string{"claude", "codex", "gemini", "cursor"}

// Target is where an export goes: the agent and its user hook file.
type Target struct {
	To   string
	Path string
}

// TargetFor is the user hook file of an agent: ~/.claude/settings.json,
// ~/.codex/hooks.json, ~/.gemini/settings.json or ~/.cursor/hooks.json (as
// the paths say where those homes are).
func TargetFor(to string, p settings.Paths) (Target, error) {
	switch to {
	case "claude":
		if p.ClaudeHome == "" {
			return Target{}, errors.New("no Claude Code home directory")
		}
		return Target{to, filepath.Join(p.ClaudeHome, "settings.json")}, nil
	case "codex", "gemini", "cursor":
		a := agentfmt.Agent(to)
		for _, sf := range p.AgentFiles(a) {
			if !sf.Source.FromWorkspace() {
				return Target{to, sf.Path}, nil
			}
		}
		return Target{}, fmt.Errorf("no %s home directory", to)
	}
	return Target{}, fmt.Errorf("--to must be one of %s, not %q", strings.Join(Targets, ", "), to)
}

// Entries are an export's hooks as the agent's file writes them: its event
// names to the list of its entries (matcher groups, or Cursor's hooks).
type Entries map[string][]any

// Build writes the hooks (the user's own, from their wavehooks settings) as
// the agent's entries. shim is the wavehooks binary the commands of Gemini
// CLI and Cursor run their hooks through. The notes say which hooks were
// left out, and why.
func Build(to string, hooks []settings.Hook, shim string) (Entries, []string) {
	out := Entries{}
	var notes []string
	for i := range hooks {
		h := &hooks[i]
		if why := unexportable(to, h); why != "" {
			notes = append(notes, fmt.Sprintf("%s hook `%s` is not exported: %s", h.Event, h.Display(), why))
			continue
		}
		name, matcher := string(h.Event), settings.MatcherRaw(h.Matcher)
		if to != "claude" {
			names := agentfmt.AgentEvents(agentfmt.Agent(to), h.Event)
			if len(names) == 0 {
				notes = append(notes, fmt.Sprintf("%s hook `%s` is not exported: %s has no such event", h.Event, h.Display(), to))
				continue
			}
			name, matcher = names[0], agentfmt.MatcherFromClaude(agentfmt.Agent(to), matcher)
		}
		cmd := h.Command
		if to == "gemini" || to == "cursor" {
			cmd = shellQuote(shim) + " hooks shim --agent " + to + " --event " + name + " -- " + shellQuote(h.Command)
		}
		hook := map[string]any{"type": "command", "command": cmd + Marker}
		secs := int(h.Timeout.Seconds())
		switch to {
		case "gemini":
			hook["timeout"] = secs * 1000
		default:
			hook["timeout"] = secs
		}
		if h.StatusMessage != "" && (to == "claude" || to == "codex") {
			hook["statusMessage"] = h.StatusMessage
		}
		if to == "claude" && h.Async {
			hook["async"] = true
		}
		if to == "claude" && h.If != nil {
			hook["if"] = settings.IfRaw(h.If)
		}
		var entry any
		if to == "cursor" {
			delete(hook, "type")
			if matcher != "" && matcher != "*" {
				hook["matcher"] = matcher
			}
			entry = hook
		} else {
			group := map[string]any{"hooks": []any{hook}}
			if matcher != "" {
				group["matcher"] = matcher
			}
			entry = group
		}
		out[name] = append(out[name], entry)
	}
	return out, notes
}

// unexportable says why a hook cannot be exported to an agent ("" when it can).
func unexportable(to string, h *settings.Hook) string {
	switch {
	case h.Type != settings.TypeCommand:
		return "only command hooks are exported"
	case h.Disabled:
		return "it is turned off"
	case h.Args != nil:
		return "exec form (args) is wavehooks' own"
	case h.Cwd != "" || len(h.Env) > 0:
		return "cwd and env are wavehooks' own"
	case h.If != nil && to != "claude":
		return fmt.Sprintf("%s has no \"if\" rules", to)
	case h.Async && to != "claude":
		return fmt.Sprintf("%s has no async hooks", to)
	}
	return ""
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Hash is the hash of an export's entries, as recorded and as compared.
func (e Entries) Hash() string {
	b, _ := json.Marshal(e) // maps marshal in key order
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Apply writes the entries into the text of the agent's file: the entries
// a previous export wrote (their commands end in Marker) are removed, the
// new ones appended under their events, and everything else — other keys,
// the user's own hooks, comments — stays. An empty text is a new file.
func Apply(text []byte, to string, e Entries) ([]byte, error) {
	if strings.TrimSpace(string(text)) == "" {
		text = []byte("{}\n")
		if to == "cursor" {
			text = []byte("{\"version\": 1}\n")
		}
	}
	v, err := hujson.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("the file is not JSON: %w", err)
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New("the file is not a JSON object")
	}
	var ops []map[string]any
	hooks := member(root, "hooks")
	if hooks == nil {
		ops = append(ops, map[string]any{"op": "add", "path": "/hooks", "value": map[string]any{}})
	} else if _, ok := hooks.Value.(*hujson.Object); !ok {
		return nil, errors.New(`its "hooks" is not an object`)
	}
	present := map[string]*hujson.Array{}
	if hooks != nil {
		for i := range hooks.Value.(*hujson.Object).Members {
			m := &hooks.Value.(*hujson.Object).Members[i]
			name := m.Name.Value.(hujson.Literal).String()
			arr, ok := m.Value.Value.(*hujson.Array)
			if !ok {
				if _, ours := e[name]; ours {
					return nil, fmt.Errorf("its hooks of %q are not a list; fix that first, nothing was changed", name)
				}
				continue
			}
			present[name] = arr
			for j := len(arr.Elements) - 1; j >= 0; j-- {
				if isOurs(&arr.Elements[j]) {
					ops = append(ops, map[string]any{"op": "remove", "path": "/hooks/" + pointer(name) + "/" + fmt.Sprint(j)})
				}
			}
		}
	}
	names := make([]string, 0, len(e))
	for name := range e {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := present[name]; !ok {
			ops = append(ops, map[string]any{"op": "add", "path": "/hooks/" + pointer(name), "value": e[name]})
			continue
		}
		for _, entry := range e[name] {
			ops = append(ops, map[string]any{"op": "add", "path": "/hooks/" + pointer(name) + "/-", "value": entry})
		}
	}
	if len(ops) == 0 {
		return text, nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	if err := v.Patch(patch); err != nil {
		return nil, fmt.Errorf("cannot edit the file: %w", err)
	}
	// Not Format: it would add trailing commas, which Claude Code and
	// Gemini CLI (plain JSON, comments stripped) refuse; the new entries go
	// in compact, and the user's layout stays as it was.
	return v.Pack(), nil
}

// Exported reads the entries an export wrote into an agent's file, for
// drift: those whose commands end in Marker, by event.
func Exported(text []byte) (Entries, error) {
	v, err := hujson.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("the file is not JSON: %w", err)
	}
	out := Entries{}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return out, nil
	}
	hooks := member(root, "hooks")
	if hooks == nil {
		return out, nil
	}
	obj, ok := hooks.Value.(*hujson.Object)
	if !ok {
		return out, nil
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		arr, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for j := range arr.Elements {
			if !isOurs(&arr.Elements[j]) {
				continue
			}
			el := arr.Elements[j].Clone()
			el.Standardize()
			var entry any
			if err := json.Unmarshal(el.Pack(), &entry); err != nil {
				return nil, err
			}
			name := m.Name.Value.(hujson.Literal).String()
			out[name] = append(out[name], entry)
		}
	}
	return out, nil
}

// isOurs reports whether an entry (a matcher group, or Cursor's hook) is an
// export's: every command in it ends in Marker.
func isOurs(v *hujson.Value) bool {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return false
	}
	if c := member(obj, "command"); c != nil {
		lit, ok := c.Value.(hujson.Literal)
		return ok && strings.HasSuffix(lit.String(), Marker)
	}
	hs := member(obj, "hooks")
	if hs == nil {
		return false
	}
	arr, ok := hs.Value.(*hujson.Array)
	if !ok || len(arr.Elements) == 0 {
		return false
	}
	for i := range arr.Elements {
		if !isOurs(&arr.Elements[i]) {
			return false
		}
	}
	return true
}

func member(obj *hujson.Object, name string) *hujson.Value {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// pointer escapes a JSON Pointer token.
func pointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// Record is one export as $WAVE_HOME/exports.json keeps it.
type Record struct {
	To   string `json:"to"`
	Hash string `json:"hash"`
}

// recordsFile is where the exports are recorded.
func recordsFile(waveHome string) string { return filepath.Join(waveHome, "exports.json") }

// Records reads the recorded exports, by target file.
func Records(waveHome string) (map[string]Record, error) {
	b, err := safefile.ReadFile(recordsFile(waveHome), settings.MaxSettingsFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Record{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]Record{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", recordsFile(waveHome), err)
	}
	return out, nil
}

// Write exports entries into the target: the file edited and replaced
// atomically, and the export recorded.
func Write(waveHome string, t Target, e Entries) error {
	text, err := safefile.ReadFile(t.Path, settings.MaxSettingsFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := Apply(text, t.To, e)
	if err != nil {
		return fmt.Errorf("%s: %w", t.Path, err)
	}
	if err := writeAtomic(t.Path, out); err != nil {
		return err
	}
	recs, err := Records(waveHome)
	if err != nil {
		return err
	}
	recs[t.Path] = Record{To: t.To, Hash: e.Hash()}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(recordsFile(waveHome), append(b, '\n'))
}

// writeAtomic replaces path with data through a temporary file beside it,
// keeping an existing file's mode.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".wavehooks-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Drift says, for each recorded export, whether its file has drifted from
// its source: the user's hooks now export to other entries (the source
// changed), or the file's exported entries are not those written (someone
// edited them, or removed them). current builds the entries an export to
// an agent would write now.
func Drift(waveHome string, current func(to string) Entries) ([]string, error) {
	recs, err := Records(waveHome)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(recs))
	for p := range recs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []string
	for _, p := range paths {
		r := recs[p]
		if current(r.To).Hash() != r.Hash {
			out = append(out, fmt.Sprintf("%s: your wavehooks hooks changed since they were exported here; run `wavehooks hooks export --to %s`", p, r.To))
			continue
		}
		text, err := safefile.ReadFile(p, settings.MaxSettingsFileBytes)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: the exported file cannot be read (%v); run `wavehooks hooks export --to %s`", p, err, r.To))
			continue
		}
		got, err := Exported(text)
		if err != nil || got.Hash() != r.Hash {
			out = append(out, fmt.Sprintf("%s: the hooks exported here were edited or removed; run `wavehooks hooks export --to %s`", p, r.To))
		}
	}
	return out, nil
}
