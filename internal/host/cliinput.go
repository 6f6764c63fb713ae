package host

import (
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
func SetHookEnabled(h *settings.Hook, on bool) (before []byte, err error) {
	if h.Source == settings.SourceManaged {
		return nil, errors.New("a managed (policy) hook is the administrator's to turn off or on")
	}
	info, err := os.Lstat(h.File)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; edit it by hand", h.File)
	}
	src, err := safefile.ReadFile(h.File, settings.MaxSettingsFileBytes)
	if err != nil {
		return nil, err
	}
	edit, err := settings.EnableEdit(src, h.Event, h.Place, on, false)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.File), "."+filepath.Base(h.File)+".*.tmp")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(edit.Apply(src)); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	return src, os.Rename(tmp.Name(), h.File)
}
