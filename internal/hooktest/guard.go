package hooktest

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// UntrustedError is a run refused before any hook ran: a case uses
// workspace content (its case file, its settings file or a script that
// settings file's hooks run lies in the workspace) that the user has not
// trusted as it is now. It says how to trust: `wavehooks trust` in the
// workspace, or --trust-workspace for the run.
type UntrustedError struct {
	// Case is the first case refused; Root the workspace it uses.
	Case *Case
	Root string
	// Files are the workspace files the case uses, relative to Root.
	Files []string
	// Uncovered: the user trusted the workspace, but that trust does not
	// cover Files as they are (a case file outside .wave/tests).
	Uncovered bool
}

// maxListed bounds the files a refusal names: the how-to-trust must stay on screen.
const maxListed = 4

func (e *UntrustedError) Error() string {
	files := e.Files
	if len(files) > maxListed {
		files = append(files[:maxListed:maxListed], fmt.Sprintf("%d more", len(e.Files)-maxListed))
	}
	what := fmt.Sprintf("case %q of %s uses %s of the workspace %s", e.Case.Name, e.Case.File, strings.Join(files, ", "), e.Root)
	if e.Uncovered {
		return what + ", which your trust of the workspace does not cover (it covers the case files under " +
			filepath.ToSlash(trust.TestsDir) + " and the settings files and scripts their cases name): nothing ran. " +
			"Keep the case under " + filepath.ToSlash(trust.TestsDir) + " and run `wavehooks trust` in the workspace again, " +
			"or pass --trust-workspace to trust the workspace for this run"
	}
	return what + ", which you have not trusted as it is now: a repository's case files, and the settings files and " +
		"scripts they name, run its commands, so nothing ran. Review them and run `wavehooks trust` in the workspace " +
		"(it lists them), or pass --trust-workspace to trust the workspace for this run"
}

// Guard refuses, before any hook runs, cases that use workspace content
// without the user's trust (issue #35): `wavehooks test` with no path runs
// the repository's .wave/tests, and a case there whose settings name the
// repository's own settings would otherwise run its hooks as the user's.
// The workspaces of a case are the run's project root and the case's own
// project; for each, the workspace files the case uses (trust.Loaded's
// WorkspaceFilesOf: the case file, its settings file, the scripts its
// settings' hooks run, found with symlinks resolved and `..` cleaned) run
// only when always (--trust-workspace), or when the user trusted that
// workspace as it is now (decide's UserTrusted, the hash `wavehooks trust`
// and the editor record) and the trust covers each of those files as it is
// (UncoveredByTrust). A case that uses nothing of a workspace runs as
// before, as the user's own. The settings files' contents are read here
// and kept for Run, so the bytes checked are the bytes that run. The error
// is an *UntrustedError.
func Guard(cases []*Case, root string, always bool, decide func(root string) *trust.Loaded) error {
	if always {
		return nil
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return filepath.Clean(p)
	}
	decided := map[string]*trust.Loaded{}
	for _, c := range cases {
		tc := &trust.TestCase{File: abs(c.File), Text: c.text, ProjectRoot: abs(root)}
		if c.Project != "" {
			tc.ProjectRoot = abs(c.Project)
		}
		if c.Settings != "" {
			tc.Settings = abs(c.Settings)
			if text, err := settings.ReadSettingsText(tc.Settings); err == nil {
				tc.SettingsText, c.settingsText = text, text
			}
		}
		for _, r := range []string{abs(root), tc.ProjectRoot} {
			l := decided[r]
			if l == nil {
				l = decide(r)
				decided[r] = l
			}
			used := l.WorkspaceFilesOf(tc)
			if len(used) == 0 {
				continue
			}
			if !l.UserTrusted {
				return &UntrustedError{Case: c, Root: r, Files: used}
			}
			if un := l.UncoveredByTrust(tc); len(un) > 0 {
				return &UntrustedError{Case: c, Root: r, Files: un, Uncovered: true}
			}
		}
	}
	return nil
}
