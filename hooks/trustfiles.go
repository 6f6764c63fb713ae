package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// filesRun returns the files a hook runs by name, as absolute paths before
// symlinks are resolved: the program when it is written as a path, and the
// script an interpreter is given (bash x.sh, python3 x.py, node x.js,
// source x.sh), in every simple command of a shell command line. Paths the
// shell builds at run time ($VARIABLES other than the project directory,
// globs, command substitution) cannot be known here and are left out.
func filesRun(h *Hook, root string) []string {
	dir := filepath.Join(root, h.Cwd)
	var out []string
	depth := 0 // of sh -c inside sh -c
	var add func(words []string, shell bool)
	add = func(words []string, shell bool) {
		words = stripPrefixWords(words, shell)
		if len(words) == 0 {
			return
		}
		if strings.ContainsRune(words[0], '/') {
			if p := wordPath(words[0], root, dir, shell); p != "" {
				out = append(out, p)
			}
		}
		script, inline := interpreterScript(words, shell)
		if script != "" {
			if p := wordPath(script, root, dir, shell); p != "" {
				out = append(out, p)
			}
		}
		if inline != "" && depth < 8 {
			depth++
			for _, words := range shellCommands(inline) {
				add(words, true)
			}
			depth--
		}
	}
	if h.Args != nil {
		add(append([]string{h.Command}, h.Args...), false)
		return out
	}
	for _, words := range shellCommands(h.Command) {
		add(words, true)
	}
	return out
}

// wordPath turns a word that names a file into an absolute path, relative
// words from the hook's directory; "" when the word needs the shell to
// expand it. The project directory variables and ~/ are expanded as the
// shell would.
func wordPath(w, root, dir string, shell bool) string {
	if shell {
		for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$WAVE_PROJECT_DIR", "${WAVE_PROJECT_DIR}"} {
			if rest, ok := strings.CutPrefix(w, v); ok && (rest == "" || rest[0] == '/') {
				w = root + rest
			}
		}
		if rest, ok := strings.CutPrefix(w, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			w = filepath.Join(home, rest)
		}
		if strings.ContainsAny(w, "$`*?[~") {
			return ""
		}
	}
	if w == "" {
		return ""
	}
	if !filepath.IsAbs(w) {
		w = filepath.Join(dir, w)
	}
	return filepath.Clean(w)
}

// shellPrefixWords are words that run the rest of a simple command (or
// introduce it) without being the program themselves.
var shellPrefixWords = map[string]bool{"!": true, "{": true, "if": true, "then": true, "else": true, "elif": true,
	"do": true, "while": true, "until": true, "exec": true, "command": true, "nohup": true, "time": true}

// stripPrefixWords drops what comes before the program of a simple command:
// variable assignments, env with its options and assignments, and (in a
// shell command) keywords such as if, exec and time.
func stripPrefixWords(words []string, shell bool) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case shell && (shellPrefixWords[w] || assignRE.MatchString(w)):
			words = words[1:]
		case filepath.Base(w) == "env" && len(words) > 1:
			words = words[1:]
			for len(words) > 0 && (strings.HasPrefix(words[0], "-") || assignRE.MatchString(words[0])) {
				if words[0] == "-u" || words[0] == "--unset" || words[0] == "-C" || words[0] == "--chdir" {
					words = words[1:]
				}
				if len(words) > 0 {
					words = words[1:]
				}
			}
		default:
			return words
		}
	}
	return words
}

// interpreter describes a program that runs a script file named by its
// first argument that is not an option.
type interpreter struct {
	// inline options take the code itself (sh -c, python -c, node -e) or
	// a module (python -m): then there is no script file.
	inline map[string]bool
	// inlineLetters are the short options that do the same when clustered (bash -ec '...').
	inlineLetters string
	// valued options take the next word as their value.
	valued map[string]bool
	// subcommand is skipped first when present (deno run x.ts, bun run x.ts).
	subcommand string
	// shell is set for the shells, whose inline code is a command line too.
	shell bool
}

