package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// layout is a WAVE_HOME, a project root and a managed settings file, each
// in a temporary directory of its own.
type layout struct{ home, root, managed string }

// writeLayout writes files into a fresh layout. Names starting with "home/"
// go into WAVE_HOME, "managed" is the managed settings file, and other names
// are relative to the project root. $ROOT and $SCRIPTS in the texts become
// the project root and testdata/hooks; *.sh files are executable.
func writeLayout(t *testing.T, files map[string]string) layout {
	t.Helper()
	l := layout{home: t.TempDir(), root: t.TempDir()}
	l.managed = filepath.Join(t.TempDir(), "managed-settings.json")
	for name, text := range files {
		path := l.path(name)
		text = strings.NewReplacer("$ROOT", l.root, "$SCRIPTS", scripts).Replace(text)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), mode))
	}
	return l
}

func (l layout) path(name string) string {
	switch {
	case name == "managed":
		return l.managed
	case strings.HasPrefix(name, "home/"):
		return filepath.Join(l.home, strings.TrimPrefix(name, "home/"))
	}
	return filepath.Join(l.root, name)
}

func (l layout) paths() settings.Paths {
	return settings.Paths{WaveHome: l.home, ProjectRoot: l.root, ManagedFile: l.managed}
}

// load loads the layout's configuration, which must have no errors or warnings.
func (l layout) load(t *testing.T) *settings.Config {
	t.Helper()
	cfg := settings.Load(l.paths(), nil)
	for _, d := range cfg.Diagnostics() {
		require.Equal(t, settings.SeverityInfo, d.Severity, "test settings must be valid: %s", d)
	}
	return cfg
}

// argsScript writes each argument it gets on a line of its own, exactly as
// received, after reading its stdin with jq.
const argsScript = `#!/bin/sh
jq -r .hook_event_name > event.txt
for a in "$@"; do printf '%s\n' "$a"; done > args.txt
`

func TestExecFormArgsArriveWithoutShellInterpretation(t *testing.T) {
	args := `["a b", "$HOME", ";", "x; touch pwned", "` + "`id`" + `", "*", "", "'quoted'"]`
	want := "a b\n$HOME\n;\nx; touch pwned\n`id`\n*\n\n'quoted'\n"
	cases := []struct {
		name    string
		command string
		cwd     string
		script  string // where args.sh is, relative to the root
		out     string // where it writes, relative to the root
	}{
		{"absolute program", "$ROOT/args.sh", "", "args.sh", ""},
		{"program relative to the project root", "./args.sh", "", "args.sh", ""},
		{"program relative to cwd", "./args.sh", "sub/dir", "sub/dir/args.sh", "sub/dir"},
		{"program with spaces in its path", "./my hooks/args.sh", "", "my hooks/args.sh", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hook := `{"type": "command", "command": "` + c.command + `", "args": ` + args
			if c.cwd != "" {
				hook += `, "cwd": "` + c.cwd + `"`
			}
			l := writeLayout(t, map[string]string{
				c.script:             argsScript,
				"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [` + hook + `}]}]}}`,
			})
			e := hooks.NewEngine(l.load(t))
			res := e.Fire(context.Background(), input(event.UserPromptSubmit, l.root))
			require.Empty(t, res.Errors)
			require.True(t, res.Runs[0].Ran)
			got, err := os.ReadFile(filepath.Join(l.root, c.out, "args.txt"))
			require.NoError(t, err)
			require.Equal(t, want, string(got))
			ev, err := os.ReadFile(filepath.Join(l.root, c.out, "event.txt"))
			require.NoError(t, err)
			require.Equal(t, "UserPromptSubmit\n", string(ev), "the program got the hook's stdin")
			require.NoFileExists(t, filepath.Join(l.root, c.out, "pwned"))
			require.Contains(t, res.Runs[0].Command, `'a b' '$HOME' ';'`, "the history shows the arguments quoted")
		})
	}
}

func TestExecFormProgramFromPATH(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "printf", "args": ["%s|", "a b", "$HOME", "$(id)"]}]}]}}`})
	res := hooks.NewEngine(l.load(t)).Fire(context.Background(), input(event.UserPromptSubmit, l.root))
	require.Equal(t, []string{"a b|$HOME|$(id)|"}, res.Context)
}

func TestExecFormProgramNotFound(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"Stop": [{"hooks": [
		{"type": "command", "command": "no-such-program-wavehooks", "args": []}]}]}}`})
	res := hooks.NewEngine(l.load(t)).Fire(context.Background(), input(event.Stop, l.root))
	require.Len(t, res.Errors, 1)
	require.Contains(t, res.Errors[0], "could not start")
	require.Contains(t, res.Errors[0], "executable file not found")
	require.False(t, res.Blocked)
}

