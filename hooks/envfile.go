package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/shellread"
)

// envFileEvents are the events whose hooks get CLAUDE_ENV_FILE, a file they
// may write `export NAME=value` lines to. Claude Code also gives it to Setup,
// CwdChanged and FileChanged hooks, events wavehooks does not have.
var envFileEvents = map[event.Event]bool{event.SessionStart: true, event.Setup: true, event.CwdChanged: true, event.FileChanged: true}

// EnvVar is one variable a hook set through CLAUDE_ENV_FILE.
type EnvVar struct {
	Name, Value string
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseEnvFile reads the variables a CLAUDE_ENV_FILE sets, without running
// anything: Claude Code sources the file in the shell of each later Bash
// command, but here the values go to the editor, so only what can be read
// for certain is taken. That is `export NAME=value`, `declare -x NAME=value`
// and `NAME=value` statements (several per line, `;` between statements,
// comments), with '…', "…" and $'…' quoting, backslash escapes, a leading ~,
// and $NAME, ${NAME} and ${NAME:-default} expanded from the variables set
// before and then from lookup (the hook's environment). `unset NAME` takes
// back a variable the file set. Anything else — commands, $(…), backticks,
// arithmetic, operators — is not run; each such statement is a problem, by
// line. The file is read by shellread.Tokens, the reader trust and the "if"
// rules use; this expands its words.
func parseEnvFile(text string, lookup func(string) (string, bool)) (vars []EnvVar, problems []string) {
	p := &envParser{src: text, lookup: lookup, set: map[string]int{}, lineAt: 0, line: 1}
	var stmt []shellread.Token
	err := shellread.Tokens(text, shellread.TokenOptions{CRIsBlank: true}, func(t shellread.Token) error {
		if t.Kind == shellread.Separator && (t.Text == ";" || t.Text == "\n") {
			problems = p.statement(stmt, problems)
			stmt = stmt[:0]
			return nil
		}
		stmt = append(stmt, t)
		return nil
	})
	var open *shellread.UnterminatedError
	if errors.As(err, &open) {
		at := open.Offset
		if len(stmt) > 0 {
			at = stmt[0].Start
		}
		return p.vars, append(problems, fmt.Sprintf("line %d: unterminated %s; the rest of the file is ignored", p.lineOf(at), open.Open))
	}
	return p.vars, p.statement(stmt, problems)
}

// statement applies one statement's tokens, or adds why it was not.
func (p *envParser) statement(toks []shellread.Token, problems []string) []string {
	if len(toks) == 0 {
		return problems
	}
	line := p.lineOf(toks[0].Start)
	words := p.words(toks)
	stmt := strings.Join(wordTexts(words), " ")
	if bad := firstUnsafe(words); bad != "" {
		return append(problems, fmt.Sprintf("line %d: %s is not run, so `%s` was not applied", line, bad, clipStatement(stmt)))
	}
	assigns, exported := words, false
	switch first := words[0].text; {
	case first == "export" || first == "declare" || first == "typeset":
		exported = true // the builtin reads NAME=value itself: quotes around it do not matter
		assigns = words[1:]
		for len(assigns) > 0 && strings.HasPrefix(assigns[0].text, "-") {
			assigns = assigns[1:] // export -n is rare; declare -x, -gx
		}
	case first == "unset":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w.text, "-") && !p.unset(w.text) {
				problems = append(problems, fmt.Sprintf("line %d: `unset %s` only takes back a variable this file set; %s stays as it is", line, w.text, w.text))
			}
		}
		return problems
	default:
		if !isAssignment(words[0]) || !allAssignments(words) {
			return append(problems, fmt.Sprintf("line %d: `%s` is not an assignment and was not run", line, clipStatement(stmt)))
		}
	}
	for _, w := range assigns {
		name, value, ok := strings.Cut(w.text, "=")
		if !ok || !(w.nameUnquoted || exported) || !envNameRE.MatchString(name) {
			if !ok && envNameRE.MatchString(w.text) {
				continue // `export NAME` exports a variable; it sets nothing
			}
			problems = append(problems, fmt.Sprintf("line %d: %q is not NAME=value and was ignored", line, w.text))
			continue
		}
		if i, ok := p.set[name]; ok {
			p.vars[i].Value = value
		} else {
			p.set[name] = len(p.vars)
			p.vars = append(p.vars, EnvVar{name, value})
		}
	}
	return problems
}

// unset takes back a variable the file set, and reports whether it had.
func (p *envParser) unset(name string) bool {
	i, ok := p.set[name]
	if !ok {
		return false
	}
	p.vars = append(p.vars[:i], p.vars[i+1:]...)
	delete(p.set, name)
	for k, j := range p.set {
		if j > i {
			p.set[k] = j - 1
		}
	}
	return true
}

func wordTexts(ws []envWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.raw
	}
	return out
}

