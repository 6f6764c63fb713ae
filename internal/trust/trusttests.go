package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// This file puts a workspace's hook test cases under its trust (issue #35).
// A case file may name a settings file whose hooks `wavehooks test` runs,
// and those hooks may run scripts: a repository's case file can so choose
// commands to run as surely as its .wave/settings.json can. So a case file
// in the workspace, and each settings file or script a case names that lies
// in it, is workspace content under the one trust of the workspace, with
// the one hash:
//
//   - The hash covers the case files under .wave/tests (what `wavehooks
//     test` runs with no path, and the one place every host can find them
//     without being told), the contents of each settings file their cases
//     name that lies in the workspace, and each workspace file the hooks of
//     the settings files they name run (filesRun, as for the workspace's own
//     hooks). Editing any of them, or adding a case file there, needs trust
//     again, in the editor, the ACP proxy and `wavehooks trust` alike. A
//     workspace without .wave/tests hashes exactly as before, so no trust
//     given earlier is lost for it.
//   - `wavehooks test` runs a case that uses workspace content only when
//     the user trusted the workspace as it is now (Loaded.UserTrusted) and
//     the hash covers every workspace file the case uses, as it is now
//     (Loaded.UncoveredByTrust), or with --trust-workspace. A case file
//     elsewhere in the workspace (testdata/hooktests) is not covered by the
//     hash: it runs with --trust-workspace only.
//
// "In the workspace" is decided on the path as it will be opened, cleaned,
// and on the path with every symlink resolved: either one inside is inside,
// so neither `..` nor a symlink pointing in escapes the check.

// TestsDir is where a workspace keeps its hook test case files, relative to
// its root: what `wavehooks test` runs when given no path, and what the
// trust hash covers.
var TestsDir = filepath.Join(".wave", "tests")

// CaseFileSuffixes are how the names of hook test case files end, when a
// directory is searched (hooktest.Find, and the trust hash here).
var CaseFileSuffixes = []string{".test.json", ".test.jsonc"}

