package settings_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDiagnosticsGolden parses each settings file under testdata/config and
// compares its positioned diagnostics with the .golden file beside it.
func TestDiagnosticsGolden(t *testing.T) {
	root, err := filepath.Abs("../../testdata/config/project")
	require.NoError(t, err)
	files, err := filepath.Glob("../../testdata/config/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			require.NoError(t, err)
			f := settings.ParseFile(filepath.Base(path), settings.SourceProject, text, root)
			var lines []string
			for _, d := range f.Diagnostics {
				lines = append(lines, strings.ReplaceAll(d.String(), root, "$ROOT"))
			}
			got := strings.Join(lines, "\n") + "\n"
			golden := strings.TrimSuffix(path, ".json") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./hooks -run Golden -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}

func TestEveryHookSurvivesItsNeighboursProblems(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/config/project")
	text, err := os.ReadFile("../../testdata/config/every-kind.json")
	require.NoError(t, err)
	f := settings.ParseFile("every-kind.json", settings.SourceProject, text, root)
	var cmds []string
	for _, h := range f.Hooks {
		cmds = append(cmds, string(h.Event)+": "+h.Command)
	}
	// Hooks with a fixable problem still run; unknown events, bad regexes,
	// unknown types and empty commands do not.
	require.Equal(t, []string{
		"Stop: true",
		"PostToolUse: ./scripts/ok.sh",
		"PostToolUse: ./scripts/ok.sh --again",
		"PostToolUse: ./scripts/ok.sh --three",
		"PostToolUse: ./scripts/missing.sh",
		"PostToolUse: $CLAUDE_PROJECT_DIR/scripts/not-executable.sh",
		"PostToolUse: jq -r .tool_name",
	}, cmds)
	require.Equal(t, settings.DefaultTimeout, f.Hooks[2].Timeout, "a bad timeout falls back to the default")
	require.Equal(t, "5s", f.Hooks[6].Timeout.String())
}

func TestMergeOrderAndBrokenFiles(t *testing.T) {
	home, root, claude := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	hook := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	write(filepath.Join(home, "settings.json"), hook("echo user"))
	write(filepath.Join(root, ".wave", "settings.json"), `{"hooks": {"Stop": [ broken`)
	write(filepath.Join(root, ".wave", "settings.local.json"), hook("echo local"))
	write(filepath.Join(claude, "settings.json"), hook("echo claude-user"))
	write(filepath.Join(root, ".claude", "settings.json"), hook("echo claude-project"))
	paths := settings.Paths{WaveHome: home, ProjectRoot: root, ClaudeHome: claude}

	commands := func(cfg *settings.Config) []string {
		var out []string
		for i := range cfg.Hooks {
			if ok, _ := cfg.Active(&cfg.Hooks[i]); ok {
				out = append(out, cfg.Hooks[i].Source.String()+": "+cfg.Hooks[i].Command)
			}
		}
		return out
	}
	cfg := settings.Load(paths, nil)
	require.Equal(t, []string{"user: echo user", "local: echo local"}, commands(cfg), "Claude Code files are off by default")
	diags := cfg.Diagnostics()
	require.Len(t, diags, 1)
	require.Equal(t, settings.CodeSyntax, diags[0].Code)
	require.Equal(t, filepath.Join(root, ".wave", "settings.json"), diags[0].File)

	write(filepath.Join(root, ".wave", "settings.local.json"), `{"importClaudeHooks": true, "transcriptFormat": "jsonl", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo local"}]}]}}`)
	cfg = settings.Load(paths, nil)
	require.Equal(t, []string{"user: echo user", "local: echo local", "claude-user: echo claude-user", "claude-project: echo claude-project"}, commands(cfg))
	require.Equal(t, "jsonl", cfg.TranscriptFormat)

	// An editor's unsaved text replaces the file on disk.
	cfg = settings.Load(paths, map[string][]byte{filepath.Join(root, ".wave", "settings.json"): []byte(hook("echo project"))})
	require.Empty(t, cfg.Diagnostics())
	require.Equal(t, "project: echo project", commands(cfg)[1])
}

// A hook that sets no timeout gets Claude Code's default for its event (600 s,
// 30 s for UserPromptSubmit, 10 s for MessageDisplay) whether it comes from our files or Claude Code's,
// and VS Code's 30 s in VS Code's hook files.
func TestDefaultTimeouts(t *testing.T) {
	settingsJSON := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}],
		"MessageDisplay": [{"hooks": [{"type": "command", "command": "true"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 7}]}]}}`
	cases := []struct {
		source settings.Source
		want   []string
	}{
		{settings.SourceUser, []string{"PreToolUse 10m0s", "UserPromptSubmit 30s", "MessageDisplay 10s", "Stop 7s"}},
		{settings.SourceClaudeProject, []string{"PreToolUse 10m0s", "UserPromptSubmit 30s", "MessageDisplay 10s", "Stop 7s"}},
		{settings.SourceVSCode, []string{"PreToolUse 30s", "UserPromptSubmit 30s", "MessageDisplay 30s", "Stop 7s"}},
	}
	for _, c := range cases {
		t.Run(c.source.String(), func(t *testing.T) {
			f := settings.ParseFile("settings.json", c.source, []byte(settingsJSON), t.TempDir())
			require.Empty(t, f.Diagnostics)
			var got []string
			for _, h := range f.Hooks {
				got = append(got, string(h.Event)+" "+h.Timeout.String())
			}
			require.Equal(t, c.want, got)
		})
	}
}
