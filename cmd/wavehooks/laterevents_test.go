package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// laterEventRuns are Claude Code's later events as `wavehooks run EVENT`
// fires them into testdata/parity/claude-later, a project whose
// .claude/settings.json has one hook script per event, written as Claude
// Code's reference writes them: each reads its stdin with jq (and keeps it
// in stdin/EVENT.json), and answers with exit 2, JSON or plain stdout.
var laterEventRuns = []struct {
	event, input string
	want         map[string]any // fields of the printed result
	blocks       string         // a part of the JSON of the result's blocks
	stdin        map[string]any // fields the hook read
}{
	{"Setup", `{"trigger": "init"}`,
		map[string]any{"additionalContext": []string{"Dependencies installed (init)."}}, `"hookEvent":"Setup"`,
		map[string]any{"trigger": "init"}},
	{"UserPromptExpansion", `{"expansion_type": "slash_command", "command_name": "deploy", "command_args": "prod", "command_source": "project", "prompt": "/deploy prod"}`,
		map[string]any{"blocked": true, "reason": "Deploying to prod needs approvals/prod"}, `"type":"error"`,
		map[string]any{"command_name": "deploy", "command_args": "prod", "expansion_type": "slash_command", "command_source": "project", "prompt": "/deploy prod"}},
	{"PermissionDenied", `{"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_1", "reason": "Blocked by classifier"}`,
		map[string]any{"retry": true}, `may be retried`,
		map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_1", "reason": "Blocked by classifier"}},
	{"PostToolBatch", `{"tool_calls": [{"tool_name": "Read", "tool_input": {"file_path": "a.py"}, "tool_use_id": "t1", "tool_response": "1\tx"}, {"tool_name": "Grep", "tool_input": {"pattern": "x"}, "tool_use_id": "t2", "tool_response": "a.py"}]}`,
		map[string]any{"additionalContext": []string{"2 tool calls ran: Read, Grep"}}, "",
		map[string]any{"tool_calls": []any{
			map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "a.py"}, "tool_use_id": "t1", "tool_response": "1\tx"},
			map[string]any{"tool_name": "Grep", "tool_input": map[string]any{"pattern": "x"}, "tool_use_id": "t2", "tool_response": "a.py"}}}},
	{"MessageDisplay", "{\"turn_id\": \"turn-1\", \"message_id\": \"m-1\", \"index\": 0, \"final\": true, \"delta\": \"Run **`make test`** first.\\n\"}",
		map[string]any{"displayContent": "Run make test first.\n", "blocks": []any{}}, "",
		map[string]any{"turn_id": "turn-1", "message_id": "m-1", "index": 0, "final": true}},
	{"TaskCreated", `{"task_id": "task-001", "task_subject": "Add login", "task_description": "endpoints", "teammate_name": "implementer"}`,
		map[string]any{"blocked": true, "reason": "Task subject must start with a ticket number, e.g. '[TICKET-123] Add feature'", "blocks": []any{}}, "",
		map[string]any{"task_id": "task-001", "task_subject": "Add login", "task_description": "endpoints", "teammate_name": "implementer"}},
	{"TaskCompleted", `{"task_id": "task-002", "task_subject": "WIP: parser"}`,
		map[string]any{"blocked": true, "reason": "task-002 is still WIP: finish it first"}, "",
		map[string]any{"task_id": "task-002", "task_subject": "WIP: parser"}},
	{"StopFailure", `{"error": "rate_limit", "error_details": "429 Too Many Requests", "last_assistant_message": "API Error: Rate limit reached"}`,
		map[string]any{"blocked": false, "blocks": []any{}}, "",
		map[string]any{"error": "rate_limit", "error_details": "429 Too Many Requests", "last_assistant_message": "API Error: Rate limit reached"}},
	{"TeammateIdle", `{"teammate_name": "researcher", "team_name": "session-a1"}`,
		map[string]any{"blocked": true, "reason": "Build artifact missing, researcher: run the build before stopping."}, "",
		map[string]any{"teammate_name": "researcher", "team_name": "session-a1"}},
	{"InstructionsLoaded", `{"file_path": "/p/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"}`,
		map[string]any{"blocks": []any{}}, "",
		map[string]any{"file_path": "/p/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"}},
	{"ConfigChange", `{"source": "project_settings", "file_path": "/p/.claude/settings.json"}`,
		map[string]any{"blocked": true, "reason": "changes to project_settings need review", "blocks": []any{}}, "",
		map[string]any{"source": "project_settings", "file_path": "/p/.claude/settings.json"}},
	{"CwdChanged", `{"old_cwd": "/p", "new_cwd": "/p/src"}`,
		map[string]any{"watchPaths": []string{"/p/src/.envrc"}}, "",
		map[string]any{"old_cwd": "/p", "new_cwd": "/p/src", "cwd": "/p/src"}},
	{"DirectoryAdded", `{"directory": "/srv/other-repo", "source": "slash_command"}`,
		map[string]any{"additionalContext": []string{"Installed the dependencies of /srv/other-repo"}}, `"hookEvent":"DirectoryAdded"`,
		map[string]any{"directory": "/srv/other-repo", "source": "slash_command"}},
	{"FileChanged", `{"file_path": "/p/.envrc", "event": "change"}`,
		map[string]any{"blocked": false}, `".envrc change: run direnv allow"`,
		map[string]any{"file_path": "/p/.envrc", "event": "change"}},
	{"WorktreeCreate", `{"name": "feature-auth"}`,
		map[string]any{"blocked": false, "worktreePath": "$PROJECT/.worktrees/feature-auth"}, "",
		map[string]any{"name": "feature-auth"}},
	{"WorktreeRemove", `{"worktree_path": "/elsewhere/wt"}`,
		map[string]any{"blocks": []any{}}, "",
		map[string]any{"worktree_path": "/elsewhere/wt"}},
	{"Elicitation", `{"mcp_server_name": "my-server", "message": "Log in", "mode": "form", "requested_schema": {"type": "object"}}`,
		map[string]any{"action": "accept", "content": map[string]any{"username": "ci-bot"}}, "",
		map[string]any{"mcp_server_name": "my-server", "message": "Log in", "mode": "form", "requested_schema": map[string]any{"type": "object"}}},
	{"ElicitationResult", `{"mcp_server_name": "my-server", "action": "accept", "content": {"username": "root"}, "mode": "form"}`,
		map[string]any{"blocked": true, "action": "decline"}, "",
		map[string]any{"mcp_server_name": "my-server", "action": "accept", "content": map[string]any{"username": "root"}}},
}