// IsCaseFileName reports whether a file name (not a path) is a case file's.
func IsCaseFileName(name string) bool {
	for _, s := range CaseFileSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// TestCase is what one hook test case uses, as `wavehooks test` will use
// it: what the trust must cover before it runs.
type TestCase struct {
	// File is the case file, absolute and clean, and Text its contents as
	// read for the case.
	File string
	Text []byte
	// Settings is the settings file the case names, absolute and clean ("":
	// none), and SettingsText its contents as they will be used (nil when it
	// could not be read: the case then runs nothing).
	Settings     string
	SettingsText []byte
	// ProjectRoot is the project the case runs in: where its hooks' relative
	// paths and $CLAUDE_PROJECT_DIR lead.
	ProjectRoot string
}

// testState is the state of content read in full: its bytes' hash.
func testState(text []byte) string {
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// inside reports whether p (absolute, clean) lies in the workspace: as
// written, or with its symlinks resolved.
func inside(p, root, realRoot string) bool {
	if root == "" {
		return false
	}
	if within(root, p) {
		return true
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && (within(realRoot, real) || within(root, real))
}

// realPath is p with its symlinks resolved, or p when it cannot be.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// testFiles fingerprints the workspace files (under root) that c uses: the
// case file and its settings file when they lie in the workspace (their
// states are of the bytes given, the bytes the case runs with), and every
// workspace file the settings file's hooks run. commands are the commands
// of a settings file in the workspace, for the trust listing.
func testFiles(c *TestCase, root, realRoot string) (files []fileState, commands []string) {
	add := func(p, state string) {
		rel, err := filepath.Rel(root, p)
		if err != nil || !within(root, p) {
			rel = p
		}
		files = append(files, fileState{Path: p, Rel: filepath.ToSlash(rel), State: state})
	}
	if inside(c.File, root, realRoot) {
		add(c.File, testState(c.Text))
	}
	if c.Settings == "" {
		return files, nil
	}
	in := inside(c.Settings, root, realRoot)
	if c.SettingsText == nil {
		if in {
			add(c.Settings, "unreadable")
		}
		return files, nil
	}
	if in {
		add(c.Settings, testState(c.SettingsText))
	}
	project := c.ProjectRoot
	if project == "" {
		project = root
	}
	f := settings.ParseFile(c.Settings, settings.SourceUser, c.SettingsText, project)
	for i := range f.Hooks {
		h := &f.Hooks[i]
		if in {
			commands = append(commands, h.Describe())
		}
		run := filesRun(h, project)
		for _, p := range append(run.paths, run.maybe...) {
			if st, ok := workspaceFile(p, root, realRoot, nil); ok {
				files = append(files, st)
			}
		}
	}
	return files, commands
}

// caseRefs are the settings file and project each case of a case file
// names, resolved from the case file's directory as hooktest.Parse resolves
// them (the same shapes: one case, an array of cases, an object of named
// cases; the same decoding of each case). A file that does not read as
// cases names nothing: `wavehooks test` runs none of it.
func caseRefs(file string, text []byte) (refs []struct{ settings, project string }) {
	v, err := hujson.Parse(text)
	if err != nil {
		return nil
	}
	var items []*hujson.Value
	switch t := v.Value.(type) {
	case *hujson.Array:
		for i := range t.Elements {
			items = append(items, &t.Elements[i])
		}
	case *hujson.Object:
		single := false
		for _, m := range t.Members {
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "event" {
				single = true
			}
		}
		if single {
			items = append(items, &v)
			break
		}
		for i := range t.Members {
			items = append(items, &t.Members[i].Value)
		}
	}
	dir := filepath.Dir(file)
	for _, it := range items {
		std := it.Clone()
		std.Standardize()
		var c struct {
			Settings string `json:"settings"`
			Project  string `json:"project"`
		}
		if json.NewDecoder(bytes.NewReader(std.Pack())).Decode(&c) != nil {
			continue
		}
		if c.Settings != "" && !filepath.IsAbs(c.Settings) {
			c.Settings = filepath.Join(dir, c.Settings)
		}
		if c.Project != "" && !filepath.IsAbs(c.Project) {
			c.Project = filepath.Join(dir, c.Project)
		}
		refs = append(refs, struct{ settings, project string }{c.Settings, c.Project})
	}
	return refs
}

// workspaceTests fingerprints the workspace's hook tests: every case file
// under root/.wave/tests (found as `wavehooks test` finds them), and what
// its cases use (testFiles), each file once, sorted by path; looked are the
// paths read, commands those of the settings files in the workspace the
// cases name.
func workspaceTests(root, realRoot string) (files []fileState, commands, looked []string) {
	if root == "" {
		return nil, nil, nil
	}
	dir := filepath.Join(root, TestsDir)
	var found []string
	looked = append(looked, dir) // a case file added there changes the hash: a reload must look
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory: `wavehooks test` fails on it and runs nothing
		}
		if d.IsDir() && path != dir {
			looked = append(looked, path)
		}
		if !d.IsDir() && IsCaseFileName(d.Name()) {
			found = append(found, path)
		}
		return nil
	})
	seen := map[string]bool{}
	seenCmd := map[string]bool{}
	keep := func(add []fileState) {
		for _, f := range add {
			if !seen[f.Path] {
				seen[f.Path] = true
				files = append(files, f)
			}
		}
	}
	for _, file := range found {
		looked = append(looked, file)
		text, err := settings.ReadSettingsText(file)
		if err != nil {
			keep([]fileState{{Path: file, Rel: relTo(root, file), State: "unreadable"}})
			continue
		}
		keep([]fileState{{Path: file, Rel: relTo(root, file), State: testState(text)}})
		for _, ref := range caseRefs(file, text) {
			if ref.settings == "" {
				continue
			}
			c := &TestCase{File: file, Text: text, Settings: ref.settings, ProjectRoot: ref.project}
			looked = append(looked, ref.settings)
			if st, err := settings.ReadSettingsText(ref.settings); err == nil {
				c.SettingsText = st
			}
			got, cmds := testFiles(c, root, realRoot)
			keep(got)
			for _, cmd := range cmds {
				if !seenCmd[cmd] {
					seenCmd[cmd] = true
					commands = append(commands, cmd)
				}
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, commands, looked
}

// TestFiles lists, relative to the project root, the hook test files the
// trust covers (case files under .wave/tests, the settings files and
// scripts their cases name), for the trust listing.
func (l *Loaded) TestFiles() []string {
	var out []string
	for _, f := range l.tests {
		out = append(out, f.Rel)
	}
	return out
}

// TestCommands lists the commands of the settings files in the workspace
// that its hook test cases name, for the trust listing: trusting the
// workspace lets `wavehooks test` run them.
func (l *Loaded) TestCommands() []string { return l.testCmds }

// HasTests reports whether the workspace has hook test case files the trust
// covers: something to trust even with no hooks of its own.
func (l *Loaded) HasTests() bool { return len(l.tests) > 0 }

// WorkspaceFilesOf lists, relative to the project root, the workspace
// files hook test case c uses (its case file, its settings file, the
// scripts that settings file's hooks run, those that lie in the workspace):
// what must be trusted before c runs. None: c uses nothing of the
// workspace and runs as the user's own.
func (l *Loaded) WorkspaceFilesOf(c *TestCase) []string {
	files, _ := testFiles(c, l.root, l.real)
	var out []string
	for _, f := range files {
		out = append(out, f.Rel)
	}
	return out
}

// UncoveredByTrust lists the workspace files hook test case c uses that
// the trust does not cover as they are now: not among the files it hashed,
// or changed since (compared by their real paths, so that a path that
// reaches a covered file another way is still the same file). Empty: what
// c uses is exactly what the user trusted, if they did (UserTrusted).
func (l *Loaded) UncoveredByTrust(c *TestCase) []string {
	covered := map[[2]string]bool{}
	for _, f := range l.tests {
		if f.covered() {
			covered[[2]string{realPath(f.Path), f.State}] = true
		}
	}
	files, _ := testFiles(c, l.root, l.real)
	var out []string
	for _, f := range files {
		if !f.covered() || !covered[[2]string{realPath(f.Path), f.State}] {
			out = append(out, f.Rel)
		}
	}
	return out
}
