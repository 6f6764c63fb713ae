package shellread

import "strings"

// SplitShell splits a shell command line into its simple commands, each as
// its words joined by single spaces with quotes removed, redirections and
// leading VAR=value assignments dropped: what an "if" rule like "Bash(git *)"
// is compared with. Commands inside $(…), backticks and <(…) are listed
// too, and complex says the line had one of those or a $VAR expansion,
// whose value no rule can know. Compound statements (if, for, while, case,
// functions, here-documents) and unbalanced quotes are an error: the caller
// runs the hook then, as Claude Code does with a command it cannot parse.
// The line is read by readShell (shellread.go), as trust reads it.
func SplitShell(line string) (cmds []string, complex bool, err error) {
	cmds, _, complex, err = splitLine(line)
	return cmds, complex, err
}

// FirstCommandWords returns the words of the first simple command of a
// shell command line (quotes removed, leading assignments and redirections
// dropped; $VAR and $(…) left as written), or nil when it cannot be read.
func FirstCommandWords(line string) []string {
	_, first, _, err := splitLine(line)
	if err != nil {
		return nil
	}
	return first
}

// splitLine is SplitShell, with the words of the line's first top-level
// command beside.
func splitLine(line string) (cmds, first []string, complex bool, err error) {
	complex, err = readCommands(line, true, 0, func(words []string, depth int) error {
		for len(words) > 0 && AssignRE.MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) == 0 {
			return nil
		}
		if compoundWords[words[0]] {
			return errCompound
		}
		cmds = append(cmds, strings.Join(words, " "))
		if depth == 0 && first == nil {
			first = words
		}
		return nil
	})
	if err != nil {
		return nil, nil, false, err
	}
	return cmds, first, complex, nil
}

// compoundWords start statements this reader does not follow.
var compoundWords = map[string]bool{"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true,
	"while": true, "until": true, "do": true, "done": true, "case": true, "esac": true, "function": true,
	"select": true, "[[": true, "{": true, "}": true, "coproc": true}
