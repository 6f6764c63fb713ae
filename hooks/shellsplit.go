package hooks

import "strings"

// splitShell splits a shell command line into its simple commands, each as
// its words joined by single spaces with quotes removed, redirections and
// leading VAR=value assignments dropped: what an "if" rule like "Bash(git *)"
// is compared with. Commands inside $(…), backticks and <(…) are listed
// too, and complex says the line had one of those or a $VAR expansion,
// whose value no rule can know. Compound statements (if, for, while, case,
// functions, here-documents) and unbalanced quotes are an error: the caller
// runs the hook then, as Claude Code does with a command it cannot parse.
// The line is read by readShell (shellread.go), as trust reads it.
func splitShell(line string) (cmds []string, complex bool, err error) {
	p := &shellSplitter{}
	if err := p.split(line); err != nil {
		return nil, false, err
	}
	return p.cmds, p.complex, nil
}

// shellSplitter gathers the simple commands of a line and of the
// substitutions in it, refusing what the "if" rules do not read.
type shellSplitter struct {
	cmds    []string
	argvs   [][]string // the words of each command in cmds, at the top level only
	complex bool
	depth   int

	words   []string // the current simple command
	skipTgt bool     // the next word is a redirection's target
}

// compoundWords start statements this reader does not follow.
var compoundWords = map[string]bool{"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true,
	"while": true, "until": true, "do": true, "done": true, "case": true, "esac": true, "function": true,
	"select": true, "[[": true, "{": true, "}": true, "coproc": true}

// split reads one line (the whole command, or a substitution's text).
func (p *shellSplitter) split(line string) error {
	complex, err := readShell(line, p.token)
	p.complex = p.complex || complex
	if err != nil {
		return err
	}
	return p.endCommand()
}

func (p *shellSplitter) token(t shellToken) error {
	switch t.kind {
	case tokWord:
		if p.skipTgt {
			p.skipTgt = false
			return nil
		}
		p.words = append(p.words, t.text)
	case tokSeparator:
		return p.endCommand()
	case tokRedirect:
		if strings.HasPrefix(t.text, "<<") && t.text != "<<<" {
			return errCompound // a here-document
		}
		if t.target {
			p.skipTgt = true
		}
	case tokSubstitution:
		if p.depth > 16 {
			return errCompound
		}
		q := &shellSplitter{depth: p.depth + 1}
		if err := q.split(t.text); err != nil {
			return err
		}
		p.cmds = append(p.cmds, q.cmds...)
	}
	return nil
}

// endCommand closes the current simple command and records it.
func (p *shellSplitter) endCommand() error {
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
	p := &shellSplitter{}
	if p.split(line) != nil || len(p.argvs) == 0 {
		return nil
	}
	return p.argvs[0]
}
