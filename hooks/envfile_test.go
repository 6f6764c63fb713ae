package hooks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
)

func TestParseEnvFile(t *testing.T) {
	env := map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "EMPTY": ""}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	cases := []struct {
		name, text string
		want       []hooks.EnvVar
		problems   []string
	}{
		{"Claude Code's example", "export NODE_ENV=production\nexport DEBUG_LOG=true\nexport PATH=\"$PATH:./node_modules/.bin\"\n",
			[]hooks.EnvVar{{"NODE_ENV", "production"}, {"DEBUG_LOG", "true"}, {"PATH", "/usr/bin:./node_modules/.bin"}}, nil},
		{"export -p output", "declare -x GREETING=\"hello world\"\ndeclare -x NVM_DIR=\"/home/u/.nvm\"\n",
			[]hooks.EnvVar{{"GREETING", "hello world"}, {"NVM_DIR", "/home/u/.nvm"}}, nil},
		{"direnv export bash", "export A=$'line1\\nline2 \\'q\\'';export B=plain;unset C;",
			[]hooks.EnvVar{{"A", "line1\nline2 'q'"}, {"B", "plain"}},
			[]string{"line 1: `unset C` only takes back a variable this file set; C stays as it is"}},
		{"quoting and escapes", `export A='$HOME literal' B="$HOME/x" C=a\ b D=${EMPTY:-dflt} E=${HOME} F=~/go 'G=quoted'`,
			[]hooks.EnvVar{{"A", "$HOME literal"}, {"B", "/home/u/x"}, {"C", "a b"}, {"D", "dflt"}, {"E", "/home/u"}, {"F", "/home/u/go"}, {"G", "quoted"}}, nil},
		{"assignments see earlier statements, not their own", "X=1 Y=$X\nZ=$X\n",
			[]hooks.EnvVar{{"X", "1"}, {"Y", ""}, {"Z", "1"}}, nil},
		{"later wins, unset takes back", "export A=1\nexport A=2 B=3\nunset B\n", []hooks.EnvVar{{"A", "2"}}, nil},
		{"comments, blank lines, CRLF", "# set up\r\n\r\nexport A=1 # trailing\r\n", []hooks.EnvVar{{"A", "1"}}, nil},
		{"nothing is run", "export WHO=$(whoami)\nexport N=`id -u`\necho hi\nA=1 make\nexport SUM=$((1+2))\nexport OK=yes\n",
			[]hooks.EnvVar{{"OK", "yes"}},
			[]string{"line 1: command substitution ($(…)) is not run, so `export WHO=$(whoami)` was not applied",
				"line 2: command substitution (`…`) is not run, so `export N=`id -u`` was not applied",
				"line 3: `echo hi` is not an assignment and was not run",
				"line 4: `A=1 make` is not an assignment and was not run",
				"line 5: arithmetic ($((…))) is not run, so `export SUM=$((1+2))` was not applied"}},
		{"an unterminated quote stops reading", "export A=1\nexport B=\"oops\n", []hooks.EnvVar{{"A", "1"}},
			[]string{`line 2: unterminated "; the rest of the file is ignored`}},
		{"a backslash at the end is kept, as sh keeps it", "export A=1\nexport B=x\\", []hooks.EnvVar{{"A", "1"}, {"B", `x\`}}, nil},
		{"a line continuation joins lines, which are still counted", "export A=1 \\\n  B=2\nexport C=one\\\ntwo\nunset Q\n",
			[]hooks.EnvVar{{"A", "1"}, {"B", "2"}, {"C", "onetwo"}},
			[]string{"line 5: `unset Q` only takes back a variable this file set; Q stays as it is"}},
		{"positional parameters are not known", "export A=$12\n", nil,
			[]string{"line 1: the special parameter $1 is not run, so `export A=$12` was not applied"}},
		{"an open substitution ends the file", "export A=1\nexport B=$(echo; C=2\nexport D=4\n", []hooks.EnvVar{{"A", "1"}},
			[]string{"line 2: unterminated $(; the rest of the file is ignored"}},
		{"a substitution is one, a ; or newline in it included", "export B=$(echo\nC=2); D=4\n", []hooks.EnvVar{{"D", "4"}},
			[]string{"line 1: command substitution ($(…)) is not run, so `export B=$(echo\nC=2)` was not applied"}},
		{"a multi-line value", "export MSG=\"one\ntwo\"\nexport NEXT=1\n", []hooks.EnvVar{{"MSG", "one\ntwo"}, {"NEXT", "1"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars, problems := hooks.ParseEnvFile(c.text, lookup)
			require.Equal(t, c.want, vars)
			require.Equal(t, c.problems, problems)
		})
	}
}

// TestEnvFileReadsAsShDoes sources each file with the real sh and checks
// that every variable the reader says the file sets has the value sh gives
// it, where the reader and the lexer it replaced differ among them.
func TestEnvFileReadsAsShDoes(t *testing.T) {
	files := []string{
		"export A=1 \\\n  B=2\n",
		"export C=one\\\ntwo\n",
		"export D=x\\",
		"E=\"$'x'\" F='q'\\''r' G=\"$HOME/x\" H=${UNSET_X:-d} I=~/go J=a\\ b\nexport E F G H I J\n",
		"K=1; L=\"$K\"2 # comment\r\nexport K L\n",
	}
	env := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin:/bin"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	for _, text := range files {
		vars, problems := hooks.ParseEnvFile(text, lookup)
		require.Empty(t, problems, "%q", text)
		require.NotEmpty(t, vars, "%q", text)
		path := filepath.Join(t.TempDir(), "env.sh")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		var script strings.Builder
		script.WriteString(`. "$1"`)
		for _, v := range vars {
			fmt.Fprintf(&script, "; printf '%%s\\0' \"${%s-unset}\"", v.Name)
		}
		cmd := exec.Command("sh", "-c", script.String(), "sh", path)
		cmd.Env = []string{"HOME=/home/u", "PATH=/usr/bin:/bin"}
		out, err := cmd.Output()
		require.NoError(t, err, "%q", text)
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		require.Len(t, got, len(vars), "%q", text)
		for i, v := range vars {
			require.Equal(t, got[i], v.Value, "%s in %q", v.Name, text)
		}
	}
}
