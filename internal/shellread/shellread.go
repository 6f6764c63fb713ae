package shellread

import (
	"errors"
	"regexp"
	"strings"
)

// This file is the one reader of POSIX shell command lines: quoting,
// backslashes, $ expansions, backticks, comments and redirection operators
// are read here, and nowhere else. It turns a line into tokens; its users
// decide what they mean: the "if" rules (SplitShell, shellsplit.go) refuse
// compound statements and here-documents, trust (shellCommands,
// trustfiles.go) splits a line of any shape into the commands it runs, and
// the CLAUDE_ENV_FILE reader (hooks/envfile.go) expands the words'
// parts that Tokens (words.go) gives. The reader itself expands and runs
// nothing.

// shellTokenKind says what a shellToken is.
type shellTokenKind int

const (
	// tokWord is a word, quotes and backslashes removed; $VAR, ${…}, $(…)
	// and backticks kept as written.
	tokWord shellTokenKind = iota
	// tokSeparator ends a simple command: one of ; & | ( ) or a newline
	// (&& and || are two separators).
	tokSeparator
	// tokRedirect is a redirection operator (<, >, >>, >&, <<<, <<, …)
	// whose next word is its target, unless target is false (>&-).
	tokRedirect
	// tokSubstitution is the text inside $(…), `…`, <(…) or >(…): commands
	// that run too. It comes when the reader meets it, before the word that
	// holds it ends.
	tokSubstitution
)

// shellToken is one token of a command line.
type shellToken struct {
	kind shellTokenKind
	// text is the word, the operator, or the substitution's commands.
	text string
	// target reports whether a redirection takes the next word as its target.
	target bool
	// start and end are the token's byte offsets in the line; parts are a
	// word's parts. Both are set only when the reader keeps parts (Tokens).
	start, end int
	parts      []Part
}

var (
	errUnterminated = errors.New("unterminated quote or substitution")
	errCompound     = errors.New("compound statements are not read")
)

// AssignRE is a word that assigns a variable (FOO=1, a[0]=x, PATH+=:/x):
// before a command's program, it is not the program.
var AssignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=`)

// readShell reads line and hands each token to emit, in order; an error
// from emit stops the reading and is returned. complex reports whether the
// line holds an expansion whose value no reader can know: $VAR, ${…},
// $(…), $((…)), backticks or <(…). An unterminated quote still hands over
// its word (the rest of the line) before errUnterminated, so that a user
// that reads leniently sees what sh would have begun to run.
func readShell(line string, emit func(shellToken) error) (complex bool, err error) {
	r := &shellReader{src: line, emit: emit}
	err = r.run()
	return r.complex, err
}

type shellReader struct {
	src     string
	i       int
	emit    func(shellToken) error
	complex bool
	word    strings.Builder
	inWord  bool
	// keepParts makes the reader record each word's parts and offsets
	// (Tokens); readShell's users read only the text, which is the same.
	keepParts bool
	// blankCR reads \r outside quotes as a blank (env files from Windows).
	blankCR   bool
	wordStart int
	parts     []Part
	partText  []byte // the last part's text, gathered
	// open is the quote or substitution an errUnterminated left open.
	open string
}

func (r *shellReader) run() error {
	for r.i < len(r.src) {
		c := r.src[r.i]
		if !r.inWord {
			r.wordStart = r.i
		}
		var err error
		switch {
		case c == ' ' || c == '\t' || c == '\r' && r.blankCR:
			err = r.endWord()
			r.i++
		case c == '\\':
			if r.i+1 < len(r.src) && r.src[r.i+1] == '\n' {
				r.i += 2 // a line continuation
				continue
			}
			if r.i+1 == len(r.src) { // a backslash that ends the line: sh keeps it
				if r.keepParts {
					r.add(`\`)
					r.part(PartLiteral, `\`, r.i, r.i+1)
				}
				r.i++
				continue
			}
			r.add(r.src[r.i+1 : r.i+2])
			r.part(PartLiteral, r.src[r.i+1:r.i+2], r.i, r.i+2)
			r.i += 2
		case c == '\'':
			end := strings.IndexByte(r.src[r.i+1:], '\'')
			if end < 0 {
				r.add(r.src[r.i+1:])
				r.open = "'"
				return r.unterminated()
			}
			r.add(r.src[r.i+1 : r.i+1+end])
			r.part(PartSingle, r.src[r.i+1:r.i+1+end], r.i, r.i+end+2)
			r.i += end + 2
		case c == '"':
			err = r.doubleQuoted()
		case c == '$':
			err = r.dollar(false)
		case c == '`':
			err = r.backtick(false)
		case c == '#' && !r.inWord:
			if nl := strings.IndexByte(r.src[r.i:], '\n'); nl >= 0 {
				r.i += nl
			} else {
				r.i = len(r.src)
			}
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')':
			if err = r.endWord(); err == nil {
				err = r.emit(shellToken{kind: tokSeparator, text: r.src[r.i : r.i+1], start: r.i, end: r.i + 1})
			}
			r.i++
		case c == '<' || c == '>':
			err = r.redirection()
		default:
			r.add(r.src[r.i : r.i+1])
			r.part(PartLiteral, r.src[r.i:r.i+1], r.i, r.i+1)
			r.i++
		}
		if err != nil {
			return err
		}
	}
	return r.endWord()
}