func set(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	shellInterp  = interpreter{inline: set("-c"), inlineLetters: "c", valued: set("-o", "+o", "-O", "+O"), shell: true}
	pythonInterp = interpreter{inline: set("-c", "-m"), inlineLetters: "cm", valued: set("-W", "-X", "--check-hash-based-pycs")}
	nodeInterp   = interpreter{inline: set("-e", "--eval", "-p", "--print"),
		valued: set("-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "-C", "--conditions")}
	scriptInterp = interpreter{inline: set("-e", "-E", "-r"), inlineLetters: "eE", valued: set("-I", "-M", "-x")}
	denoInterp   = interpreter{inline: set("-e", "--eval"), subcommand: "run"}
	bunInterp    = interpreter{inline: set("-e", "--eval", "-p", "--print"), subcommand: "run"}
	luaInterp    = interpreter{inline: set("-e"), inlineLetters: "e", valued: set("-l")}
)

var versionedInterpRE = regexp.MustCompile(`^(python|pypy|lua|ruby|perl|php)[0-9.]*$`)

// interpreterOf returns how the named program takes its script, if it is an interpreter.
func interpreterOf(name string) (interpreter, bool) {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish":
		return shellInterp, true
	case "node", "nodejs", "tsx", "ts-node":
		return nodeInterp, true
	case "deno":
		return denoInterp, true
	case "bun":
		return bunInterp, true
	case "luajit":
		return luaInterp, true
	}
	if m := versionedInterpRE.FindStringSubmatch(name); m != nil {
		switch m[1] {
		case "python", "pypy":
			return pythonInterp, true
		case "lua":
			return luaInterp, true
		default:
			return scriptInterp, true
		}
	}
	return interpreter{}, false
}

// interpreterScript returns the script file an interpreter command runs
// (bash x.sh, python3 -u x.py, node x.js, deno run x.ts, source x.sh, . x.sh),
// or, for a shell given its commands (sh -c '...'), those commands as
// inline; both are "" when the program is no interpreter or runs code
// given inline in another language (python -c, node -e).
func interpreterScript(words []string, shell bool) (script, inline string) {
	name := filepath.Base(words[0])
	if shell && (words[0] == "source" || words[0] == ".") {
		if len(words) > 1 {
			return words[1], ""
		}
		return "", ""
	}
	in, ok := interpreterOf(name)
	if !ok {
		return "", ""
	}
	i := 1
	if in.subcommand != "" && i < len(words) && words[i] == in.subcommand {
		i++
	}
	for ; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			i++
			break
		}
		if w == "-" || !(strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") && in.valued[w]) {
			break
		}
		optName, _, _ := strings.Cut(w, "=")
		if in.inline[optName] || isFlagCluster(w) && strings.ContainsAny(w[1:], in.inlineLetters) {
			if in.shell && i+1 < len(words) {
				return "", words[i+1] // the shell's commands: they may run workspace files in turn
			}
			return "", ""
		}
		if in.valued[w] {
			i++
		}
	}
	if i < len(words) && words[i] != "-" {
		return words[i], ""
	}
	return "", ""
}

// isFlagCluster reports whether w is a few single-letter options written
// together (-ec, -Bc), as opposed to one option with its value (-Wignore).
func isFlagCluster(w string) bool {
	if len(w) < 2 || len(w) > 4 || w[0] != '-' || w[1] == '-' {
		return false
	}
	for _, r := range w[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// shellCommands splits a shell command line into the words of its simple
// commands, as readShell (shellread.go) reads them: quotes and backslashes
// removed as sh would (but nothing expanded), the targets of redirections
// left out, comments dropped; the commands of substitutions ($(…),
// backticks, <(…)) come when they are met, before the command that holds
// them. It reads any line (compound statements, here-documents, an
// unterminated quote: what comes before it): it only has to find the words
// that name files to run.
func shellCommands(s string) [][]string {
	var cmds [][]string
	_, _ = readCommands(s, false, 0, func(words []string, _ int) error {
		cmds = append(cmds, words)
		return nil
	})
	return cmds
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

	key   statKey // the file's identity and times when it was hashed
	racy  bool    // changed too shortly before it was hashed for key to prove it unchanged
	valid bool    // key was read
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
	case errors.Is(err, fs.ErrNotExist):
		f.State = "absent"
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
func hashFile(path string, prev *fileState) (state string, key statKey, racy, valid bool) {
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
	key, valid = statKeyOf(st)
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
	racy = valid && key.changed.After(start.Add(-racyWindow))
	return state, key, racy, valid
}

// within reports whether p is dir or lies under it (both clean and absolute).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
