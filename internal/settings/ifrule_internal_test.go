package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/shellread"
)

// The rows of Claude Code's own tables (hooks reference, "Bash matching
// table"; hooks guide, "Filter by tool name and arguments") come first.
func TestIfRuleBash(t *testing.T) {
	cases := []struct {
		rule, command string
		runs          bool
	}{
		{"Bash(git *)", "FOO=bar git push", true},
		{"Bash(git *)", "npm test && git push", true},
		{"Bash(rm *)", "echo $(rm -rf /)", true},
		{"Bash(rm *)", "echo $(date)", false},
		{"Bash(git push *)", "echo $(date)", true},
		{"Bash(git *)", "git push", true},
		{"Bash(git *)", "echo $(git log)", true},
		// The case: a hook for git commands must not see ls.
		{"Bash(git *)", "ls -la", false},
		{"Bash(git *)", "git", true},
		{"Bash(git *)", "gitk --all", false},
		{"Bash(git*)", "gitk --all", true},
		{"Bash(git *)", "cd src; git status", true},
		{"Bash(git *)", "ls | git hash-object --stdin", true},
		{"Bash(git *)", "echo `git rev-parse HEAD`", true},
		{"Bash(git *)", "echo 'git push'", false},
		{"Bash(git *)", `"git" push`, true},
		{"Bash(git *)", "cat <(git log)", true},
		{"Bash(git *)", "ls 2>&1 > out.txt", false},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin dev", false},
		{"Bash(npm run test:*)", "npm run test -- --watch", true},
		{"Bash(npm run test:*)", "npm run test", true},
		{"Bash(npm run test:*)", "npm run testing", false},
		{"Bash(npm test)", "npm test", true},
		{"Bash(npm test)", "npm   test", true},
		{"Bash(npm test)", "npm test --watch", false},
		{"Bash(rm *)", "find . -name x | xargs rm -f", true},
		{"Bash", "anything at all", true},
		{"Bash()", "ls", true},
		{"Bash(*)", "ls", true},
		// Unparseable or compound commands fail open, as in Claude Code.
		{"Bash(git *)", "echo 'unterminated", true},
		{"Bash(git *)", "if true; then ls; fi", true},
		{"Bash(git *)", "cat <<EOF\nhi\nEOF", true},
		// $VAR makes the pattern that names more than the command run.
		{"Bash(git push *)", "$GIT push", true},
		{"Bash(git *)", "$GIT push", false},
	}
	for _, c := range cases {
		t.Run(c.rule+" on "+c.command, func(t *testing.T) {
			in := event.Input{Event: event.PreToolUse, ToolName: "Bash", ToolInput: mustJSON(t, map[string]string{"command": c.command})}
			got, why := ParseIfRule(c.rule).Match(&in, "/project")
			require.Equal(t, c.runs, got, why)
			require.NotEmpty(t, why)
		})
	}
}

