package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/shellread"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// This file closes the window between hashing a trusted workspace script
// and the shell opening it by path: where a hook runs a workspace shell
// script directly, the script is read once, those bytes are checked
// against the hash the user trusted, and the hook runs exactly them, from a
// sealed in-memory file, not the path (docs/security.md, "Workspace trust",
// says which forms and what window remains for the others).

// pinnedFD is the descriptor the child finds the sealed script on: the
// first of exec.Cmd.ExtraFiles.
const pinnedFD = "/dev/fd/3"

// scriptShells are the shells a pinned script may be given to: each runs
// `SHELL -c '. /dev/fd/3' NAME ARGS…` as it would run the script itself,
// with $0 the script's name as written and $1… its arguments. (zsh and ksh
// set $0 to the sourced file's name: their scripts run by path.)
var scriptShells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "posh": true}

// scriptForm is a hook that runs one workspace script directly, as
// directScript reads it.
type scriptForm struct {
	// path is the script, absolute, as the trust records it.
	path string
	// word is the script as the hook names it: $0 of the script.
	word string
	// shell and shellOpts are the shell and its options when the hook
	// gives the script to one (bash -e x.sh); "" when it runs the script as
	// the program (./x.sh), whose first line then says what runs it.
	shell     string
	shellOpts []string
	// args are the script's arguments.
	args []string
	// checkOnly is set when another interpreter is given the script by
	// path (python3 x.py): its contents are checked just before it runs,
	// and it runs by path.
	checkOnly bool
}

// directScript reports whether a hook runs one workspace script directly:
// the exec form's program (./x.sh, ${CLAUDE_PROJECT_DIR}/x.sh) or the
// script the exec form gives a shell (sh x.sh), or a shell command line
// that is only that (./x.sh a b, "$CLAUDE_PROJECT_DIR"/x.sh, bash x.sh)
// with no redirection, pipe, variable, glob or second command.
func directScript(h *settings.Hook, root string) (scriptForm, bool) {
	if h.Type != "" && h.Type != settings.TypeCommand {
		return scriptForm{}, false
	}
	dir := filepath.Join(root, h.Cwd)
	var words []string
	shell := h.Args == nil
	if shell {
		if h.Shell != "" && h.Shell != "sh" && h.Shell != "bash" {
			return scriptForm{}, false
		}
		n := 0
		bad := false
		_, err := shellread.ReadSimpleCommands(h.Command, true, 0, func(c shellread.SimpleCommand, depth int) error {
			n++
			words = c.Words
			bad = bad || depth > 0 || c.Redirected || c.Piped
			return nil
		})
		// Only the project directory may be expanded ($'…' and the like are
		// read differently by different shells).
		rest := h.Command
		for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${WAVE_PROJECT_DIR}", "$WAVE_PROJECT_DIR"} {
			rest = strings.ReplaceAll(rest, v, "")
		}
		if err != nil || n != 1 || bad || strings.ContainsAny(rest, "$&|;`\n") {
			return scriptForm{}, false
		}
		for _, w := range words[1:] {
			if strings.ContainsAny(w, "$`*?[]~{}") {
				return scriptForm{}, false
			}
		}
	} else {
		prog, args := settings.ExecForm(h, root)
		words = append([]string{prog}, args...)
	}
	if len(shellread.StripPrefixWords(words, shell)) != len(words) {
		return scriptForm{}, false
	}
	if strings.ContainsRune(words[0], '/') {
		p := wordPath(words[0], root, dir, shell)
		if p == "" {
			return scriptForm{}, false
		}
		word := words[0]
		if shell {
			word = substituteVarPrefix(word, root)
		}
		return scriptForm{path: p, word: word, args: words[1:]}, true
	}
	run := shellread.InterpreterScript(words, shell)
	if run.Script == "" || len(run.Modules) > 0 || run.Index == 0 || run.Node {
		return scriptForm{}, false
	}
	p := wordPath(run.Script, root, dir, shell)
	if p == "" {
		return scriptForm{}, false
	}
	word := run.Script
	if shell {
		word = substituteVarPrefix(word, root)
	}
	opts := words[1:run.Index]
	if len(opts) > 0 && opts[len(opts)-1] == "--" {
		opts = opts[:len(opts)-1]
	}
	form := scriptForm{path: p, word: word, shell: words[0], shellOpts: opts, args: words[run.Index+1:]}
	if !scriptShells[run.Name] {
		form.shell, form.shellOpts, form.checkOnly = "", nil, true // python3 x.py: checked, then run by path
	}
	return form, true
}

// substituteVarPrefix writes the project directory where a word begins with
// its variable, as the shell would expand it.
func substituteVarPrefix(w, root string) string {
	for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$WAVE_PROJECT_DIR", "${WAVE_PROJECT_DIR}"} {
		if rest, ok := strings.CutPrefix(w, v); ok && (rest == "" || rest[0] == '/') {
			return root + rest
		}
	}
	return w
}