// part records a part of the current word when the reader keeps parts;
// text next to text of the same kind joins it.
func (r *shellReader) part(kind PartKind, text string, start, end int) {
	if !r.keepParts {
		return
	}
	n := len(r.parts)
	if n > 0 && (kind == PartLiteral || kind == PartDouble) && r.parts[n-1].Kind == kind && r.parts[n-1].End == start {
		r.partText = append(r.partText, text...) // not +=: a MiB of text would be copied a million times
		r.parts[n-1].End = end
		return
	}
	r.flushPart()
	r.parts = append(r.parts, Part{Kind: kind, Start: start, End: end})
	r.partText = append(r.partText[:0], text...)
}

// flushPart sets the text of the last part from what part gathered.
func (r *shellReader) flushPart() {
	if n := len(r.parts); n > 0 {
		r.parts[n-1].Text = string(r.partText)
	}
	r.partText = r.partText[:0]
}

// add appends text to the current word.
func (r *shellReader) add(s string) {
	r.inWord = true
	r.word.WriteString(s)
}

// endWord hands over the current word, if there is one.
func (r *shellReader) endWord() error {
	if !r.inWord {
		return nil
	}
	w := r.word.String()
	r.word.Reset()
	r.inWord = false
	tok := shellToken{kind: tokWord, text: w}
	if r.keepParts {
		r.flushPart()
		tok.start, tok.end, tok.parts = r.wordStart, r.i, r.parts
		r.parts = nil
	}
	return r.emit(tok)
}

// unterminated hands over the word a quote left open, and says it was.
func (r *shellReader) unterminated() error {
	r.i = len(r.src)
	if err := r.endWord(); err != nil {
		return err
	}
	return errUnterminated
}

// redirection reads an operator like >, >>, 2>&1, <<<, <<, &> (the & is a
// separator) or a process substitution <(…).
func (r *shellReader) redirection() error {
	// A word of digits right before it is a file descriptor, not an argument.
	start := r.i
	if r.inWord && strings.Trim(r.word.String(), "0123456789") == "" {
		r.word.Reset()
		r.inWord = false
		start, r.parts = r.wordStart, nil
	} else if err := r.endWord(); err != nil {
		return err
	}
	rest := r.src[r.i:]
	n := 1
	switch {
	case strings.HasPrefix(rest, "<(") || strings.HasPrefix(rest, ">("):
		r.i++
		inner, err := r.parens()
		if err != nil {
			r.open = rest[:2]
			return err
		}
		r.complex = true
		return r.emit(shellToken{kind: tokSubstitution, text: inner, start: start, end: r.i})
	case strings.HasPrefix(rest, "<<<") || strings.HasPrefix(rest, "<<-"):
		n = 3
	case strings.HasPrefix(rest, "<<") || strings.HasPrefix(rest, ">>") || strings.HasPrefix(rest, ">&") ||
		strings.HasPrefix(rest, "<&") || strings.HasPrefix(rest, "<>") || strings.HasPrefix(rest, ">|"):
		n = 2
	}
	r.i += n
	tok := shellToken{kind: tokRedirect, text: rest[:n], target: true, start: start}
	if r.i < len(r.src) && r.src[r.i] == '-' { // >&- closes a descriptor: no target
		r.i++
		tok.target = false
	}
	tok.end = r.i
	return r.emit(tok)
}

