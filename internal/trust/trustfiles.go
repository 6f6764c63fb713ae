package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/shellread"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// This file finds the workspace files a hook runs by name, so that trusting a
// workspace covers what they contain and not only the command line that names
// them (docs/security.md, "Workspace trust", lists what is and is not
// covered).

// racyWindow is how long before it is hashed a file must have last changed
// for its size and times to prove later that it has not changed since:
// more than the coarsest file system time granularity in common use.
var racyWindow = 2 * time.Second

// maxTrustedFileBytes bounds how much of one file the trust hash reads: a
// larger file is covered by its first maxTrustedFileBytes and its size.
const maxTrustedFileBytes = 64 << 20

// runFiles are the workspace files a hook runs, as filesRun finds them.
type runFiles struct {
	// paths are the files it runs, absolute, symlinks not resolved.
	paths []string
	// maybe are files it runs when they exist (a module python -m or
	// perl -M would find there first): covered when present, hashed as
	// absent otherwise so that creating one asks again, and not listed in
	// the prompt while absent.
	maybe []string
	// notCovered describe the forms of the hook that run files the trust
	// cannot cover (a module found at run time, a script read from a pipe,
	// an environment variable that loads code), for the prompt.
	notCovered []string
}

// codeEnvVars are environment variables that make programs load code from
// a file or directory they name; a hook's env setting one is listed in the
// prompt as not covered (BASH_ENV and ENV, which name one shell file, are
// covered instead).
var codeEnvVars = map[string]bool{"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "NODE_OPTIONS": true,
	"NODE_PATH": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PERL5OPT": true, "PERL5LIB": true,
	"RUBYOPT": true, "RUBYLIB": true, "ZDOTDIR": true, "PROMPT_COMMAND": true, "GIT_CONFIG_GLOBAL": true,
	"DYLD_INSERT_LIBRARIES": true}

// filesRun returns the files a hook runs by name: the program when it is
// written as a path, the script an interpreter is given (bash x.sh,
// python3 x.py, node x.js, source x.sh) or reads on its input (sh < x.sh,
// cat x.sh | bash), the modules node -r, perl -M and python -m load from
// the workspace, and the file BASH_ENV or ENV names, in every simple command
// of a shell command line. Exec-form words have their ${CLAUDE_PROJECT_DIR}
// placeholders substituted as the runner does. Paths the shell builds at run
// time ($VARIABLES other than the project directory, globs, command
// substitution) cannot be known here and are left out.
func filesRun(h *settings.Hook, root string) runFiles {
	dir := filepath.Join(root, h.Cwd)
	var out runFiles
	// dirs are where a relative path may be resolved from: the hook's
	// directory, then each directory a cd went to, the last the current
	// one; paths from the others are covered as files it might run.
	dirs := []string{dir}
	resolve := func(w string, shell bool) (paths, maybe []string) {
		for i, d := range dirs {
			if p := wordPath(w, root, d, shell); p != "" {
				if i == len(dirs)-1 {
					paths = append(paths, p)
				} else {
					maybe = append(maybe, p)
				}
			}
		}
		return paths, maybe
	}
	path := func(w string, shell bool) {
		paths, maybe := resolve(w, shell)
		out.paths = append(out.paths, paths...)
		out.maybe = append(out.maybe, maybe...)
		if len(paths) == 0 && shell && w != "" {
			out.notCovered = append(out.notCovered, fmt.Sprintf("%s: a path the shell builds when the hook runs", w))
		}
	}
	env := func(assign string, shell bool, how string) {
		name, value, _ := strings.Cut(assign, "=")
		switch {
		case name == "BASH_ENV" || name == "ENV":
			if p := wordPath(value, root, dir, true); p != "" { // the shell expands the value itself
				out.paths = append(out.paths, p)
			} else if value != "" {
				out.notCovered = append(out.notCovered, fmt.Sprintf("%s=%s %s: the file it names is built when the hook runs", name, value, how))
			}
		case codeEnvVars[name]:
			out.notCovered = append(out.notCovered, fmt.Sprintf("%s=%s %s: the code it makes programs load", name, value, how))
		}
	}
	depth := 0 // of sh -c inside sh -c
	var add func(c shellread.SimpleCommand, shell bool)
	add = func(c shellread.SimpleCommand, shell bool) {
		words := shellread.StripPrefixWords(c.Words, shell)
		for _, w := range c.Words[:len(c.Words)-len(words)] {
			if shellread.AssignRE.MatchString(w) {
				env(w, shell, "set in the command")
			}
		}
		if len(words) == 0 {
			return
		}
		if shell && (words[0] == "cd" || words[0] == "pushd") {
			target := ""
			for _, w := range words[1:] {
				if !strings.HasPrefix(w, "-") {
					target = w
					break
				}
			}
			if d := wordPath(target, root, dirs[len(dirs)-1], true); target != "" && d != "" {
				dirs = append(dirs, d)
			} else {
				out.notCovered = append(out.notCovered, fmt.Sprintf(
					"%s: the scripts run after it are looked for where the hook starts, not where it goes", strings.Join(words, " ")))
			}
			return
		}
		if strings.ContainsRune(words[0], '/') {
			path(words[0], shell)
		}
		run := shellread.InterpreterScript(words, shell)
		if run.Script != "" {
			if run.Node {
				out.maybe = append(out.maybe, nodeCandidates(run.Script, root, dirs[len(dirs)-1], shell)...)
			} else {
				path(run.Script, shell)
			}
		}
		for _, m := range run.Modules {
			files, note := moduleFiles(m, run, root, dirs[len(dirs)-1], shell)
			out.maybe = append(out.maybe, files...)
			if note != "" {
				out.notCovered = append(out.notCovered, note)
			}
		}
		if run.FromStdin {
			switch {
			case c.Stdin != "":
				path(c.Stdin, shell)
			case c.HereDoc:
				// the here-document's lines are on the command line: read as commands below
			case c.Piped && len(c.PipedFrom) == 2 && filepath.Base(c.PipedFrom[0]) == "cat":
				path(c.PipedFrom[1], shell)
			case c.Piped:
				out.notCovered = append(out.notCovered, fmt.Sprintf("%s reads its script from a pipe (%s | …): what it runs is not covered",
					words[0], strings.Join(c.PipedFrom, " ")))
			}
		}
		if run.Inline != "" && depth < 8 {
			depth++
			_, _ = shellread.ReadSimpleCommands(run.Inline, false, 0, func(c shellread.SimpleCommand, _ int) error {
				add(c, true)
				return nil
			})
			depth--
		}
	}
	for _, e := range h.Env {
		env(e, true, "in the hook's env")
	}
	if h.Args != nil {
		prog, args := settings.ExecForm(h, root) // placeholders substituted as the runner does
		add(shellread.SimpleCommand{Words: append([]string{prog}, args...)}, false)
		return out
	}
	_, _ = shellread.ReadSimpleCommands(h.Command, false, 0, func(c shellread.SimpleCommand, _ int) error {
		add(c, true)
		return nil
	})
	return out
}

