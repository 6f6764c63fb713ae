package hooks

import (
	"errors"
	"regexp"
	"strings"
)

// splitShell splits a shell command line into its simple commands, each as
// its words joined by single spaces with quotes removed, redirections and
// leading VAR=value assignments dropped: what an "if" rule like "Bash(git *)"
// is compared with. Commands inside $(…), backticks and <(…) are listed
// too, and complex says the line had one of those or a $VAR expansion,
// whose value no rule can know. Compound statements (if, for, while, case,
// functions, here-documents) and unbalanced quotes are an error: the caller
// runs the hook then, as Claude Code does with a command it cannot parse.
//
// It is a reader for matching, not a shell: nothing is expanded or run.
func splitShell(line string) (cmds []string, complex bool, err error) {
	p := &shellSplitter{src: line}
	if err := p.run(); err != nil {
		return nil, false, err
	}
	return p.cmds, p.complex, nil
}

type shellSplitter struct {
	src     string
	i       int
	cmds    []string
	argvs   [][]string // the words of each command in cmds, at this level only
	complex bool
	depth   int

	words   []string // the current simple command
	word    strings.Builder
	inWord  bool
	skipTgt bool // the next word is a redirection's target
}

var (
	errUnterminated = errors.New("unterminated quote or substitution")
	errCompound     = errors.New("compound statements are not read")
)

// compoundWords start statements this reader does not follow.
var compoundWords = map[string]bool{"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true,
	"while": true, "until": true, "do": true, "done": true, "case": true, "esac": true, "function": true,
	"select": true, "[[": true, "{": true, "}": true, "coproc": true}

var assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=`)

func (p *shellSplitter) run() error {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t':
			p.endWord()
			p.i++
		case c == '\\':
			if p.i+1 < len(p.src) && p.src[p.i+1] == '\n' {
				p.i += 2 // a line continuation
				continue
			}
			if p.i+1 < len(p.src) {
				p.add(p.src[p.i+1 : p.i+2])
			}
			p.i += 2
		case c == '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return errUnterminated
			}
			p.add(p.src[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			if err := p.doubleQuoted(); err != nil {
				return err
			}
		case c == '$':
			if err := p.dollar(); err != nil {
				return err
			}
		case c == '`':
			inner, err := p.backtick()
			if err != nil {
				return err
			}
			p.add("`" + inner + "`")
		case c == '#' && !p.inWord:
			if nl := strings.IndexByte(p.src[p.i:], '\n'); nl >= 0 {
				p.i += nl
			} else {
				p.i = len(p.src)
			}
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')':
			if err := p.endCommand(); err != nil {
				return err
			}
			p.i++
		case c == '<' || c == '>':
			if err := p.redirection(); err != nil {
				return err
			}
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
	return p.endCommand()
}

// add appends text to the current word.
func (p *shellSplitter) add(s string) {
	p.inWord = true
	p.word.WriteString(s)
}

func (p *shellSplitter) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	p.word.Reset()
	p.inWord = false
	if p.skipTgt {
		p.skipTgt = false
		return
	}
	p.words = append(p.words, w)
}

// endCommand closes the current simple command and records it.
func (p *shellSplitter) endCommand() error {
	p.endWord()
	if p.skipTgt {
		return errUnterminated // a redirection without a target
	}
	words := p.words
	p.words = nil
	for len(words) > 0 && assignRE.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	if compoundWords[words[0]] {
		return errCompound
	}
	p.cmds = append(p.cmds, strings.Join(words, " "))
	if p.depth == 0 {
		p.argvs = append(p.argvs, words)
	}
	return nil
}

// firstCommandWords returns the words of the first simple command of a
// shell command line (quotes removed, leading assignments and redirections
// dropped; $VAR and $(…) left as written), or nil when it cannot be read.
func firstCommandWords(line string) []string {
	p := &shellSplitter{src: line}
	if p.run() != nil || len(p.argvs) == 0 {
		return nil
	}
	return p.argvs[0]
}