// doubleQuoted reads "…": backslash escapes \ " $ ` and newline; $ and
// backticks still substitute.
func (r *shellReader) doubleQuoted() error {
	r.add("")
	r.part(PartDouble, "", r.i, r.i+1)
	r.i++
	for r.i < len(r.src) {
		c := r.src[r.i]
		switch {
		case c == '"':
			r.part(PartDouble, "", r.i, r.i+1)
			r.i++
			return nil
		case c == '\\' && r.i+1 < len(r.src) && strings.IndexByte("\\\"$`\n", r.src[r.i+1]) >= 0:
			if r.src[r.i+1] != '\n' {
				r.add(r.src[r.i+1 : r.i+2])
				r.part(PartDouble, r.src[r.i+1:r.i+2], r.i, r.i+2)
			} else {
				r.part(PartDouble, "", r.i, r.i+2)
			}
			r.i += 2
		case c == '$':
			if err := r.dollar(true); err != nil {
				return err
			}
		case c == '`':
			if err := r.backtick(true); err != nil {
				return err
			}
		default:
			r.add(r.src[r.i : r.i+1])
			r.part(PartDouble, r.src[r.i:r.i+1], r.i, r.i+1)
			r.i++
		}
	}
	r.open = `"`
	return r.unterminated()
}

// dollar reads $(…), $((…)), ${…}, $NAME, $'…' or a lone $; quoted
// says it is inside "…", where $'…' is a $ and a single-quoted text.
func (r *shellReader) dollar(quoted bool) error {
	rest, start := r.src[r.i:], r.i
	switch {
	case strings.HasPrefix(rest, "$("):
		r.i++
		inner, err := r.parens()
		if err != nil {
			r.open = "$("
			return err
		}
		r.complex = true
		if strings.HasPrefix(rest, "$((") { // arithmetic: it runs no command
			r.add("$" + inner)
			r.quotedPart(PartArith, quoted, r.src[start:r.i], start, r.i)
			return nil
		}
		r.add("$(" + inner + ")")
		r.quotedPart(PartCommand, quoted, r.src[start:r.i], start, r.i)
		return r.emit(shellToken{kind: tokSubstitution, text: inner, start: start, end: r.i})
	case strings.HasPrefix(rest, "${"):
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			r.open = "${"
			return errUnterminated
		}
		r.complex = true
		r.add(rest[:end+1])
		r.i += end + 1
		r.quotedPart(PartParam, quoted, rest[:end+1], start, r.i)
	case strings.HasPrefix(rest, "$'") && !quoted:
		end := 2
		for end < len(rest) && rest[end] != '\'' {
			if rest[end] == '\\' {
				end++ // \' does not end it
			}
			end++
		}
		if end >= len(rest) {
			r.open = "$'"
			return errUnterminated
		}
		r.add(rest[2:end])
		r.i += end + 1
		r.part(PartANSIC, decodeANSIC(rest[2:end]), start, r.i)
	default:
		n := 1
		if len(rest) > 1 && strings.IndexByte("?!#*@$-0123456789", rest[1]) >= 0 {
			n = 2
		} else {
			for n < len(rest) && IsNameByte(rest[n]) {
				n++
			}
		}
		if n > 1 {
			r.complex = true
		}
		r.add(rest[:n])
		r.i += n
		kind := PartParam
		if n == 1 { // a lone $ is itself
			kind = PartLiteral
			if quoted {
				kind = PartDouble
			}
		}
		r.quotedPart(kind, quoted, rest[:n], start, r.i)
	}
	return nil
}

// quotedPart is part for an expansion, with whether it is inside "…".
func (r *shellReader) quotedPart(kind PartKind, quoted bool, text string, start, end int) {
	r.part(kind, text, start, end)
	if r.keepParts && quoted {
		r.parts[len(r.parts)-1].Quoted = true
	}
}

func IsNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parens reads from an opening parenthesis at r.i to its match, quotes
// respected, and returns what is between them.
func (r *shellReader) parens() (string, error) {
	start, depth := r.i+1, 0
	for r.i < len(r.src) {
		switch c := r.src[r.i]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				r.i++
				return r.src[start : r.i-1], nil
			}
		case '\\':
			r.i++
		case '\'':
			end := strings.IndexByte(r.src[r.i+1:], '\'')
			if end < 0 {
				return "", errUnterminated
			}
			r.i += end + 1
		case '"':
			for r.i++; r.i < len(r.src) && r.src[r.i] != '"'; r.i++ {
				if r.src[r.i] == '\\' {
					r.i++
				}
			}
		}
		r.i++
	}
	return "", errUnterminated
}