func clipStatement(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func isAssignment(w envWord) bool {
	name, _, ok := strings.Cut(w.text, "=")
	return ok && w.nameUnquoted && envNameRE.MatchString(name)
}

func allAssignments(ws []envWord) bool {
	for _, w := range ws {
		if !isAssignment(w) {
			return false
		}
	}
	return true
}

func firstUnsafe(ws []envWord) string {
	for _, w := range ws {
		if w.unsafe != "" {
			return w.unsafe
		}
	}
	return ""
}

// envWord is one shell word of an env file: its value after quote removal
// and expansion, as written, and what in it cannot be read without running it.
type envWord struct {
	text, raw string
	// nameUnquoted: the word starts with NAME= written without quotes, which
	// is what makes it an assignment in a shell.
	nameUnquoted bool
	unsafe       string
}

// mark records why the word cannot be read without running it; the first
// reason is the one reported.
func (w *envWord) mark(why string) {
	if w.unsafe == "" {
		w.unsafe = why
	}
}

type envParser struct {
	src    string
	lookup func(string) (string, bool)
	// vars are the variables set so far, in order; set indexes them by name.
	vars []EnvVar
	set  map[string]int
	// line is the line number at byte lineAt, counted forward as the
	// statements come.
	line, lineAt int
}

// lineOf is the line number of byte at, which is at or after the last asked.
func (p *envParser) lineOf(at int) int {
	p.line += strings.Count(p.src[p.lineAt:at], "\n")
	p.lineAt = at
	return p.line
}

// words turns a statement's tokens into its words: tokens written with
// nothing between them are one word as written (A=1|B=2), and an operator
// in it makes it unsafe, as does a substitution in a word.
func (p *envParser) words(toks []shellread.Token) []envWord {
	var words []envWord
	for i := 0; i < len(toks); {
		j := i + 1
		for j < len(toks) && toks[j].Start == toks[j-1].End {
			j++
		}
		if j == i+1 && toks[i].Kind == shellread.Word {
			words = append(words, p.expand(toks[i]))
			i = j
			continue
		}
		w := envWord{raw: p.src[toks[i].Start:toks[j-1].End]}
		for _, t := range toks[i:j] {
			if t.Kind == shellread.Word {
				w.mark(p.expand(t).unsafe)
			} else {
				w.mark(fmt.Sprintf("%q (a shell operator)", t.Text[:1]))
			}
		}
		words = append(words, w)
		i = j
	}
	return words
}

// expand reads one word: quotes removed, $NAME and ${NAME:-x} expanded, a
// ~ after an unquoted NAME= made $HOME.
func (p *envParser) expand(t shellread.Token) envWord {
	w := envWord{raw: p.src[t.Start:t.End]}
	var b strings.Builder
	for _, part := range t.Parts {
		switch part.Kind {
		case shellread.PartParam:
			p.param(&b, &w, part.Text)
		case shellread.PartCommand:
			if strings.HasPrefix(part.Text, "`") {
				w.mark("command substitution (`…`)")
			} else {
				w.mark("command substitution ($(…))")
			}
		case shellread.PartArith:
			w.mark("arithmetic ($((…)))")
		default:
			b.WriteString(part.Text)
		}
	}
	w.text = b.String()
	n := 0
	for n < len(w.raw) && shellread.IsNameByte(w.raw[n]) {
		n++
	}
	if n < len(w.raw) && w.raw[n] == '=' && envNameRE.MatchString(w.raw[:n]) {
		w.nameUnquoted = true
		if n+1 < len(w.raw) && w.raw[n+1] == '~' && strings.HasPrefix(w.text, w.raw[:n+2]) {
			if home, ok := p.get("HOME"); ok {
				w.text = w.raw[:n+1] + home + w.text[n+2:]
			}
		}
	}
	return w
}

// get looks a variable up: the file's own first, then the environment.
func (p *envParser) get(name string) (string, bool) {
	if i, ok := p.set[name]; ok {
		return p.vars[i].Value, true
	}
	if p.lookup != nil {
		return p.lookup(name)
	}
	return "", false
}

// param expands $NAME, ${NAME} or ${NAME:-word}; a special parameter or
// another ${…} form makes the word unsafe.
func (p *envParser) param(b *strings.Builder, w *envWord, text string) {
	if expr, ok := strings.CutPrefix(text, "${"); ok {
		expr = strings.TrimSuffix(expr, "}")
		name, def, hasDef := strings.Cut(expr, ":-")
		if !envNameRE.MatchString(name) {
			w.mark(fmt.Sprintf("the expansion ${%s}", expr))
			return
		}
		v, ok := p.get(name)
		if hasDef && (!ok || v == "") {
			v = def
		}
		b.WriteString(v)
		return
	}
	if len(text) == 2 && !envNameRE.MatchString(text[1:]) {
		w.mark(fmt.Sprintf("the special parameter $%c", text[1]))
		return
	}
	v, _ := p.get(text[1:])
	b.WriteString(v)
}

// envFileLookup looks variables up in env ("NAME=value" entries, the last
// one winning) and then in the process's environment.
func envFileLookup(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v, true
			}
		}
		return os.LookupEnv(name)
	}
}

