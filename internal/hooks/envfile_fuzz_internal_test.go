package hooks

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// envFileSeeds are files the two readers are fuzzed from: each statement
// form the reader takes, each it refuses, and the edges between.
var envFileSeeds = []string{
	"export NODE_ENV=production\nexport DEBUG_LOG=true\nexport PATH=\"$PATH:./node_modules/.bin\"\n",
	"declare -x GREETING=\"hello world\"\ndeclare -x NVM_DIR=\"/home/u/.nvm\"\n",
	"export A=$'line1\\nline2 \\'q\\'';export B=plain;unset C;",
	`export A='$HOME literal' B="$HOME/x" C=a\ b D=${EMPTY:-dflt} E=${HOME} F=~/go 'G=quoted'`,
	"X=1 Y=$X\nZ=$X\n",
	"export A=1\nexport A=2 B=3\nunset B\n",
	"# set up\r\n\r\nexport A=1 # trailing\r\n",
	"export WHO=$(whoami)\nexport N=`id -u`\necho hi\nA=1 make\nexport SUM=$((1+2))\nexport OK=yes\n",
	"export A=1\nexport B=\"oops\n",
	"export MSG=\"one\ntwo\"\nexport NEXT=1\n",
	"A=1|B=2\nC=3 > f\nD=4 2>&1\nE=5 &\n(F=6)\nG=$? H=$1\n",
	"A=$'\\x41\\101\\e\\q' B=\"$'x'\" C=${A} D=${A:-d} E=${#A} F=$ G=\"$\"\n",
	"export -n A=1 declare -gx B=2\nunset -v A\nexport 'C=1' \"D=2\"\n'E=3'\nF\\=4\n",
}

// FuzzEnvFileReaders reads each file with the env-file reader and with the
// one it replaced (refParseEnvFile, envfile_reference_internal_test.go, its
// own lexer): both must set the same variables and report the same
// problems.
//
//	go test -run '^$' -fuzz '^FuzzEnvFileReaders$' -fuzztime 3m ./internal/hooks
func FuzzEnvFileReaders(f *testing.F) {
	for _, s := range envFileSeeds {
		f.Add(s)
	}
	env := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "EMPTY": ""}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	f.Fuzz(func(t *testing.T, text string) {
		if why := knownEnvFileDifference(text); why != "" {
			t.Skip(why)
		}
		vars, problems := parseEnvFile(text, lookup)
		if strings.HasSuffix(text, `\`) {
			return // the old lexer crashed on it (TestParseEnvFile, "a backslash at the end")
		}
		refVars, refProblems := refParseEnvFile(text, lookup)
		require.Equal(t, refVars, vars, "variables of %q", text)
		require.Equal(t, refProblems, problems, "problems of %q", text)
	})
}

// envFileDifferences are the forms where the two readers differ on purpose:
// the old lexer read them unlike sh, the shared reader reads them as sh does
// (each checked with `sh -c '. ./file; env'`, TestEnvFileReadsAsShDoes).
var envFileDifferences = []struct {
	why string
	re  *regexp.Regexp
}{
	{"$0…$9 are positional parameters (the old lexer looked up a variable named 12 for $12)", regexp.MustCompile(`\$[0-9]`)},
	{"an unclosed ${ says the rest of the file is ignored, as it is (the old lexer ignored it too, but said only that its statement was not applied)", regexp.MustCompile(`\$\{[^}]*$`)},
	{"a # right after an operator starts a comment, as in sh (the old lexer kept it in the statement it quotes)", regexp.MustCompile(`[&|()<>]#`)},
	{"a backslash-newline is a line continuation, as in sh, and lines are counted across it (the old lexer read it as an empty word that made its statement not an assignment, and did not count the line)", regexp.MustCompile("\\\\\n")},
	{"a substitution ($(…), $((…)), `…`, <(…), >(…)) is read to its close, a ; or newline in it included, and one left open ends the file like an open quote (the old lexer read on and split it at a ; or newline)", regexp.MustCompile("\\$\\(|`|[<>]\\(")},
}

// knownEnvFileDifference says why the readers may differ on text, or "".
func knownEnvFileDifference(text string) string {
	for _, d := range envFileDifferences {
		if d.re.MatchString(text) {
			return d.why
		}
	}
	return ""
}
