package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// Drift (issue #38 item 4): a hook that appears in, or changes in, the
// user's own settings (~/.wave/settings.json, ~/.claude/settings.json) and
// was written by neither wavehooks nor the user's editor — a package's
// install script appending to the file, say — is reported the first time it
// is seen. $WAVE_HOME/hook-record.json (0600) keeps, per file and per hook
// place, the hash of the hook wavehooks last approved (it wrote it, the
// user's editor saved it, or the user approved it) and the hash it last
// reported. With driftRequiresApproval (in the user's or the managed
// settings) a drifted hook does not run until approved, as an untrusted
// workspace's hooks wait for trust.

// DriftRecordName is the record's file name under $WAVE_HOME.
const DriftRecordName = "hook-record.json"

// maxDriftRecordBytes caps the record read: it holds a few hashes per hook.
const maxDriftRecordBytes = 4 << 20

// driftRecord is hook-record.json.
type driftRecord struct {
	Version int                              `json:"version"`
	Files   map[string]map[string]driftEntry `json:"files"`
}

// driftEntry is what the record knows of one hook place.
type driftEntry struct {
	// Approved is the hash of the hook wavehooks last wrote, saw saved by
	// the editor, or the user approved.
	Approved string `json:"approved,omitempty"`
	// Reported is the hash of the drifted hook last reported, so that a
	// drift is reported once.
	Reported string `json:"reported,omitempty"`
}

// Drift is one hook of the user's own settings that differs from what the
// record approved.
type Drift struct {
	// Hook is the hook as it is now (a copy: a host may filter the
	// configuration's hooks).
	Hook Hook
	// Change is "added" (nothing was approved at its place) or "changed".
	Change string
	// New is set when this drift was not reported before.
	New bool
}

// DriftWatched reports whether the drift record watches the hooks of src:
// the user's own settings files, which no workspace trust guards.
func DriftWatched(src Source) bool { return src == SourceUser || src == SourceClaudeUser }

// HookHash is the hash the record keeps of a hook: what it runs and on what,
// but not whether it is on ("enabled" is the user's switch, not a change of
// what runs).
func HookHash(h *Hook) string {
	sum := sha256.Sum256([]byte(string(h.Event) + "\x00" + h.Matcher.String() + "\x00" + h.Type + "\x00" + h.RunKey() +
		"\x00" + h.Describe() + "\x00" + h.Timeout.String()))
	return hex.EncodeToString(sum[:])
}

// driftPlace names a hook's place in its file for the record.
func driftPlace(h *Hook) string {
	return string(h.Event) + "/" + strconv.Itoa(h.Place.Group) + "/" + strconv.Itoa(h.Place.Index)
}

// driftRecordPath is the record of a wave home.
func driftRecordPath(waveHome string) string { return filepath.Join(waveHome, DriftRecordName) }

// readDriftRecord reads the record. A record that does not exist is
// (nil, nil): nothing was recorded yet, and the first write adopts what
// is there. A record that cannot be read or parsed is an error, and every
// watched hook counts as drifted (fail closed).
func readDriftRecord(waveHome string) (*driftRecord, error) {
	if waveHome == "" {
		return nil, nil
	}
	b, err := safefile.ReadFile(driftRecordPath(waveHome), maxDriftRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec := &driftRecord{}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", driftRecordPath(waveHome), err)
	}
	if rec.Files == nil {
		rec.Files = map[string]map[string]driftEntry{}
	}
	return rec, nil
}

// writeDriftRecord replaces the record atomically, readable by the user only.
func writeDriftRecord(waveHome string, rec *driftRecord) error {
	if err := os.MkdirAll(waveHome, 0o700); err != nil {
		return err
	}
	rec.Version = 1
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(waveHome, "."+DriftRecordName+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), driftRecordPath(waveHome))
}

// checkDrift compares the watched hooks with the record: each drifted hook
// is listed in c.Drift, a drift not reported before gets a warning
// diagnostic on the hook, and with driftRequiresApproval the hook waits.
func (c *Config) checkDrift() {
	rec, err := readDriftRecord(c.Paths.WaveHome)
	if rec == nil && err == nil {
		c.driftBaseline = true // nothing recorded yet: what is there now is adopted
		return
	}
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if !DriftWatched(h.Source) {
			continue
		}
		var e driftEntry
		if rec != nil {
			e = rec.Files[h.File][driftPlace(h)]
		}
		hash := HookHash(h)
		if e.Approved == hash {
			continue
		}
		d := Drift{Hook: *h, Change: "changed", New: e.Reported != hash}
		if e.Approved == "" {
			d.Change = "added"
		}
		if c.DriftRequiresApproval {
			if c.awaiting == nil {
				c.awaiting = map[string]bool{}
			}
			c.awaiting[HookID(h)] = true
		}
		c.Drift = append(c.Drift, d)
		if d.New || c.DriftRequiresApproval {
			c.addDiagnostic(Diagnostic{File: h.File, Range: h.Place.Range, Severity: SeverityWarning, Code: CodeHookDrift,
				Message: c.DriftMessage(d)})
		}
	}
	if err != nil {
		c.driftErr = err
	}
}

