package hooks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wavehooks/wavehooks/internal/shellread"
)

// This file keeps the env-file reader as it was before it read through
// internal/shellread (its own lexer, envParser.word): FuzzEnvFileReaders
// compares the two, and the cases where they differ on purpose are listed
// there and in docs/hooks.md. It is test code only.

// refParseEnvFile reads the variables a CLAUDE_ENV_FILE sets, without running
// anything: Claude Code sources the file in the shell of each later Bash
// command, but here the values go to the editor, so only what can be read
// for certain is taken. That is `export NAME=value`, `declare -x NAME=value`
// and `NAME=value` statements (several per line, `;` between statements,
// comments), with '…', "…" and $'…' quoting, backslash escapes, a leading ~,
// and $NAME, ${NAME} and ${NAME:-default} expanded from the variables set
// before and then from lookup (the hook's environment). `unset NAME` takes
// back a variable the file set. Anything else — commands, $(…), backticks,
// arithmetic — is not run; each such statement is a problem, by line.
func refParseEnvFile(text string, lookup func(string) (string, bool)) (vars []EnvVar, problems []string) {
	p := &refEnvParser{src: text, lookup: lookup, line: 1, set: map[string]int{}}
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
		stmt := strings.Join(refWordTexts(words), " ")
		if bad := refFirstUnsafe(words); bad != "" {
			problems = append(problems, fmt.Sprintf("line %d: %s is not run, so `%s` was not applied", line, bad, refClipStatement(stmt)))
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
			if !refIsAssignment(words[0]) || !refAllAssignments(words) {
				problems = append(problems, fmt.Sprintf("line %d: `%s` is not an assignment and was not run", line, refClipStatement(stmt)))
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

func refWordTexts(ws []refEnvWord) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.raw
	}
	return out
}

func refClipStatement(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func refIsAssignment(w refEnvWord) bool {
	name, _, ok := strings.Cut(w.text, "=")
	return ok && w.nameUnquoted && envNameRE.MatchString(name)
}

func refAllAssignments(ws []refEnvWord) bool {
	for _, w := range ws {
		if !refIsAssignment(w) {
			return false
		}
	}
	return true
}

func refFirstUnsafe(ws []refEnvWord) string {
	for _, w := range ws {
		if w.unsafe != "" {
			return w.unsafe
		}
	}
	return ""
}

// refEnvWord is one shell word of an env file: its value after quote removal
// and expansion, as written, and what in it cannot be read without running it.
type refEnvWord struct {
	text, raw string
	// nameUnquoted: the word starts with NAME= written without quotes, which
	// is what makes it an assignment in a shell.
	nameUnquoted bool
	unsafe       string
}

// mark records why the word cannot be read without running it; the first
// reason is the one reported.
func (w *refEnvWord) mark(why string) {
	if w.unsafe == "" {
		w.unsafe = why
	}
}

type refEnvParser struct {
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
func (p *refEnvParser) statement() ([]refEnvWord, int, error) {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\r') {
		p.i++
	}
	if p.i >= len(p.src) {
		return nil, p.line, nil
	}
	start := p.line
	words := []refEnvWord{}
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
func (p *refEnvParser) word() (refEnvWord, error) {
	begin := p.i
	var b strings.Builder
	w := refEnvWord{}
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
func (p *refEnvParser) count(s string) { p.line += strings.Count(s, "\n") }

// get looks a variable up: the file's own first, then the environment.
func (p *refEnvParser) get(name string) (string, bool) {
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
func (p *refEnvParser) dollar(b *strings.Builder, w *refEnvWord) {
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
func (p *refEnvParser) ansiC() (string, error) {
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
				digits, base = refTakeDigits(p.src[p.i:], 2, 16), 16
			case e >= '0' && e <= '7':
				p.i--
				digits, base = refTakeDigits(p.src[p.i:], 3, 8), 8
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

func refTakeDigits(s string, limit, base int) string {
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