// redirection skips an operator like >, >>, 2>&1, <<<, &> and its target.
func (p *shellSplitter) redirection() error {
	// A word of digits right before it is a file descriptor, not an argument.
	if p.inWord && strings.Trim(p.word.String(), "0123456789") == "" {
		p.word.Reset()
		p.inWord = false
	} else {
		p.endWord()
	}
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "<<<"):
		p.i += 3
	case strings.HasPrefix(rest, "<<"):
		return errCompound // a here-document
	case strings.HasPrefix(rest, "<(") || strings.HasPrefix(rest, ">("):
		p.i++
		inner, err := p.parens()
		if err != nil {
			return err
		}
		p.complex = true
		return p.sub(inner)
	case strings.HasPrefix(rest, ">>") || strings.HasPrefix(rest, ">&") || strings.HasPrefix(rest, "<&") ||
		strings.HasPrefix(rest, "<>") || strings.HasPrefix(rest, ">|"):
		p.i += 2
	default:
		p.i++
	}
	if p.i < len(p.src) && p.src[p.i] == '-' { // >&- closes a descriptor: no target
		p.i++
		return nil
	}
	p.skipTgt = true
	return nil
}

// doubleQuoted reads "…": backslash escapes \ " $ ` and newline; $ and
// backticks still substitute.
func (p *shellSplitter) doubleQuoted() error {
	p.add("")
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c == '\\' && p.i+1 < len(p.src) && strings.IndexByte("\\\"$`\n", p.src[p.i+1]) >= 0:
			if p.src[p.i+1] != '\n' {
				p.add(p.src[p.i+1 : p.i+2])
			}
			p.i += 2
		case c == '$':
			if err := p.dollar(); err != nil {
				return err
			}
		case c == '`':
			inner, err := p.backtick()
			if err != nil {
				return err
			}
			p.add("`" + inner + "`")
		default:
			p.add(p.src[p.i : p.i+1])
			p.i++
		}
	}
	return errUnterminated
}

// dollar reads $(…), $((…)), ${…}, $NAME, $'…' or a lone $.
func (p *shellSplitter) dollar() error {
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "$(("):
		p.i++
		inner, err := p.parens()
		if err != nil {
			return err
		}
		p.complex = true
		p.add("$" + inner)
	case strings.HasPrefix(rest, "$("):
		p.i++
		inner, err := p.parens()
		if err != nil {
			return err
		}
		p.complex = true
		p.add("$(" + inner + ")")
		return p.sub(inner)
	case strings.HasPrefix(rest, "${"):
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return errUnterminated
		}
		p.complex = true
		p.add(rest[:end+1])
		p.i += end + 1
	case strings.HasPrefix(rest, "$'"):
		end := strings.IndexByte(rest[2:], '\'')
		if end < 0 {
			return errUnterminated
		}
		p.add(rest[2 : 2+end])
		p.i += end + 3
	default:
		n := 1
		if len(rest) > 1 && strings.IndexByte("?!#*@$-0123456789", rest[1]) >= 0 {
			n = 2
		} else {
			for n < len(rest) && isNameByte(rest[n]) {
				n++
			}
		}
		if n > 1 {
			p.complex = true
		}
		p.add(rest[:n])
		p.i += n
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parens reads from an opening parenthesis at p.i to its match, quotes
// respected, and returns what is between them.
func (p *shellSplitter) parens() (string, error) {
	start, depth := p.i+1, 0
	for p.i < len(p.src) {
		switch c := p.src[p.i]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.i++
				return p.src[start : p.i-1], nil
			}
		case '\\':
			p.i++
		case '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return "", errUnterminated
			}
			p.i += end + 1
		case '"':
			for p.i++; p.i < len(p.src) && p.src[p.i] != '"'; p.i++ {
				if p.src[p.i] == '\\' {
					p.i++
				}
			}
		}
		p.i++
	}
	return "", errUnterminated
}

// backtick reads `…` and lists the commands inside.
func (p *shellSplitter) backtick() (string, error) {
	end := strings.IndexByte(p.src[p.i+1:], '`')
	if end < 0 {
		return "", errUnterminated
	}
	inner := p.src[p.i+1 : p.i+1+end]
	p.i += end + 2
	p.complex = true
	return inner, p.sub(inner)
}

// sub lists the commands of a substitution's text.
func (p *shellSplitter) sub(inner string) error {
	if p.depth > 16 {
		return errCompound
	}
	q := &shellSplitter{src: inner, depth: p.depth + 1}
	if err := q.run(); err != nil {
		return err
	}
	p.cmds = append(p.cmds, q.cmds...)
	return nil
}