// addDiagnostic adds d to the file it names.
func (c *Config) addDiagnostic(d Diagnostic) {
	for i := range c.Files {
		if c.Files[i].Path == d.File {
			c.Files[i].Diagnostics = append(c.Files[i].Diagnostics, d)
			return
		}
	}
}

// DriftMessage says what drifted, where, and what to do about it.
func (c *Config) DriftMessage(d Drift) string {
	h := &d.Hook
	msg := fmt.Sprintf("a %s hook was %s in %s by something other than wavehooks or your editor: `%s`", h.Event, d.Change,
		h.File, safetext.Line(h.Display(), 200))
	if c.DriftRequiresApproval {
		return msg + "; driftRequiresApproval is set, so it does not run until you approve it (`wavehooks hooks approve " + HookID(h) + "`)"
	}
	return msg + "; if you did not add it, remove it (`wavehooks hooks approve " + HookID(h) + "` records it as yours)"
}

// NewDrift is the drift not reported before: what a host shows the user.
func (c *Config) NewDrift() []Drift {
	var out []Drift
	for _, d := range c.Drift {
		if d.New {
			out = append(out, d)
		}
	}
	return out
}

// MarkDriftReported notes in the record that c's drift was shown to the
// user, so that it is reported once. The first call on a wave home with no
// record adopts every watched hook there is as approved.
func (c *Config) MarkDriftReported() error {
	if c.Paths.WaveHome == "" || (!c.driftBaseline && len(c.NewDrift()) == 0) {
		return nil
	}
	rec, err := readDriftRecord(c.Paths.WaveHome)
	if err != nil || rec == nil {
		rec = &driftRecord{Files: map[string]map[string]driftEntry{}}
	}
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if DriftWatched(h.Source) && c.driftBaseline {
			rec.set(h, func(e *driftEntry) { e.Approved = HookHash(h) })
		}
	}
	for _, d := range c.NewDrift() {
		h := &d.Hook
		rec.set(h, func(e *driftEntry) { e.Reported = HookHash(h) })
	}
	return writeDriftRecord(c.Paths.WaveHome, rec)
}

// set changes the record's entry of h.
func (r *driftRecord) set(h *Hook, change func(*driftEntry)) {
	if r.Files[h.File] == nil {
		r.Files[h.File] = map[string]driftEntry{}
	}
	e := r.Files[h.File][driftPlace(h)]
	change(&e)
	r.Files[h.File][driftPlace(h)] = e
}

// ApproveHooks records hooks as the user's own: wavehooks wrote them, the
// user's editor saved them, or the user approved them. They are no drift
// from then on, and with driftRequiresApproval they run. Hooks of files the
// record does not watch are left out.
func ApproveHooks(waveHome string, hooks []*Hook) error {
	rec, err := readDriftRecord(waveHome)
	if err == nil && rec == nil {
		return nil // nothing recorded yet: the first record adopts these hooks with the rest
	}
	if err != nil {
		rec = &driftRecord{Files: map[string]map[string]driftEntry{}}
	}
	for _, h := range hooks {
		if DriftWatched(h.Source) {
			hash := HookHash(h)
			rec.set(h, func(e *driftEntry) { e.Approved, e.Reported = hash, hash })
		}
	}
	return writeDriftRecord(waveHome, rec)
}

// ApproveFile records every hook of a watched settings file as the user's
// own, as it is on disk now: the user's editor saved it.
func ApproveFile(waveHome, path string, src Source, projectRoot string) error {
	if !DriftWatched(src) {
		return nil
	}
	f := ReadFile(path, src, projectRoot)
	hooks := make([]*Hook, 0, len(f.Hooks))
	for i := range f.Hooks {
		hooks = append(hooks, &f.Hooks[i])
	}
	return ApproveHooks(waveHome, hooks)
}

// DropDriftNotes removes the hook-drift diagnostics of drift that only
// needs reporting (not waiting for approval): a host that reports the drift
// its own way once (serve's message) calls it on each configuration it
// diagnoses, so that its diagnostics do not keep a report alive.
func (c *Config) DropDriftNotes() {
	if c.DriftRequiresApproval {
		return
	}
	for i := range c.Files {
		f := &c.Files[i]
		kept := f.Diagnostics[:0:0]
		for _, d := range f.Diagnostics {
			if d.Code != CodeHookDrift {
				kept = append(kept, d)
			}
		}
		f.Diagnostics = kept
	}
}