// Pin prepares a trusted workspace hook to run the script bytes the user
// trusted. It returns nil with no error when the hook runs no workspace
// script directly, or runs one in a way that cannot be pinned (a script
// whose first line names no shell, another interpreter, Windows): that hook
// runs as configured, its script checked just before.
// It returns an error, and the hook must not run, when the script is no
// longer what was trusted.
func (l *Loaded) Pin(h *settings.Hook) (*proc.PinnedRun, error) {
	if l == nil || !l.Trusted || !h.Source.FromWorkspace() || l.root == "" {
		return nil, nil
	}
	form, ok := directScript(h, l.root)
	if !ok {
		return nil, nil
	}
	var trusted *fileState
	for i := range l.files {
		if l.files[i].Path == form.path {
			trusted = &l.files[i]
		}
	}
	if trusted == nil || !strings.HasPrefix(trusted.State, "sha256:") || strings.Contains(trusted.State, " of the first ") {
		return nil, nil // not a script whose whole contents the trust holds
	}
	content, executable, err := readScript(form.path, l.root, l.real)
	if err != nil {
		l.stale.Store(true)
		return nil, fmt.Errorf("%s cannot be read (%v); it must be trusted again", trusted.Rel, err)
	}
	sum := sha256.Sum256(content)
	if "sha256:"+hex.EncodeToString(sum[:]) != trusted.State {
		l.stale.Store(true)
		return nil, fmt.Errorf("%s changed since the workspace was trusted; it must be trusted again", trusted.Rel)
	}
	argv := form.shellArgv(content)
	if argv == nil || form.checkOnly || runtime.GOOS == "windows" || form.shell == "" && !executable {
		// another interpreter, no /dev/fd, or a script run as the program
		// that is not executable (it fails as it would have)
		return nil, nil
	}
	// A memfd, sealed; where there is none, an unlinked temporary file of
	// ours (mode 0600), which no path leads to.
	f, err := proc.NewMemFile("wavehooks-script")
	if err != nil {
		return nil, nil
	}
	if _, err := f.Write(content); err != nil {
		_ = f.Close()
		return nil, nil
	}
	proc.SealScript(f)
	if _, err := f.Seek(0, io.SeekStart); err != nil { // where /dev/fd/3 shares the offset (macOS)
		_ = f.Close()
		return nil, nil
	}
	return &proc.PinnedRun{Argv: argv, Script: f}, nil
}

// shellArgv is how a shell runs the pinned script as it would run the
// file: `SHELL [OPTIONS] -c '. /dev/fd/3' NAME ARGS…`. For a script run as
// the program, the shell and its option come from its #! line; nil when
// that names no shell, or the script reads BASH_SOURCE (which would name
// the copy, not the file).
func (f scriptForm) shellArgv(content []byte) []string {
	if bytes.Contains(content, []byte("BASH_SOURCE")) {
		return nil // it finds itself by BASH_SOURCE, which would name /dev/fd/3: it runs by path
	}
	shell, opts := f.shell, f.shellOpts
	if shell == "" {
		interp, arg, ok := shebang(content)
		if !ok {
			return nil
		}
		if filepath.Base(interp) == "env" {
			interp, arg = arg, ""
		}
		if !scriptShells[filepath.Base(interp)] || strings.ContainsAny(arg, " \t") {
			return nil
		}
		shell = interp
		if arg != "" {
			opts = []string{arg}
		}
	}
	argv := append([]string{shell}, opts...)
	argv = append(argv, "-c", ". "+pinnedFD, f.word)
	return append(argv, f.args...)
}

// shebang reads a script's #! line: the interpreter and its one argument.
func shebang(content []byte) (interp, arg string, ok bool) {
	if !bytes.HasPrefix(content, []byte("#!")) {
		return "", "", false
	}
	line := content[2:]
	if nl := bytes.IndexByte(line, '\n'); nl >= 0 {
		line = line[:nl]
	}
	fields := strings.Fields(strings.TrimSuffix(string(line), "\r"))
	switch len(fields) {
	case 0:
		return "", "", false
	case 1:
		return fields[0], "", true
	}
	return fields[0], strings.Join(fields[1:], " "), true
}

// readScript reads a workspace script once, whole: a regular file that
// resolves inside the project and is no larger than the trust reads; and
// whether it may be run as a program.
func readScript(path, root, realRoot string) (content []byte, executable bool, err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, false, err
	}
	if !within(realRoot, real) && !within(root, real) {
		return nil, false, fmt.Errorf("it now resolves outside the project")
	}
	file, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(file, maxTrustedFileBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > maxTrustedFileBytes {
		return nil, false, fmt.Errorf("larger than %d bytes", maxTrustedFileBytes)
	}
	return b, st.Mode().Perm()&0o111 != 0, nil
}