// hookEnv is the environment an event's hook processes get beyond the
// server's: what Claude Code sets for its hooks, so that hooks written for
// it find it (docs/parity.md, "Claude Code compatibility details"), and
// for the events of envFileEvents a CLAUDE_ENV_FILE per hook.
type hookEnv struct {
	base []string
	// dir holds the CLAUDE_ENV_FILE of each foreground hook, "" when the
	// event has none.
	dir   string
	event event.Event
}

// claudePID is CLAUDE_PID: the server's process, the same for every hook.
var claudePID = "CLAUDE_PID=" + strconv.Itoa(os.Getpid())

// newHookEnv prepares the environment of an event's hooks.
func newHookEnv(in *event.Input) *hookEnv {
	env := &hookEnv{event: in.Event, base: []string{"CLAUDECODE=1", claudePID}}
	if in.SessionID != "" {
		env.base = append(env.base, "CLAUDE_CODE_SESSION_ID="+in.SessionID)
	}
	if level := in.EffortLevel(); level != "" {
		env.base = append(env.base, "CLAUDE_EFFORT="+level)
	}
	if envFileEvents[in.Event] {
		if dir, err := os.MkdirTemp("", "wavehooks-env-"); err == nil {
			env.dir = dir
		}
	}
	return env
}

// file is the CLAUDE_ENV_FILE of the i-th foreground hook.
func (e *hookEnv) file(i int) string {
	return fmt.Sprintf("%s/%s-hook-%d.sh", e.dir, strings.ToLower(string(e.event)), i)
}

// forJob is the environment of the i-th foreground hook. Its
// CLAUDE_ENV_FILE exists, empty, so that `>>` and `[ -f ]` both work.
func (e *hookEnv) forJob(i int) []string {
	if !envFileEvents[e.event] {
		return e.base
	}
	path := os.DevNull // the directory could not be made: writes go nowhere, a set -u script still runs
	if e.dir != "" {
		if f, err := os.OpenFile(e.file(i), os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_ = f.Close()
			path = e.file(i)
		}
	}
	return append(e.base[:len(e.base):len(e.base)], "CLAUDE_ENV_FILE="+path)
}

// forAsync is the environment of a background hook: its CLAUDE_ENV_FILE is
// /dev/null, since the event's result is sent before it ends.
func (e *hookEnv) forAsync() []string {
	if !envFileEvents[e.event] {
		return e.base
	}
	return append(e.base[:len(e.base):len(e.base)], "CLAUDE_ENV_FILE="+os.DevNull)
}

// MaxEnvFileBytes caps what is read back from one hook's CLAUDE_ENV_FILE:
// the variables it exports go into every later hook's environment, which
// the system caps at a few MiB in all (Linux's ARG_MAX is 2 MiB), so a
// MiB is more than any working file holds. A hook that replaces its file
// with a FIFO, a symlink to /dev/zero or a larger file gets a warning and
// sets nothing (docs/protocol-limits.md, "Files the server reads").
const MaxEnvFileBytes = 1 << 20

// collect reads the foreground hooks' CLAUDE_ENV_FILEs in configuration
// order into res.Env (a later hook's value wins), reports what could not be
// read as warnings, and removes the files.
func (e *hookEnv) collect(res *Result, jobs []job, runnerEnv []string) {
	if e.dir == "" {
		return
	}
	defer os.RemoveAll(e.dir)
	lookup := envFileLookup(append(runnerEnv[:len(runnerEnv):len(runnerEnv)], e.base...))
	set := map[string]string{} // a local, not res.Env: a closure over res would move every event's Result to the heap
	for i, j := range jobs {
		if j.first != i {
			continue
		}
		text, err := safefile.ReadFile(e.file(i), MaxEnvFileBytes)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("CLAUDE_ENV_FILE of `%s` was not read: %s", j.hook.Display(), settings.UnreadableReason(e.file(i), err)))
		}
		if err != nil || len(text) == 0 {
			continue
		}
		vars, problems := parseEnvFile(string(text), func(name string) (string, bool) {
			if v, ok := set[name]; ok {
				return v, true
			}
			return lookup(name)
		})
		for _, p := range problems {
			res.Warnings = append(res.Warnings, fmt.Sprintf("CLAUDE_ENV_FILE of `%s`, %s", j.hook.Display(), p))
		}
		for _, v := range vars {
			set[v.Name] = v.Value
		}
	}
	if len(set) > 0 {
		res.Env = set
	}
}