// nodeCandidates are the files node tries for a script or a -r module
// written as a path: the path itself, then with .js, .cjs, .mjs, .json or
// /index.js added.
func nodeCandidates(w, root, dir string, shell bool) []string {
	p := wordPath(w, root, dir, shell)
	if p == "" {
		return nil
	}
	out := []string{p}
	for _, ext := range []string{".js", ".cjs", ".mjs", ".json", "/index.js"} {
		out = append(out, filepath.Clean(p+ext))
	}
	return out
}

// anyExists reports whether any of the files exists.
func anyExists(files []string) bool {
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

// moduleFiles are the workspace files a module option (node -r, perl -M,
// python -m, ruby -r) may load, or, when it names a module found at run time
// in no directory of the workspace, a note saying it is not covered.
func moduleFiles(m string, run shellread.ScriptRun, root, dir string, shell bool) (files []string, note string) {
	switch run.Lang {
	case "node", "ruby":
		if strings.HasPrefix(m, "./") || strings.HasPrefix(m, "../") || strings.HasPrefix(m, "/") || strings.HasPrefix(m, "$") {
			if run.Lang == "node" {
				return nodeCandidates(m, root, dir, shell), ""
			}
			if p := wordPath(m, root, dir, shell); p != "" {
				return []string{p, p + ".rb"}, ""
			}
		}
		return nil, fmt.Sprintf("%s loads the module %q found at run time (node_modules, gems): not covered", run.Name, m)
	case "perl":
		mod := strings.TrimPrefix(m, "-")
		mod, _, _ = strings.Cut(mod, "=")
		mod, _, _ = strings.Cut(mod, " ")
		rel := strings.ReplaceAll(mod, "::", "/") + ".pm"
		for _, inc := range run.Includes {
			if p := wordPath(filepath.Join(inc, rel), root, dir, shell); p != "" {
				files = append(files, p)
			}
		}
		if anyExists(files) || mod != "" && mod[0] >= 'a' && mod[0] <= 'z' && mod != "lib" {
			return files, "" // found in the workspace, or a pragma (strict, warnings)
		}
		return files, fmt.Sprintf("%s -M%s: a module found in @INC outside the -I directories is not covered", run.Name, mod)
	case "python":
		rel := strings.ReplaceAll(m, ".", "/")
		if p := wordPath(rel, root, dir, shell); p != "" {
			files = append(files, p+".py", filepath.Join(p, "__main__.py"), filepath.Join(p, "__init__.py"))
			// the packages it is in run their __init__.py first
			for pkg := filepath.Dir(p); pkg != dir && within(dir, pkg); pkg = filepath.Dir(pkg) {
				files = append(files, filepath.Join(pkg, "__init__.py"))
			}
			if anyExists(files[:2]) {
				return files, "" // found in the workspace, which Python looks in first
			}
		}
		return files, fmt.Sprintf("%s -m %s: a module found outside the hook's directory (an installed package) is not covered", run.Name, m)
	}
	return nil, ""
}

// wordPath turns a word that names a file into an absolute path, relative
// words from the hook's directory; "" when the word needs the shell to
// expand it. The project directory variables and ~/ are expanded as the
// shell would.
func wordPath(w, root, dir string, shell bool) string {
	if shell {
		base := "" // what the word's prefix expands to; the shell reads no further into it
		for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$WAVE_PROJECT_DIR", "${WAVE_PROJECT_DIR}"} {
			if rest, ok := strings.CutPrefix(w, v); ok && (rest == "" || rest[0] == '/') {
				base, w = root, rest
				break
			}
		}
		if rest, ok := strings.CutPrefix(w, "~/"); ok && base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base, w = home, "/"+rest
		}
		if strings.ContainsAny(w, "$`*?[~") {
			return ""
		}
		w = base + w
	}
	if w == "" {
		return ""
	}
	if !filepath.IsAbs(w) {
		w = filepath.Join(dir, w)
	}
	return filepath.Clean(w)
}

