package shellread

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShellReaders reads lines where the "if" reader (SplitShell) and the
// trust reader (shellCommands) could part ways, since they share one
// tokenizer (readShell): operators and comments inside quotes, escapes,
// substitutions, here-documents, unterminated quotes. The if reader refuses
// what it does not follow (ifErr); the trust reader reads every line.
func TestShellReaders(t *testing.T) {
	cases := []struct {
		name, line string
		ifCmds     []string // SplitShell's commands, when it reads the line
		ifErr      error
		complex    bool
		trust      [][]string
	}{
		{"operators inside quotes are text", `echo 'a; ./x.sh' "b | ./y.sh && c"`,
			[]string{"echo a; ./x.sh b | ./y.sh && c"}, nil, false,
			[][]string{{"echo", "a; ./x.sh", "b | ./y.sh && c"}}},
		{"a backslash escapes an operator and a space", `echo a\;./x.sh b\ c; ./d.sh`,
			[]string{"echo a;./x.sh b c", "./d.sh"}, nil, false,
			[][]string{{"echo", "a;./x.sh", "b c"}, {"./d.sh"}}},
		{"backslashes inside double quotes", `echo "a\"b\$c\\d\e"`,
			[]string{`echo a"b$c\d\e`}, nil, false,
			[][]string{{"echo", `a"b$c\d\e`}}},
		{"a line continuation", "git \\\npush",
			[]string{"git push"}, nil, false,
			[][]string{{"git", "push"}}},
		{"a comment, and # inside a word", "./a.sh x#y # ; ./b.sh\n./c.sh",
			[]string{"./a.sh x#y", "./c.sh"}, nil, false,
			[][]string{{"./a.sh", "x#y"}, {"./c.sh"}}},
		{"a quoted # starts no comment", `echo "#" '#'x`,
			[]string{"echo # #x"}, nil, false,
			[][]string{{"echo", "#", "#x"}}},
		{"every operator splits", "a && b || c; d | e & f\ng (h) |& i",
			[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, nil, false,
			[][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}, {"i"}}},
		{"substitutions come before the command that holds them", "./a.sh \"$(./b.sh x)\" `./c.sh` <(./d.sh)",
			[]string{"./b.sh x", "./c.sh", "./d.sh", "./a.sh $(./b.sh x) `./c.sh`"}, nil, true,
			[][]string{{"./b.sh", "x"}, {"./c.sh"}, {"./d.sh"}, {"./a.sh", "$(./b.sh x)", "`./c.sh`"}}},
		{"a parenthesis inside a substitution's quotes", `echo "$(printf ')')" done`,
			[]string{"printf )", "echo $(printf ')') done"}, nil, true,
			[][]string{{"printf", ")"}, {"echo", "$(printf ')')", "done"}}},
		{"expansions stay as written", `echo ${X:-a b} $HOME $? $'c d' $((1+2))`,
			[]string{"echo ${X:-a b} $HOME $? c d $(1+2)"}, nil, true,
			[][]string{{"echo", "${X:-a b}", "$HOME", "$?", "c d", "$(1+2)"}}},
		{"redirections and their targets", "a 2>&1 >out <in >>log 3<>f >&- b &>all <<<word",
			[]string{"a b"}, nil, false,
			[][]string{{"a", "b"}}},
		{"assignments: the if reader drops them, trust keeps them for stripPrefixWords", "A=1 B+=2 c[0]=3 ./x.sh",
			[]string{"./x.sh"}, nil, false,
			[][]string{{"A=1", "B+=2", "c[0]=3", "./x.sh"}}},
		{"a here-document: refused, read on by trust", "cat <<-EOF\n./x.sh\nEOF",
			nil, errCompound, false,
			[][]string{{"cat"}, {"./x.sh"}, {"EOF"}}},
		{"a compound statement: refused, read on by trust", "if ./a.sh; then ./b.sh; fi",
			nil, errCompound, false,
			[][]string{{"if", "./a.sh"}, {"then", "./b.sh"}, {"fi"}}},
		{"an unterminated single quote: trust keeps the rest", "./a.sh; echo 'b ; ./c.sh",
			nil, errUnterminated, false,
			[][]string{{"./a.sh"}, {"echo", "b ; ./c.sh"}}},
		{"an unterminated double quote: trust keeps the rest", `./a.sh "b \" c`,
			nil, errUnterminated, false,
			[][]string{{"./a.sh", `b " c`}}},
		{"an unterminated substitution runs nothing", "echo $(./x.sh",
			nil, errUnterminated, false,
			[][]string{{"echo"}}},
		{"a redirection without a target", "echo >",
			nil, errUnterminated, false,
			[][]string{{"echo"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmds, complex, err := SplitShell(c.line)
			require.Equal(t, c.ifErr, err)
			require.Equal(t, c.ifCmds, cmds)
			require.Equal(t, c.complex, complex)
			require.Equal(t, c.trust, shellCommands(c.line))
		})
	}
}

// FuzzShellReaders checks that the two readers built on readShell agree:
// where the "if" reader reads a line, the trust reader finds the same
// simple commands (it keeps the leading assignments the if reader drops).
// Neither may panic on any line, nor may what trust makes of it (filesRun,
// directScript) in the shell form, the exec form or a hook env.
//
//	go test -run '^$' -fuzz '^FuzzShellReaders$' -fuzztime 30s ./hooks
func FuzzShellReaders(f *testing.F) {
	for _, s := range []string{
		`A=1 B="x y" git commit -m "fix: it's done" && echo $(npm test 2>/dev/null) | tee log >> all.log; ls`,
		"echo `git rev-parse HEAD` \"$(date)\" <(git log) $'a' ${X:-y} $((1+2))",
		"ls 2>&1 > out.txt; a >&- b &>f <<<w", "cat <<EOF\nhi\nEOF", "echo 'un", "x # y\nz \\\n w",
		`echo "a\"b\\c" a\ b`, "if a; then b; fi", "(cd x && ./y.sh) | z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		trust := shellCommands(line)
		cmds, _, err := SplitShell(line)
		if err != nil {
			return
		}
		var fromTrust []string
		for _, words := range trust {
			for len(words) > 0 && AssignRE.MatchString(words[0]) {
				words = words[1:]
			}
			if len(words) > 0 {
				fromTrust = append(fromTrust, strings.Join(words, " "))
			}
		}
		require.Equal(t, cmds, fromTrust, "line %q", line)
	})
}

// shellCommands splits a shell command line into the words of its simple
// commands, as trust reads them (filesRun reads lenient): quotes and
// backslashes removed as sh would (but nothing expanded), the targets of redirections
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
