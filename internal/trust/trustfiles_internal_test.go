package trust

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestFilesRun pins down which files a hook runs by name, and so which
// files' contents the workspace trust covers (docs/security.md): the
// program written as a path, an interpreter's script, the commands of
// sh -c, in every simple command of the line, from the hook's directory.
func TestFilesRun(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := "/repo"
	cases := []struct {
		name string
		hook settings.Hook
		want []string // relative to root unless absolute
	}{
		{"a script by path", settings.Hook{Command: "./hook.sh"}, []string{"hook.sh"}},
		{"a script with arguments", settings.Hook{Command: "scripts/check.sh --fast"}, []string{"scripts/check.sh"}},
		{"the project directory, quoted as Claude Code documents it",
			settings.Hook{Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/lint.sh`}, []string{".claude/hooks/lint.sh"}},
		{"the project directory in braces", settings.Hook{Command: "${WAVE_PROJECT_DIR}/h.sh"}, []string{"h.sh"}},
		{"bash with a script", settings.Hook{Command: "bash -eu scripts/x.sh arg"}, []string{"scripts/x.sh"}},
		{"sh with options that take a value", settings.Hook{Command: "sh -o pipefail x.sh"}, []string{"x.sh"}},
		{"python with options", settings.Hook{Command: "python3 -u -W ignore check.py --fast"}, []string{"check.py"}},
		{"a versioned python", settings.Hook{Command: "python3.12 tools/run.py"}, []string{"tools/run.py"}},

		{"deno run", settings.Hook{Command: "deno run --allow-read t.ts"}, []string{"t.ts"}},
		{"ruby, perl", settings.Hook{Command: "ruby a.rb; perl -w b.pl"}, []string{"a.rb", "b.pl"}},
		{"source and dot", settings.Hook{Command: "source ./env.sh && . lib.sh && ./run.sh"}, []string{"env.sh", "lib.sh", "run.sh"}},
		{"assignments and env before the program", settings.Hook{Command: "FOO=1 env -u BAR LANG=C python3 x.py"}, []string{"x.py"}},
		{"keywords", settings.Hook{Command: "if ./check.sh; then exec ./ok.sh; fi"}, []string{"check.sh", "ok.sh"}},
		{"every command of a pipeline", settings.Hook{Command: "cat >/dev/null; ./after.sh 2>&1 | tee -a hook.log"}, []string{"after.sh"}},
		{"redirection targets are not run", settings.Hook{Command: "echo hi > ./out.log 2> ./err.log < ./in.txt"}, nil},
		{"sh -c runs its commands", settings.Hook{Command: `bash -c './inner.sh && python3 deep.py'`}, []string{"inner.sh", "deep.py"}},
		{"inline code runs no file", settings.Hook{Command: `python3 -c 'print(1)'; node -e 'x()'`}, nil},
		{"programs from PATH are not workspace files", settings.Hook{Command: "npm test && jq -r .x"}, nil},
		{"paths the shell builds are left out", settings.Hook{Command: "$HOME/x.sh; ./a*.sh; `which x`"}, nil},
		{"a comment", settings.Hook{Command: "./a.sh # ./b.sh"}, []string{"a.sh"}},
		{"the commands of substitutions run", settings.Hook{Command: "echo \"$(./gen.sh)\" `./b.sh` <(python3 c.py)"},
			[]string{"gen.sh", "b.sh", "c.py"}},
		{"an argument after a substitution is not run", settings.Hook{Command: "foo $(date) ./y.sh"}, nil},
		{"operators and # inside quotes are text", settings.Hook{Command: `echo 'x; ./a.sh' "# ./b.sh"`}, nil},
		{"a hook's directory", settings.Hook{Command: "./x.sh", Cwd: "sub"}, []string{"sub/x.sh"}},
		{"the home directory", settings.Hook{Command: "~/notes.sh"}, []string{filepath.Join(home, "notes.sh")}},
		{"an absolute path", settings.Hook{Command: "/usr/local/bin/check"}, []string{"/usr/local/bin/check"}},
		{"exec form: the program", settings.Hook{Command: "./bin/check", Args: []string{"--x", "y.sh"}}, []string{"bin/check"}},
		{"exec form: an interpreter's script", settings.Hook{Command: "python3", Args: []string{"tool.py"}}, []string{"tool.py"}},
		{"exec form: no shell expands anything", settings.Hook{Command: "sh", Args: []string{"-c", "./x.sh"}}, []string{"x.sh"}},
		{"exec form: the project directory placeholder in the program",
			settings.Hook{Command: "${CLAUDE_PROJECT_DIR}/.wave/guard.sh", Args: []string{}}, []string{".wave/guard.sh"}},
		{"exec form: the placeholder in an interpreter's script", settings.Hook{Command: "sh", Args: []string{"${CLAUDE_PROJECT_DIR}/x.sh"}},
			[]string{"x.sh"}},
		{"exec form: WAVE_PROJECT_DIR", settings.Hook{Command: "bash", Args: []string{"-e", "${WAVE_PROJECT_DIR}/y.sh"}}, []string{"y.sh"}},
		{"exec form: unbraced, the variable reaches the program as written",
			settings.Hook{Command: "$CLAUDE_PROJECT_DIR/x.sh", Args: []string{}}, []string{"$CLAUDE_PROJECT_DIR/x.sh"}},
		{"a shell reading a script on its input", settings.Hook{Command: "sh < x.sh; bash -s -- a b < ./y.sh; python3 - < z.py"},
			[]string{"x.sh", "y.sh", "z.py"}},
		{"a script piped into a shell", settings.Hook{Command: "cat x.sh | bash"}, []string{"x.sh"}},
		{"|| is no pipe", settings.Hook{Command: "true || sh < x.sh"}, []string{"x.sh"}},
		{"bash -s takes no script argument", settings.Hook{Command: "bash -s arg.sh"}, nil},
		{"BASH_ENV and ENV in the hook's env", settings.Hook{Command: "bash -c true", Env: []string{"BASH_ENV=./env.sh", "ENV=$CLAUDE_PROJECT_DIR/e.sh"}},
			[]string{"env.sh", "e.sh"}},
		{"BASH_ENV set on the command line", settings.Hook{Command: "BASH_ENV=lib/x.sh bash -c true"}, []string{"lib/x.sh"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, w := range c.want {
				if !filepath.IsAbs(w) {
					w = filepath.Join(root, w)
				}
				want = append(want, w)
			}
			h := c.hook
			require.Equal(t, want, filesRun(&h, root).paths)
		})
	}
}

// A project whose path holds characters the shell would expand in a word
// ([, $, *) still has its scripts named through $CLAUDE_PROJECT_DIR
// covered: the shell does not expand the variable's value again.
func TestFilesRunOddProjectPath(t *testing.T) {
	root := "/home/u/proj[1]$x*"
	h := settings.Hook{Command: `"$CLAUDE_PROJECT_DIR"/h.sh && ${WAVE_PROJECT_DIR}/g.sh`}
	require.Equal(t, []string{root + "/h.sh", root + "/g.sh"}, filesRun(&h, root).paths)
	form, ok := directScript(&settings.Hook{Command: `"$CLAUDE_PROJECT_DIR"/h.sh`}, root)
	require.True(t, ok)
	require.Equal(t, root+"/h.sh", form.path)
}

// A module found in the workspace, and a Perl pragma, need no note that
// something is not covered: the workspace's file is.
func TestFilesRunModulesFound(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"tools/check.py", "lib/My/Guard.pm"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), nil, 0o644))
	}
	h := settings.Hook{Command: "python3 -m tools.check; perl -Ilib -MMy::Guard -Mstrict -Mwarnings=all x.pl"}
	got := filesRun(&h, root)
	require.Empty(t, got.notCovered)
	require.Contains(t, got.maybe, filepath.Join(root, "tools/check.py"))
	require.Contains(t, got.maybe, filepath.Join(root, "lib/My/Guard.pm"))
}

// TestFilesRunModules: modules that node -r, perl -M, ruby -r and python -m
// load from the workspace are covered where they would be found (present
// or not, so that creating one asks again); a module found at run time
// elsewhere is named in the prompt as not covered, as are a script read
// from an unknown pipe and an environment variable that loads code.
func TestFilesRunModules(t *testing.T) {
	root := "/repo"
	cases := []struct {
		name  string
		hook  settings.Hook
		paths []string // relative to root
		maybe []string // the first few, relative to root
		notes []string // substrings, one per note
	}{
		{"node -r with a path, and the script", settings.Hook{Command: "node -r ./setup hooks/lint.js"}, nil,
			[]string{"hooks/lint.js", "hooks/lint.js.js", "hooks/lint.js.cjs", "hooks/lint.js.mjs", "hooks/lint.js.json",
				"hooks/lint.js/index.js", "setup", "setup.js", "setup.cjs", "setup.mjs", "setup.json", "setup/index.js"}, nil},
		{"node --require=, --import", settings.Hook{Command: "node --require=./a.js --import ./b.mjs x.js"}, nil,
			[]string{"x.js", "x.js.js", "x.js.cjs", "x.js.mjs", "x.js.json", "x.js/index.js", "a.js", "a.js.js", "a.js.cjs",
				"a.js.mjs", "a.js.json", "a.js/index.js", "b.mjs"}, nil},
		{"node -r with a package", settings.Hook{Command: "node -r dotenv/config x.js"}, nil, []string{"x.js"},
			[]string{`node loads the module "dotenv/config" found at run time`}},
		{"perl -I and -M", settings.Hook{Command: "perl -Ilib -MMy::Guard -e 1"}, nil, []string{"lib/My/Guard.pm"},
			[]string{"perl -MMy::Guard: a module found in @INC outside the -I directories is not covered"}},
		{"ruby -r", settings.Hook{Command: "ruby -r ./lib/x check.rb"}, []string{"check.rb"}, []string{"lib/x", "lib/x.rb"}, nil},
		{"python -m", settings.Hook{Command: "python3 -m tools.check --fast", Cwd: "sub"}, nil,
			[]string{"sub/tools/check.py", "sub/tools/check/__main__.py", "sub/tools/check/__init__.py", "sub/tools/__init__.py"},
			[]string{"python3 -m tools.check: a module found outside the hook's directory"}},
		{"a pipe from elsewhere", settings.Hook{Command: "curl -s https://x | sh"}, nil, nil,
			[]string{"sh reads its script from a pipe (curl -s https://x | …)"}},
		{"env that loads code", settings.Hook{Command: "x", Env: []string{"NODE_OPTIONS=--require ./y.js", "LD_PRELOAD=./z.so"}}, nil, nil,
			[]string{"NODE_OPTIONS=--require ./y.js in the hook's env", "LD_PRELOAD=./z.so in the hook's env"}},
		{"a stdin file the shell names at run time", settings.Hook{Command: "sh < $SCRIPT"}, nil, nil,
			[]string{"$SCRIPT: a path the shell builds when the hook runs"}},
		{"a script path the shell builds", settings.Hook{Command: "$TOOLS/x.sh; bash ./*.sh"}, nil, nil,
			[]string{"$TOOLS/x.sh: a path the shell builds", "./*.sh: a path the shell builds"}},
		{"after cd, from where it went, and maybe from where the hook starts", settings.Hook{Command: "cd tools && ./check.sh && cd ../b && python3 c.py"},
			[]string{"tools/check.sh", "b/c.py"}, []string{"check.sh", "c.py", "tools/c.py"}, nil},
		{"cd to a directory the shell builds", settings.Hook{Command: "cd $(dirname x) && ./y.sh"}, []string{"y.sh"}, nil,
			[]string{"cd $(dirname x): the scripts run after it are looked for where the hook starts"}},
		{"wrappers", settings.Hook{Command: "timeout -k 5 10s ./a.sh; nice -n 5 ./b.sh; xargs -0 -n 1 ./c.sh; sudo -u x python3 d.py"},
			[]string{"a.sh", "b.sh", "c.sh", "d.py"}, nil, nil},
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(root, p)
			require.NoError(t, err)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.hook
			got := filesRun(&h, root)
			require.Equal(t, c.paths, rel(got.paths))
			maybe := rel(got.maybe)
			require.GreaterOrEqual(t, len(maybe), len(c.maybe))
			require.Equal(t, c.maybe, maybe[:len(c.maybe)])
			require.Len(t, got.notCovered, len(c.notes))
			for i, n := range c.notes {
				require.Contains(t, got.notCovered[i], n)
			}
		})
	}
}

// A FIFO planted where a script was is recorded, not opened for reading
// (which would hang the server).
func TestWorkspaceFileFIFO(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "hook.sh")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	f, ok := workspaceFile(fifo, root, root, nil)
	require.True(t, ok)
	require.Equal(t, "not a regular file", f.State)
	require.NoError(t, os.Remove(fifo))
}

// Once a file is old enough for its times to be trusted, a check does not
// read it again while it is unchanged, and still finds a rewrite of the
// same size in the same second: the change time moves.
func TestCheckRereadsOnlyChangedFiles(t *testing.T) {
	if _, ok := proc.StatKeyOf(mustStat(t, t.TempDir())); !ok {
		t.Skip("no change times here: every check reads the files")
	}
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0 // as if the file had been written long before it was hashed

	root := t.TempDir()
	script := filepath.Join(root, "hook.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho one\n"), 0o755))
	first, ok := workspaceFile(script, root, root, nil)
	require.True(t, ok)
	require.False(t, first.racy)

	// Unchanged: the stored hash is reused, not read again (a stored hash
	// that the contents do not have shows it).
	stored := first
	stored.State = "sha256:stored"
	again, _ := workspaceFile(script, root, root, &stored)
	require.Equal(t, "sha256:stored", again.State)
	stored.racy = true
	again, _ = workspaceFile(script, root, root, &stored)
	require.Equal(t, first.State, again.State, "a racy file is read again")

	// Rewritten with the same size and modification time.
	mtime := mustStat(t, script).ModTime()
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho two\n"), 0o755))
	require.NoError(t, os.Chtimes(script, mtime, mtime))
	changed, _ := workspaceFile(script, root, root, &first)
	require.NotEqual(t, first.State, changed.State)
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st
}