// backtick reads `…`: the word keeps it as written, and its commands are
// handed over as a substitution.
func (r *shellReader) backtick(quoted bool) error {
	end := strings.IndexByte(r.src[r.i+1:], '`')
	if end < 0 {
		r.open = "`"
		return errUnterminated
	}
	start := r.i
	inner := r.src[r.i+1 : r.i+1+end]
	r.i += end + 2
	r.complex = true
	r.add("`" + inner + "`")
	r.quotedPart(PartCommand, quoted, r.src[start:r.i], start, r.i)
	return r.emit(shellToken{kind: tokSubstitution, text: inner, start: start, end: r.i})
}

// maxSubstitutionDepth bounds how deep readCommands follows substitutions
// inside substitutions.
const maxSubstitutionDepth = 16

// readCommands hands command the words of each simple command of line
// (redirection targets left out) and of the substitutions in it, each when
// the reader meets it — a substitution's commands before the command that
// holds them — with how deep in substitutions it is. Strict, it refuses
// here-documents, a redirection without a target, substitutions nested past
// maxSubstitutionDepth and an unterminated quote, and stops at command's
// first error; lenient, it reads any line and gives what it could read.
func readCommands(line string, strict bool, depth int, command func(words []string, depth int) error) (complex bool, err error) {
	return ReadSimpleCommands(line, strict, depth, func(c SimpleCommand, depth int) error { return command(c.Words, depth) })
}

// SimpleCommand is one simple command as ReadSimpleCommands reads it.
type SimpleCommand struct {
	// Words are its words, redirection targets left out.
	Words []string
	// Stdin is the target of its last "<" redirection (sh < x.sh), "" if none.
	Stdin string
	// HereDoc reports a here-document or here-string ("<<", "<<-", "<<<") as its input.
	HereDoc bool
	// Redirected reports any redirection of it (2>&1, > out, < in).
	Redirected bool
	// PipedFrom are the words of the command whose output it reads through a
	// pipe (cat x.sh | sh), nil when it reads none.
	PipedFrom []string
	// Piped reports that it reads a pipe, even when PipedFrom is unknown.
	Piped bool
}

// ReadSimpleCommands is readCommands with each command's input: the file
// its "<" redirection reads, and the command that pipes into it.
func ReadSimpleCommands(line string, strict bool, depth int, command func(c SimpleCommand, depth int) error) (complex bool, err error) {
	var cur SimpleCommand
	target := false
	var redir string       // the operator whose target comes next
	var lastSep string     // the separator that ended the previous command
	var prevWords []string // the words of the previous command
	endCommand := func(sep string) error {
		if target && strict {
			return errUnterminated // a redirection without a target
		}
		c := cur
		cur, target, redir = SimpleCommand{}, false, ""
		if len(c.Words) == 0 {
			switch {
			case lastSep == "|" && sep == "|": // "||" is two separators around an empty command: no pipe
				lastSep = ""
			case lastSep == "|" && sep == "&": // "|&" pipes stderr too
			default:
				lastSep = sep
			}
			return nil
		}
		if lastSep == "|" {
			c.Piped, c.PipedFrom = true, prevWords
		}
		lastSep, prevWords = sep, c.Words
		return command(c, depth)
	}
	complex, err = readShell(line, func(t shellToken) error {
		switch t.kind {
		case tokWord:
			if target {
				target = false
				if redir == "<" {
					cur.Stdin = t.text
				}
			} else {
				cur.Words = append(cur.Words, t.text)
			}
		case tokSeparator:
			return endCommand(t.text)
		case tokRedirect:
			if strings.HasPrefix(t.text, "<<") {
				if strict && t.text != "<<<" {
					return errCompound // a here-document
				}
				cur.HereDoc = true
			}
			target = target || t.target
			redir = t.text
			cur.Redirected = true
		case tokSubstitution:
			if depth >= maxSubstitutionDepth {
				if strict {
					return errCompound
				}
				return nil
			}
			if _, err := ReadSimpleCommands(t.text, strict, depth+1, command); err != nil && strict {
				return err
			}
		}
		return nil
	})
	if err != nil && strict {
		return complex, err
	}
	if err := endCommand(""); err != nil && strict {
		return complex, err
	}
	return complex, nil
}
