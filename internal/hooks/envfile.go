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
// arithmetic — is not run; each such statement is a problem, by line.
func parseEnvFile(text string, lookup func(string) (string, bool)) (vars []EnvVar, problems []string) {
	p := &envParser{src: text, lookup: lookup, line: 1, set: map[string]int{}}
	for {
		words, line, err := p.statement()
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %v; the rest of the file is ignored", line, err))
			break
		}
		if words == nil {
			break
		}
		if len(words) == 0 {
			continue
		}
		stmt := strings.Join(wordTexts(words), " ")
		if bad := firstUnsafe(words); bad != "" {
			problems = append(problems, fmt.Sprintf("line %d: %s is not run, so `%s` was not applied", line, bad, clipStatement(stmt)))
			continue
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
				if strings.HasPrefix(w.text, "-") {
					continue
				}
				if i, ok := p.set[w.text]; ok {
					p.vars = append(p.vars[:i], p.vars[i+1:]...)
					delete(p.set, w.text)
					for k, j := range p.set {
						if j > i {
							p.set[k] = j - 1
						}
					}
				} else {
					problems = append(problems, fmt.Sprintf("line %d: `unset %s` only takes back a variable this file set; %s stays as it is", line, w.text, w.text))
				}
			}
			continue
		default:
			if !isAssignment(words[0]) || !allAssignments(words) {
				problems = append(problems, fmt.Sprintf("line %d: `%s` is not an assignment and was not run", line, clipStatement(stmt)))
				continue
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
	}
	return p.vars, problems
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
	i      int
	line   int
	lookup func(string) (string, bool)
	// vars are the variables set so far, in order; set indexes them by name.
	vars []EnvVar
	set  map[string]int
}

// statement reads the words up to the next unquoted newline or ";"; nil
// words means the end of the text.
func (p *envParser) statement() ([]envWord, int, error) {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\r') {
		p.i++
	}
	if p.i >= len(p.src) {
		return nil, p.line, nil
	}
	start := p.line
	words := []envWord{}
	for p.i < len(p.src) {
		switch c := p.src[p.i]; c {
		case ' ', '\t', '\r':
			p.i++
		case '\n', ';':
			if c == '\n' {
				p.line++
			}
			p.i++
			return words, start, nil
		case '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			w, err := p.word()
			if err != nil {
				return nil, start, err
			}
			words = append(words, w)
		}
	}
	return words, start, nil
}

// word reads one word.
func (p *envParser) word() (envWord, error) {
	begin := p.i
	var b strings.Builder
	w := envWord{}
	nameEnd := -1 // where NAME= ends, when the word starts with an unquoted NAME=
	for j := p.i; j < len(p.src); j++ {
		if p.src[j] == '=' {
			if envNameRE.MatchString(p.src[p.i:j]) {
				nameEnd = j + 1
			}
			break
		}
		if !shellread.IsNameByte(p.src[j]) {
			break
		}
	}
	if nameEnd > 0 {
		w.nameUnquoted = true
		b.WriteString(p.src[p.i:nameEnd])
		p.i = nameEnd
		if p.i < len(p.src) && p.src[p.i] == '~' {
			if home, ok := p.get("HOME"); ok {
				b.WriteString(home)
				p.i++
			}
		}
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';':
			w.text, w.raw = b.String(), p.src[begin:p.i]
			return w, nil
		case c == '\\':
			if p.i+1 < len(p.src) && p.src[p.i+1] != '\n' {
				b.WriteByte(p.src[p.i+1])
			}
			p.i += 2
		case c == '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return w, fmt.Errorf("unterminated '")
			}
			b.WriteString(p.src[p.i+1 : p.i+1+end])
			p.count(p.src[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			p.i++
			closed := false
			for p.i < len(p.src) && !closed {
				switch d := p.src[p.i]; {
				case d == '"':
					closed = true
					p.i++
				case d == '\\' && p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0:
					if p.src[p.i+1] != '\n' {
						b.WriteByte(p.src[p.i+1])
					}
					p.i += 2
				case d == '$':
					p.dollar(&b, &w)
				case d == '`':
					w.mark("command substitution (`…`)")
					p.i++
				default:
					if d == '\n' {
						p.line++
					}
					b.WriteByte(d)
					p.i++
				}
			}
			if !closed {
				return w, fmt.Errorf(`unterminated "`)
			}
		case c == '$' && p.i+1 < len(p.src) && p.src[p.i+1] == '\'':
			s, err := p.ansiC()
			if err != nil {
				return w, err
			}
			b.WriteString(s)
		case c == '$':
			p.dollar(&b, &w)
		case c == '`':
			w.mark("command substitution (`…`)")
			p.i++
		case c == '(' || c == ')' || c == '|' || c == '&' || c == '<' || c == '>':
			w.mark(fmt.Sprintf("%q (a shell operator)", string(c)))
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	w.text, w.raw = b.String(), p.src[begin:p.i]
	return w, nil
}

// count keeps the line number right across quoted newlines.
func (p *envParser) count(s string) { p.line += strings.Count(s, "\n") }

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

// dollar expands $NAME, ${NAME} or ${NAME:-word} at p.i; $(…) and other
// expansions make the word unsafe.
func (p *envParser) dollar(b *strings.Builder, w *envWord) {
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "$(("):
		w.mark("arithmetic ($((…)))")
		p.i += 3
	case strings.HasPrefix(rest, "$("):
		w.mark("command substitution ($(…))")
		p.i += 2
	case strings.HasPrefix(rest, "${"):
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			w.mark("an unterminated ${")
			p.i = len(p.src)
			return
		}
		expr := rest[2:end]
		p.i += end + 1
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
	default:
		n := 1
		for n < len(rest) && shellread.IsNameByte(rest[n]) {
			n++
		}
		if n == 1 {
			if len(rest) > 1 && strings.IndexByte("?!#*@$-0123456789", rest[1]) >= 0 {
				w.mark(fmt.Sprintf("the special parameter $%c", rest[1]))
				p.i += 2
				return
			}
			b.WriteByte('$')
			p.i++
			return
		}
		v, _ := p.get(rest[1:n])
		b.WriteString(v)
		p.i += n
	}
}

// ansiC reads $'…' with its backslash escapes.
func (p *envParser) ansiC() (string, error) {
	var b strings.Builder
	p.i += 2
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\'':
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.src):
			e := p.src[p.i+1]
			p.i += 2
			if r, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11,
				'\\': '\\', '\'': '\'', '"': '"', '?': '?'}[e]; ok {
				b.WriteByte(r)
				continue
			}
			digits, base := "", 0
			switch {
			case e == 'x':
				digits, base = takeDigits(p.src[p.i:], 2, 16), 16
			case e >= '0' && e <= '7':
				p.i--
				digits, base = takeDigits(p.src[p.i:], 3, 8), 8
			}
			if base == 0 || digits == "" {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(digits, base, 8)
			b.WriteByte(byte(v))
			p.i += len(digits)
		default:
			if c == '\n' {
				p.line++
			}
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("unterminated $'")
}

func takeDigits(s string, limit, base int) string {
	digits := "01234567"
	if base == 16 {
		digits = "0123456789abcdefABCDEF"
	}
	n := 0
	for n < len(s) && n < limit && strings.IndexByte(digits, s[n]) >= 0 {
		n++
	}
	return s[:n]
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