// TestRunLaterEvents runs each later event through the built binary.
func TestRunLaterEvents(t *testing.T) {
	c := buildCLI(t)
	project, home := copyTree(t, "claude-later"), t.TempDir()
	writeFile(t, filepath.Join(project, ".wave", "settings.json"), `{"importClaudeHooks": true}`)
	seen := map[string]bool{}
	for _, tc := range laterEventRuns {
		seen[tc.event] = true
		t.Run(tc.event, func(t *testing.T) {
			common := `{"session_id": "sess_later1", "transcript_path": "/tmp/t.jsonl", ` + strings.TrimPrefix(tc.input, "{")
			out, stderr := c.run(tc.event, project, home, common)
			require.Empty(t, stderr, "no configuration problems")
			want := map[string]any{}
			for k, v := range tc.want {
				if s, ok := v.(string); ok {
					v = strings.ReplaceAll(s, "$PROJECT", project)
				}
				want[k] = v
			}
			subset(t, want, out)
			if tc.blocks != "" {
				require.Contains(t, mustJSON(out["blocks"]), tc.blocks)
			}
			raw, err := os.ReadFile(filepath.Join(project, "stdin", tc.event+".json"))
			require.NoError(t, err, "the hook ran")
			var stdin map[string]any
			require.NoError(t, json.Unmarshal(raw, &stdin))
			subset(t, map[string]any{"hook_event_name": tc.event, "session_id": "sess_later1"}, stdin)
			subset(t, tc.stdin, stdin)
		})
	}
	require.Len(t, seen, 18)
	log, err := os.ReadFile(filepath.Join(project, "failures.log"))
	require.NoError(t, err)
	require.Equal(t, "rate_limit: 429 Too Many Requests\n", string(log))
	log, err = os.ReadFile(filepath.Join(project, "instructions.log"))
	require.NoError(t, err)
	require.Equal(t, "Project /p/CLAUDE.md\n", string(log))
	require.DirExists(t, filepath.Join(project, ".worktrees", "feature-auth"))

	// The matchers: another server's elicitation, another error, a manual
	// compaction are left alone.
	out, _ := c.run("Elicitation", project, home, `{"mcp_server_name": "other", "message": "x", "mode": "form"}`)
	require.Nil(t, out["action"], "no hook answered: the user is asked as usual")
	out, _ = c.run("WorktreeRemove", project, home, `{"worktree_path": "`+filepath.Join(project, ".worktrees", "feature-auth")+`"}`)
	require.Equal(t, []any{}, out["blocks"])
	require.NoDirExists(t, filepath.Join(project, ".worktrees", "feature-auth"), "the hook removed it")
}

// TestLintAcceptsEveryEvent: a settings file that registers all 34 of
// Claude Code's events and all five hook types loads without an error or a
// warning.
func TestLintAcceptsEveryEvent(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "testdata", "config", "all-events.json"))
	require.NoError(t, err)
	env := newCLIEnv(t, string(text))
	out, stderr, code := env.run(t, "", "lint", "--project", env.project)
	require.Equal(t, 0, code, out+stderr)
	require.Empty(t, out, "no diagnostic")
	require.Contains(t, stderr, "1 settings file(s), 38 hook(s), 0 error(s), 0 warning(s)")
}

// TestWorktreeCreateGuideExample runs docs/hooks.md's WorktreeCreate example.
func TestWorktreeCreateGuideExample(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "$SCRIPTS/worktree-create.sh"}]}]}}`)
	out, stderr, code := env.run(t, `{"name": "feature-x"}`, "run", "WorktreeCreate", "--project", env.project)
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, filepath.Join(env.project, ".worktrees", "feature-x"), res["worktreePath"])
	require.DirExists(t, filepath.Join(env.project, ".worktrees", "feature-x"))
}
