package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// PrepareInput reads an event's stdin JSON as `wavehooks run`, `wavehooks
// test` and the editors' "▶ Run tests" take it, so that the three agree on
// what a case means: what the server would refuse is refused before any
// hook runs, and a missing cwd is the project root (CwdChanged's new
// directory, as Claude Code sends it).
func PrepareInput(ev event.Event, data []byte, projectRoot string) (event.Input, error) {
	in, err := event.ParseInput(ev, data)
	if err == nil {
		err = CheckPreviewInput(in)
	}
	if err != nil {
		return in, err
	}
	if in.Cwd == "" {
		in.Cwd = projectRoot
		if dir := NewCwd(&in); dir != "" {
			in.Cwd = dir // as Claude Code sends CwdChanged: cwd is already the new directory
		}
	}
	return in, nil
}

// NewCwd is CwdChanged's new_cwd when it is an absolute path, else "".
func NewCwd(in *event.Input) string {
	var dir string
	if raw, ok := in.Extra["new_cwd"]; ok && in.Event == event.CwdChanged {
		_ = json.Unmarshal(raw, &dir)
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Clean(dir)
}

// SetHookEnabled turns h on or off in its settings file, for `wavehooks
// hooks disable|enable` and the editors' toggle alike: one text edit
// (settings.EnableEdit; a hook whose matcher group is off is not turned on
// alone: ErrGroupDisabled), written to a temporary file beside it and
// renamed over it, so that a reader sees the old file or the new one, never
// a torn one. before is the text it replaced.
//
// An editor may save the file between the read and the rename; renaming
// then would throw that save away. So just before the rename the file is
// checked against what was read (the same file, size, modification time,
// mode and SHA-256 of its content); when it changed, the edit starts over
// from the new text (the save is kept and the hook turned on or off in
// it), up to maxEditAttempts times, and is otherwise refused with nothing
// written. A start-over whose place now holds another hook (the save
// moved the hooks) is refused too, rather than turn off the wrong one.
//
// What remains: a save that lands after the last check and before the
// rename, a window of one system call with nothing between them, is still
// lost; POSIX has no rename that fails when its target changed.
//
// The edit is wavehooks' own, so it is no drift: the hook is recorded as
// approved in the drift record of waveHome (settings.ApproveHooks). A
// failure to record is returned after the edit is made.
func SetHookEnabled(h *settings.Hook, on bool, waveHome string) (before []byte, err error) {
	before, err = setHookEnabled(h, on, nil)
	if err != nil {
		return nil, err
	}
	if err := settings.ApproveHooks(waveHome, []*settings.Hook{h}); err != nil {
		return before, fmt.Errorf("the hook was turned %s, but the drift record could not be written: %w", onOff(on), err)
	}
	return before, nil
}

// onOff is "on" or "off".
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// maxEditAttempts bounds how many times SetHookEnabled reads and edits a
// settings file that keeps changing under it before it gives up.
const maxEditAttempts = 3

// errChangedMeanwhile: the settings file changed between its read and the
// rename that would replace it; the edit starts over.
var errChangedMeanwhile = errors.New("changed while it was being edited")

// setHookEnabled is SetHookEnabled; beforeRename, when not nil, runs after
// the edited copy is written and before the check that the file did not
// change: where a test makes an editor's save land.
func setHookEnabled(h *settings.Hook, on bool, beforeRename func(attempt int)) (before []byte, err error) {
	if h.Source == settings.SourceManaged {
		return nil, fmt.Errorf("this hook comes from the managed settings %s: managed hooks always run, and only the administrator "+
			"who deploys that file can turn one off or on; wavehooks does not write managed files", h.File)
	}
	var want []byte // the hook as the first attempt read it
	for attempt := 1; attempt <= maxEditAttempts; attempt++ {
		var key []byte
		before, key, err = editHookEnabled(h, on, want, func() {
			if beforeRename != nil {
				beforeRename(attempt)
			}
		})
		if !errors.Is(err, errChangedMeanwhile) {
			return before, err
		}
		if want == nil {
			want = key
		}
	}
	return nil, fmt.Errorf("%s changed while it was being edited, %d times in a row (an editor saving it?); nothing was written: "+
		"try again once it is saved", h.File, maxEditAttempts)
}

// fileState is what SetHookEnabled read of a settings file, to tell
// whether it changed before the edited copy replaces it.
type fileState struct {
	info os.FileInfo
	sum  [sha256.Size]byte
}

// unchanged reports whether the file at path is still the one st was
// read from, with the same size, modification time, mode and content.
func (st fileState) unchanged(path string) bool {
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(st.info, now) || now.Size() != st.info.Size() ||
		!now.ModTime().Equal(st.info.ModTime()) || now.Mode() != st.info.Mode() {
		return false
	}
	// The content too: a save within the file system's time granularity
	// that keeps the size leaves the stamps as they were.
	src, err := safefile.ReadFile(path, settings.MaxSettingsFileBytes)
	return err == nil && sha256.Sum256(src) == st.sum
}

// editHookEnabled is one attempt of SetHookEnabled: read, edit, write the
// copy, check, rename. want, when not nil, is the hook (settings.HookAt)
// its place must still hold; key is the hook this attempt found there.
// It returns errChangedMeanwhile when the file changed after it was read.
func editHookEnabled(h *settings.Hook, on bool, want []byte, beforeRename func()) (before, key []byte, err error) {
	info, err := os.Lstat(h.File)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file; edit it by hand", h.File)
	}
	src, err := safefile.ReadFile(h.File, settings.MaxSettingsFileBytes)
	if err != nil {
		return nil, nil, err
	}
	// Stamps taken before the read: a save between the two makes the
	// check below see a change and start over, which is safe.
	read := fileState{info: info, sum: sha256.Sum256(src)}
	key, groupOff, err := settings.HookAt(src, h.Event, h.Place)
	if err != nil {
		return nil, nil, err
	}
	if want != nil && !bytes.Equal(key, want) {
		return nil, nil, fmt.Errorf("%s changed while it was being edited, and the hook's place in it now holds another hook; "+
			"nothing was written: list the hooks again (their IDs may have moved)", h.File)
	}
	place := h.Place
	place.GroupDisabled = groupOff // as the file says now
	edit, err := settings.EnableEdit(src, h.Event, place, on, false)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.File), "."+filepath.Base(h.File)+".*.tmp")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(edit.Apply(src)); err != nil {
		tmp.Close()
		return nil, nil, err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return nil, nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, nil, err
	}
	beforeRename()
	if !read.unchanged(h.File) {
		return nil, key, fmt.Errorf("%s %w", h.File, errChangedMeanwhile)
	}
	// The window that remains: a save between this check and the rename.
	return src, key, os.Rename(tmp.Name(), h.File)
}