func TestIfRuleFilesAndNames(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	cases := []struct {
		rule, tool string
		input      map[string]string
		runs       bool
	}{
		{"Edit(*.ts)", "Edit", map[string]string{"file_path": "/project/src/app.ts"}, true},
		{"Edit(*.ts)", "Edit", map[string]string{"file_path": "/project/src/app.js"}, false},
		{"Edit(*.ts)", "Edit", map[string]string{"file_path": "src/deep/app.ts"}, true},
		{"Edit(*.ts)", "Edit", map[string]string{"file_path": "/elsewhere/app.ts"}, true},
		{"Edit(*.ts)", "Write", map[string]string{"file_path": "/project/app.ts"}, false},
		{"Edit(src/**)", "Edit", map[string]string{"file_path": "/project/src/a/b.go"}, true},
		{"Edit(src/**)", "Edit", map[string]string{"file_path": "/project/lib/src/b.go"}, false},
		{"Edit(**/src/**)", "Edit", map[string]string{"file_path": "/project/lib/src/b.go"}, true},
		{"Edit(/docs/*.md)", "Edit", map[string]string{"file_path": "/project/docs/a.md"}, true},
		{"Edit(/docs/*.md)", "Edit", map[string]string{"file_path": "/project/docs/x/a.md"}, false},
		{"Read(//etc/**)", "Read", map[string]string{"file_path": "/etc/passwd"}, true},
		{"Read(//etc/**)", "Read", map[string]string{"file_path": "/project/etc/x"}, false},
		{"Read(~/.ssh/**)", "Read", map[string]string{"file_path": filepath.Join(home, ".ssh", "id_rsa")}, true},
		{"Read(.env)", "Read", map[string]string{"file_path": "/project/sub/.env"}, true},
		{"Read(.env)", "Read", map[string]string{"file_path": "/project/.envrc"}, false},
		{"Write(build)", "Write", map[string]string{"file_path": "/project/build/out.js"}, true},
		{"NotebookEdit(*.ipynb)", "NotebookEdit", map[string]string{"notebook_path": "/project/n.ipynb"}, true},
		{"Grep(TODO*)", "Grep", map[string]string{"pattern": "TODO: fix"}, true},
		{"Glob(**/*.go)", "Glob", map[string]string{"pattern": "src/*.py"}, false},
		{"mcp__github__create_issue", "mcp__github__create_issue", map[string]string{}, true},
		{"mcp__github__create_issue", "mcp__github__list_issues", map[string]string{}, false},
		{"mcp__github", "mcp__github__create_issue", map[string]string{}, false},
		{"WebFetch(domain:example.com)", "WebFetch", map[string]string{"url": "https://example.com"}, false},
		{"Bash(git *", "Bash", map[string]string{"command": "git push"}, false},
		{"bash(git *)", "Bash", map[string]string{"command": "git push"}, false},
	}
	for _, c := range cases {
		t.Run(c.rule+" on "+c.tool, func(t *testing.T) {
			in := event.Input{Event: event.PreToolUse, Cwd: "/project", ToolName: c.tool, ToolInput: mustJSON(t, c.input)}
			got, why := ParseIfRule(c.rule).Match(&in, "/project")
			require.Equal(t, c.runs, got, why)
		})
	}
}

func TestIfRuleOnlyOnToolEvents(t *testing.T) {
	for _, ev := range []event.Event{event.PreToolUse, event.PostToolUse, event.PostToolUseFailure, event.PermissionRequest} {
		in := event.Input{Event: ev, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"git push"}`)}
		ok, why := ParseIfRule("Bash(git *)").Match(&in, "/")
		require.True(t, ok, "%s: %s", ev, why)
	}
	for _, ev := range []event.Event{event.UserPromptSubmit, event.Stop, event.SessionStart, event.SessionEnd, event.Notification} {
		in := event.Input{Event: ev, ToolName: "Bash"}
		ok, _ := ParseIfRule("Bash").Match(&in, "/")
		require.False(t, ok, "%s: a hook with if never runs on a non-tool event", ev)
	}
}

func TestIfRuleProblems(t *testing.T) {
	cases := []struct {
		rule  string
		ev    event.Event
		never bool
		n     int
	}{
		{"Bash(git *)", event.PreToolUse, false, 0},
		{"mcp__github__create_issue", event.PostToolUse, false, 0},
		{"Bash(git *", event.PreToolUse, true, 1},
		{"Bash(git *)", event.Stop, true, 1},
		{"bash(git *)", event.PreToolUse, true, 1},
		{"mcp__github", event.PreToolUse, true, 1},
		{"mcp__github__*", event.PreToolUse, true, 1},
		{"WebFetch(domain:example.com)", event.PreToolUse, true, 1},
		{"Bash(git *) || Edit(*.ts)", event.PreToolUse, false, 1},
	}
	for _, c := range cases {
		probs, never := ParseIfRule(c.rule).Problems(c.ev)
		require.Len(t, probs, c.n, "%s: %v", c.rule, probs)
		require.Equal(t, c.never, never, c.rule)
	}
}

func TestSplitShell(t *testing.T) {
	cmds, complex, err := shellread.SplitShell(`A=1 B="x y" git commit -m "fix: it's done" && echo $(npm test 2>/dev/null) | tee log >> all.log; ls`)
	require.NoError(t, err)
	require.True(t, complex)
	require.Equal(t, []string{"git commit -m fix: it's done", "npm test", "echo $(npm test 2>/dev/null)", "tee log", "ls"}, cmds)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
