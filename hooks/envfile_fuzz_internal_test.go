package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// envFileSeeds are files the reader is fuzzed from: each statement
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

// FuzzEnvFile reads any file with the env-file reader, which reads and
// never runs what a hook wrote: it does not panic (the lexer it replaced
// crashed on a file ending in a backslash), every variable it returns has a
// shell name and appears once, with the last value the file gave it, and a
// file of plain single-quoted exports sets exactly them. Its agreement
// with sh is TestEnvFileReadsAsShDoes (real `sh -c '. file'`, on files that
// run nothing); when it replaced the old lexer, a differential run of 954k
// inputs found the five differences docs/parity.md lists.
//
//	go test -run '^$' -fuzz '^FuzzEnvFile$' -fuzztime 3m ./hooks
func FuzzEnvFile(f *testing.F) {
	for _, s := range envFileSeeds {
		f.Add(s, "k", "v")
	}
	env := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "EMPTY": ""}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	f.Fuzz(func(t *testing.T, text, name, value string) {
		vars, _ := parseEnvFile(text, lookup)
		seen := map[string]bool{}
		for _, v := range vars {
			require.True(t, envNameRE.MatchString(v.Name), "variable name %q of %q", v.Name, text)
			require.False(t, seen[v.Name], "%s set twice by %q", v.Name, text)
			seen[v.Name] = true
		}
		if !envNameRE.MatchString(name) || strings.ContainsAny(value, "'\x00") {
			return
		}
		plain := "export " + name + "='" + value + "'\n"
		vars, problems := parseEnvFile(plain+plain, lookup)
		require.Empty(t, problems, "%q", plain)
		require.Equal(t, []EnvVar{{Name: name, Value: value}}, vars, "%q", plain)
	})
}