func TestCwdAndEnv(t *testing.T) {
	script := `#!/bin/sh
jq -r .cwd > /dev/null
printf '%s|%s|%s|%s|%s' "$(pwd)" "$GREETING" "$WAVE_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$LANG_SET"
`
	cases := []struct {
		name, options string
		dir           string // expected working directory, relative to the root
		greeting      string
	}{
		{"defaults: the project root, the server's environment", ``, "", ""},
		{"cwd inside the project", `, "cwd": "sub/dir"`, "sub/dir", ""},
		{"cwd with a harmless ..", `, "cwd": "sub/other/../dir/"`, "sub/dir", ""},
		{"cwd .", `, "cwd": "."`, "", ""},
		{"env is literal, never expanded", `, "env": {"GREETING": "hi there; $HOME", "LANG_SET": "x"}`, "", "hi there; $HOME"},
		{"cwd and env together", `, "cwd": "sub", "env": {"GREETING": "", "LANG_SET": "x"}`, "sub", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{
				"env.sh":             script,
				"sub/dir/.keep":      "",
				"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$ROOT/env.sh"` + c.options + `}]}]}}`,
			})
			res := hooks.NewEngine(l.load(t)).Fire(context.Background(), input(event.UserPromptSubmit, l.root))
			require.Empty(t, res.Errors)
			real, err := filepath.EvalSymlinks(filepath.Join(l.root, c.dir))
			require.NoError(t, err)
			langSet := ""
			if strings.Contains(c.options, "LANG_SET") {
				langSet = "x"
			}
			require.Equal(t, []string{strings.Join([]string{real, c.greeting, l.root, l.root, langSet}, "|")}, res.Context)
		})
	}
}

func TestOSCommandOverride(t *testing.T) {
	key := map[string]string{"linux": "linux", "darwin": "osx", "windows": "windows"}[runtime.GOOS]
	cases := []struct {
		name, hook string
		want       []string // context; nil when the hook does not run here
	}{
		{"the override for this OS replaces command",
			`{"type": "command", "command": "echo generic", "linux": "echo linux", "osx": "echo osx", "windows": "echo windows"}`,
			[]string{key}},
		{"the override may come before command",
			`{"type": "command", "` + key + `": "echo mine", "command": "echo generic"}`, []string{"mine"}},
		{"no override for this OS: command runs",
			`{"type": "command", "command": "echo generic", "plan9": "echo nope"}`, []string{"generic"}},
		{"only an override for another OS: nothing runs here",
			`{"type": "command", "` + map[bool]string{true: "osx", false: "linux"}[key == "linux"] + `": "echo other"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"SessionStart": [{"hooks": [` + c.hook + `]}]}}`})
			cfg := settings.Load(l.paths(), nil)
			res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.SessionStart, l.root))
			require.Equal(t, c.want, res.Context)
			if c.want == nil {
				require.Empty(t, cfg.Hooks)
				require.Len(t, cfg.Diagnostics(), 1)
				require.Equal(t, settings.CodeNoCommandForOS, cfg.Diagnostics()[0].Code)
			}
		})
	}
}

func TestStatusMessages(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"PreToolUse": [
		{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "cat >/dev/null", "statusMessage": "Checking the command…"},
			{"type": "command", "command": "cat >/dev/null; true", "statusMessage": "Checking the command…"},
			{"type": "command", "command": "cat >/dev/null; echo bg", "statusMessage": "In the background", "async": true},
			{"type": "command", "command": "cat >/dev/null; echo quiet"}]},
		{"matcher": "Write", "hooks": [{"type": "command", "command": "cat >/dev/null", "statusMessage": "Checking the file"}]}]}}`})
	e := hooks.NewEngine(l.load(t))
	defer e.Close()
	require.Equal(t, []string{"Checking the command…"}, e.StatusMessages(event.PreToolUse, "Bash"))
	require.Equal(t, []string{"Checking the file"}, e.StatusMessages(event.PreToolUse, "Write"))
	require.Empty(t, e.StatusMessages(event.PreToolUse, "Read"))
	require.Empty(t, e.StatusMessages(event.Stop, ""))

	res := e.Fire(context.Background(), input(event.PreToolUse, l.root))
	require.Equal(t, "Checking the command…", res.Runs[0].StatusMessage)
	require.Equal(t, "", res.Runs[3].StatusMessage)
	run := hooks.NewEventRun("s", "Bash", &res)
	require.Contains(t, hooks.Explain(run), "status message: Checking the command…")
}

// TestOptionsFile checks which hooks of testdata/config/options.json run,
// and with what: the diagnostics are in its golden file.
func TestOptionsFile(t *testing.T) {
	root, _ := filepath.Abs("../testdata/config/project")
	text, err := os.ReadFile("../testdata/config/options.json")
	require.NoError(t, err)
	f := settings.ParseFile("options.json", settings.SourceProject, text, root)
	var got []string
	for _, h := range f.Hooks {
		got = append(got, h.Describe())
	}
	require.Equal(t, []string{
		"./ok.sh 'a b' '$HOME' ';' (in scripts, with LEVEL=debug, in the background, timeout 5s, showing \"Formatting…\")",
		"echo " + map[string]string{"linux": "linux", "darwin": "osx", "windows": "windows"}[runtime.GOOS],
		"true (in scripts)",
		"true (in no-such-dir)",
		"true",
		"true",
		"'node script.js'", // one program name, spaces and all
		"'$CLAUDE_PROJECT_DIR/scripts/ok.sh'",
		"./scripts/missing",
		"scripts/not-executable.sh x",
	}, got)
	first := f.Hooks[0]
	require.Equal(t, []string{"a b", "$HOME", ";"}, first.Args)
	require.Equal(t, "Formatting…", first.StatusMessage)
	require.True(t, first.Async)
	require.Equal(t, "5s", first.Timeout.String())
	require.Nil(t, f.Hooks[1].Args, "no args: the shell form")
	require.NotNil(t, f.Hooks[6].Args, "args: [] is the exec form without arguments")
}
