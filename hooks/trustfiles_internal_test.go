package hooks

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
		hook Hook
		want []string // relative to root unless absolute
	}{
		{"a script by path", Hook{Command: "./hook.sh"}, []string{"hook.sh"}},
		{"a script with arguments", Hook{Command: "scripts/check.sh --fast"}, []string{"scripts/check.sh"}},
		{"the project directory, quoted as Claude Code documents it",
			Hook{Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/lint.sh`}, []string{".claude/hooks/lint.sh"}},
		{"the project directory in braces", Hook{Command: "${WAVE_PROJECT_DIR}/h.sh"}, []string{"h.sh"}},
		{"bash with a script", Hook{Command: "bash -eu scripts/x.sh arg"}, []string{"scripts/x.sh"}},
		{"sh with options that take a value", Hook{Command: "sh -o pipefail x.sh"}, []string{"x.sh"}},
		{"python with options", Hook{Command: "python3 -u -W ignore check.py --fast"}, []string{"check.py"}},
		{"a versioned python", Hook{Command: "python3.12 tools/run.py"}, []string{"tools/run.py"}},
		{"node", Hook{Command: "node --require ./setup.js hooks/lint.js"}, []string{"hooks/lint.js"}},
		{"deno run", Hook{Command: "deno run --allow-read t.ts"}, []string{"t.ts"}},
		{"ruby, perl", Hook{Command: "ruby a.rb; perl -w b.pl"}, []string{"a.rb", "b.pl"}},
		{"source and dot", Hook{Command: "source ./env.sh && . lib.sh && ./run.sh"}, []string{"env.sh", "lib.sh", "run.sh"}},
		{"assignments and env before the program", Hook{Command: "FOO=1 env -u BAR LANG=C python3 x.py"}, []string{"x.py"}},
		{"keywords", Hook{Command: "if ./check.sh; then exec ./ok.sh; fi"}, []string{"check.sh", "ok.sh"}},
		{"every command of a pipeline", Hook{Command: "cat >/dev/null; ./after.sh 2>&1 | tee -a hook.log"}, []string{"after.sh"}},
		{"redirection targets are not run", Hook{Command: "echo hi > ./out.log 2> ./err.log < ./in.txt"}, nil},
		{"sh -c runs its commands", Hook{Command: `bash -c './inner.sh && python3 deep.py'`}, []string{"inner.sh", "deep.py"}},
		{"inline code runs no file", Hook{Command: `python3 -c 'print(1)'; node -e 'x()'; python3 -m pytest`}, nil},
		{"programs from PATH are not workspace files", Hook{Command: "npm test && jq -r .x"}, nil},
		{"paths the shell builds are left out", Hook{Command: "$HOME/x.sh; ./a*.sh; `which x`"}, nil},
		{"a comment", Hook{Command: "./a.sh # ./b.sh"}, []string{"a.sh"}},
		{"the commands of substitutions run", Hook{Command: "echo \"$(./gen.sh)\" `./b.sh` <(python3 c.py)"},
			[]string{"gen.sh", "b.sh", "c.py"}},
		{"an argument after a substitution is not run", Hook{Command: "foo $(date) ./y.sh"}, nil},
		{"operators and # inside quotes are text", Hook{Command: `echo 'x; ./a.sh' "# ./b.sh"`}, nil},
		{"a hook's directory", Hook{Command: "./x.sh", Cwd: "sub"}, []string{"sub/x.sh"}},
		{"the home directory", Hook{Command: "~/notes.sh"}, []string{filepath.Join(home, "notes.sh")}},
		{"an absolute path", Hook{Command: "/usr/local/bin/check"}, []string{"/usr/local/bin/check"}},
		{"exec form: the program", Hook{Command: "./bin/check", Args: []string{"--x", "y.sh"}}, []string{"bin/check"}},
		{"exec form: an interpreter's script", Hook{Command: "python3", Args: []string{"tool.py"}}, []string{"tool.py"}},
		{"exec form: no shell expands anything", Hook{Command: "sh", Args: []string{"-c", "./x.sh"}}, []string{"x.sh"}},
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
			require.Equal(t, want, filesRun(&h, root))
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
	if _, ok := statKeyOf(mustStat(t, t.TempDir())); !ok {
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