// fileState is what the trust hash records of one file a workspace hook
// runs: its contents' hash, or why there are none to hash.
type fileState struct {
	// Path is the file as the hook names it (absolute, symlinks not
	// resolved); Rel is the same relative to the project root, as shown.
	Path, Rel string
	// State is "sha256:<hex>", "absent", "outside the project: <real path>"
	// or "not a regular file".
	State string

	// maybe marks a file the hook runs only if it exists (runFiles.maybe).
	maybe bool

	key   proc.StatKey // the file's identity and times when it was hashed
	racy  bool         // changed too shortly before it was hashed for key to prove it unchanged
	valid bool         // key was read
}

// stateAbsent is the State of a file that does not exist.
const stateAbsent = "absent"

// covered reports whether the trust covers what the file holds: its
// contents are hashed, or it does not exist (creating it asks again).
func (f fileState) covered() bool {
	return strings.HasPrefix(f.State, "sha256:") || f.State == stateAbsent
}

// workspaceFile fingerprints a file a workspace hook runs, or reports false
// when it is no workspace file: it neither lies in the project root as
// written nor resolves into it. A path in the root that resolves out of it
// (a symlink pointing out) is recorded with where it points, so that
// retargeting the link needs trust again, though what it points to is not
// covered.
func workspaceFile(path, root, realRoot string, prev *fileState) (fileState, bool) {
	lexical := within(root, path)
	real, err := filepath.EvalSymlinks(path)
	if err != nil && !lexical {
		return fileState{}, false
	}
	rel, _ := filepath.Rel(root, path)
	if !lexical {
		rel = path
	}
	f := fileState{Path: path, Rel: filepath.ToSlash(rel)}
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR): // x.js/index.js where x.js is a file
		f.State = stateAbsent
		return f, true
	case err != nil:
		f.State = "unreadable: " + err.Error()
		return f, true
	case !within(realRoot, real):
		if !lexical {
			return fileState{}, false
		}
		f.State = "outside the project: " + real
		return f, true
	}
	f.State, f.key, f.racy, f.valid = hashFile(real, prev)
	return f, true
}

// hashFile hashes a regular file's contents. When prev recorded the same
// file, unchanged by its identity, size and times, and not racy, its hash is
// reused without reading the file again.
func hashFile(path string, prev *fileState) (state string, key proc.StatKey, racy, valid bool) {
	start := time.Now()
	// O_NONBLOCK: opening a FIFO planted where a script was must not hang the server.
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "unreadable: " + err.Error(), key, false, false
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return "unreadable: " + err.Error(), key, false, false
	}
	if !st.Mode().IsRegular() {
		return "not a regular file", key, false, false
	}
	key, valid = proc.StatKeyOf(st)
	if valid && prev != nil && prev.valid && !prev.racy && prev.key == key {
		return prev.State, key, false, true
	}
	sum := sha256.New()
	n, err := io.Copy(sum, io.LimitReader(file, maxTrustedFileBytes))
	if err != nil {
		return "unreadable: " + err.Error(), key, false, false
	}
	state = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	if st.Size() > n {
		state += fmt.Sprintf(" of the first %d bytes of %d", n, st.Size())
	}
	// A change within the file system's time granularity of the read could
	// leave size and times as they were: such a file is hashed again on
	// every check (as git treats "racily clean" files).
	racy = valid && key.Changed.After(start.Add(-racyWindow))
	return state, key, racy, valid
}

// within reports whether p is dir or lies under it (both clean and absolute).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
