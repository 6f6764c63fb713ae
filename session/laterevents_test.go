package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/session"
)

// TestLaterEventEffects checks what each of Claude Code's later events does
// to the conversation and what it returns, with real hooks.
func TestLaterEventEffects(t *testing.T) {
	cases := []struct {
		name  string
		hook  hook
		input string
		check func(t *testing.T, out session.Outcome, msgs []session.Message, root string)
	}{{
		name: "Setup additionalContext becomes a hook block",
		hook: hook{event: event.Setup, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"Setup","additionalContext":"node_modules installed"}}`)},
		input: `{"trigger": "init"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"node_modules installed"}, out.AdditionalContext)
			require.Equal(t, []session.Block{session.Block{Type: "hook", Content: "node_modules installed"}.WithHook(session.Hook{Event: "Setup"})}, out.Blocks)
		},
	}, {
		name:  "a blocked UserPromptExpansion tells the user only",
		hook:  hook{event: event.UserPromptExpansion, command: sh("respond.sh", "2", "", "not available here")},
		input: `{"command_name": "deploy", "prompt": "/deploy"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Blocked)
			require.Equal(t, "not available here", out.Reason)
			require.Equal(t, []string{"not available here"}, contents(blocksOf(msgs, session.BlockError)))
			require.Len(t, session.ToAPI(msgs), 1, "the model sees only the tool call")
		},
	}, {
		name:  "UserPromptExpansion stdout is context",
		hook:  hook{event: event.UserPromptExpansion, command: sh("respond.sh", "0", "checklist: tests, docs")},
		input: `{"command_name": "review", "prompt": "/review"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"checklist: tests, docs"}, out.AdditionalContext)
			require.Equal(t, []string{"assistant:tool", "user:text"}, roles(msgs))
		},
	}, {
		name: "PermissionDenied retry tells the model to retry only a call the user asked for",
		hook: hook{event: event.PermissionDenied, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}`)},
		input: `{"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_1", "reason": "Blocked by classifier"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Retry)
			require.Equal(t, []string{"The denied Bash call (toolu_1) may be retried once, through the same permission check, and only if the user asked for what it does. " +
				"If they did, make it again now; if they did not, leave it, tell them that you made this call without being asked and that it was refused before it ran, " +
				"and go on with what they did ask for."}, contents(blocksOf(msgs, session.BlockHook)))
		},
	}, {
		name:  "PostToolBatch exit 2 stops the loop; the reason stays for the model",
		hook:  hook{event: event.PostToolBatch, command: sh("respond.sh", "2", "", "run the tests before going on")},
		input: `{"tool_calls": [{"tool_name": "Bash", "tool_input": {}, "tool_use_id": "toolu_1", "tool_response": "ok"}]}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Blocked)
			require.Equal(t, []string{"assistant:tool", "user:text"}, roles(msgs))
			require.Equal(t, "run the tests before going on", msgs[1].Blocks[0].Content)
		},
	}, {
		name: "MessageDisplay changes only what is displayed",
		hook: hook{event: event.MessageDisplay, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"plain text"},"systemMessage":"dropped"}`)},
		input: `{"delta": "**bold** text", "index": 0, "final": true}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, "plain text", *out.DisplayContent)
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
			require.Empty(t, out.Blocks)
		},
	}, {
		name:  "a failing MessageDisplay hook displays the original text",
		hook:  hook{event: event.MessageDisplay, command: sh("respond.sh", "1", "", "jq: not found")},
		input: `{"delta": "**bold** text", "index": 0, "final": true}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, "**bold** text", *out.DisplayContent)
			require.Equal(t, []string{"assistant:tool"}, roles(msgs), "no error block either")
		},
	}, {
		name:  "a blocked TaskCreated is returned, not added",
		hook:  hook{event: event.TaskCreated, command: sh("respond.sh", "2", "", "subjects need a ticket")},
		input: `{"task_id": "t1", "task_subject": "do it"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Blocked)
			require.Equal(t, "subjects need a ticket", out.Reason)
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
		},
	}, {
		name:  "a blocked ConfigChange shows nothing",
		hook:  hook{event: event.ConfigChange, command: sh("respond.sh", "2", "", "needs review")},
		input: `{"source": "project_settings", "file_path": "/p/.wave/settings.json"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Blocked)
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
		},
	}, {
		name:  "a policy_settings change cannot be blocked",
		hook:  hook{event: event.ConfigChange, command: sh("respond.sh", "2", "", "needs review")},
		input: `{"source": "policy_settings"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.False(t, out.Blocked)
		},
	}, {
		name:  "DirectoryAdded by the user: systemMessage is context for the model",
		hook:  hook{event: event.DirectoryAdded, command: sh("respond.sh", "0", `{"systemMessage":"deps installed in /r"}`)},
		input: `{"directory": "/r", "source": "slash_command"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"deps installed in /r"}, contents(blocksOf(msgs, session.BlockHook)))
			require.Empty(t, blocksOf(msgs, session.BlockWarn))
		},
	}, {
		name:  "DirectoryAdded from the editor: systemMessage only in the run history",
		hook:  hook{event: event.DirectoryAdded, command: sh("respond.sh", "0", `{"systemMessage":"deps installed in /r"}`)},
		input: `{"directory": "/r", "source": "workspace_folder"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
		},
	}, {
		name:  "WorktreeCreate's relative path is resolved in the project",
		hook:  hook{event: event.WorktreeCreate, command: `n=$(jq -r .name); mkdir -p "wt/$n" && echo "wt/$n"`},
		input: `{"name": "feat"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, root string) {
			require.False(t, out.Blocked, out.Reason)
			require.Equal(t, filepath.Join(root, "wt", "feat"), out.WorktreePath)
		},
	}, {
		name:  "WorktreeCreate's path that is not a directory fails the creation",
		hook:  hook{event: event.WorktreeCreate, command: sh("respond.sh", "0", "/nonexistent/worktree")},
		input: `{"name": "feat"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.True(t, out.Blocked)
			require.Equal(t, "", out.WorktreePath)
			errs := contents(blocksOf(msgs, session.BlockError))
			require.Len(t, errs, 1)
			require.Contains(t, errs[0], "worktree creation failed: the worktree path /nonexistent/worktree is not a directory")
		},
	}, {
		name: "Elicitation answered by a hook",
		hook: hook{event: event.Elicitation, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"username":"alice"}}}`)},
		input: `{"mcp_server_name": "s", "message": "who?"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, "accept", out.Action)
			require.JSONEq(t, `{"username":"alice"}`, string(out.Content))
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
		},
	}, {
		name:  "ElicitationResult without an override keeps the user's answer",
		hook:  hook{event: event.ElicitationResult, command: sh("respond.sh", "0")},
		input: `{"mcp_server_name": "s", "action": "accept", "content": {"username": "bob"}}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.False(t, out.Blocked)
			require.Equal(t, "accept", out.Action)
			require.JSONEq(t, `{"username":"bob"}`, string(out.Content))
		},
	}, {
		name:  "StopFailure: nothing reaches the conversation",
		hook:  hook{event: event.StopFailure, command: sh("respond.sh", "2", `{"systemMessage":"x"}`, "oops")},
		input: `{"error": "rate_limit"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
			require.Empty(t, out.Blocks)
		},
	}, {
		name:  "a FileChanged hook's error is shown to the user",
		hook:  hook{event: event.FileChanged, command: sh("respond.sh", "2", "", "direnv: error .envrc is blocked")},
		input: `{"file_path": "/p/.envrc", "event": "change"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message, _ string) {
			require.Equal(t, []string{"direnv: error .envrc is blocked"}, contents(blocksOf(msgs, session.BlockError)))
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, c.hook)
			s := e.create(t)
			require.NoError(t, s.AddAssistantMessage([]session.Block{session.Block{Type: "tool"}.WithTool(session.Tool{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"npm test"}`)})}))
			out, err := s.RunHooks(context.Background(), extra(t, c.hook.event, c.input), nil)
			require.NoError(t, err)
			msgs := s.Messages()
			c.check(t, out, msgs, e.root)
			require.Equal(t, msgs, fileMessages(t, s))
		})
	}
}

// TestCwdChangedMovesTheSessionsCwd: after CwdChanged, the session's hooks
// get the new directory as cwd; old_cwd defaults to the previous one.
func TestCwdChangedMovesTheSessionsCwd(t *testing.T) {
	e := newEnv(t, session.FormatJSON,
		hook{event: event.CwdChanged, command: `jq -c '{old: .old_cwd, new: .new_cwd, cwd: .cwd}' >> "$WAVE_PROJECT_DIR/cwd.log"`},
		hook{event: event.Stop, command: `jq -r .cwd >> "$WAVE_PROJECT_DIR/stop.log"`})
	s := e.create(t)
	ctx := context.Background()
	sub := filepath.Join(e.root, "src")
	_, err := s.Stop(ctx)
	require.NoError(t, err)
	_, err = s.RunHooks(ctx, extra(t, event.CwdChanged, `{"new_cwd": "`+sub+`"}`), nil)
	require.NoError(t, err)
	_, err = s.Stop(ctx)
	require.NoError(t, err)
	log, err := os.ReadFile(filepath.Join(e.root, "cwd.log"))
	require.NoError(t, err)
	require.JSONEq(t, `{"old": "`+e.root+`", "new": "`+sub+`", "cwd": "`+sub+`"}`, string(log))
	stops, err := os.ReadFile(filepath.Join(e.root, "stop.log"))
	require.NoError(t, err)
	require.Equal(t, e.root+"\n"+sub+"\n", string(stops))

	_, err = s.RunHooks(ctx, extra(t, event.CwdChanged, `{"new_cwd": "src"}`), nil)
	require.ErrorContains(t, err, `input.new_cwd: must be an absolute path, not "src"`)
	var invalid *flow.InvalidError
	require.ErrorAs(t, err, &invalid, "a caller's mistake, answered with InvalidParams")
}

// TestPostToolBatchFromTheSession builds the batch from the tool calls the
// session recorded: the hook reads each call with its result.
func TestPostToolBatchFromTheSession(t *testing.T) {
	e := newEnv(t, session.FormatJSON, hook{event: event.PostToolBatch,
		command: `jq -c '[.tool_calls[] | {tool_name, tool_use_id, tool_input, tool_response}]' > "$WAVE_PROJECT_DIR/batch.json"; echo '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"both read"}}'`})
	s := e.create(t)
	ctx := context.Background()
	for _, id := range []string{"toolu_a", "toolu_b"} {
		_, err := s.PreToolUse(ctx, id, "Read", json.RawMessage(`{"file_path":"/`+id+`"}`), nil)
		require.NoError(t, err)
	}
	_, err := s.PostToolUse(ctx, "toolu_a", "Read", nil, json.RawMessage(`"contents of a"`))
	require.NoError(t, err)
	_, err = s.PostToolUse(ctx, "toolu_b", "Read", nil, json.RawMessage(`"contents of b"`))
	require.NoError(t, err)
	out, err := s.PostToolBatch(ctx, []string{"toolu_a", "toolu_b"})
	require.NoError(t, err)
	require.Equal(t, []string{"both read"}, out.AdditionalContext)
	got, err := os.ReadFile(filepath.Join(e.root, "batch.json"))
	require.NoError(t, err)
	var calls []map[string]any
	require.NoError(t, json.Unmarshal(got, &calls))
	require.Len(t, calls, 2)
	require.Equal(t, "toolu_a", calls[0]["tool_use_id"])
	require.Equal(t, "Read", calls[0]["tool_name"])
	require.Equal(t, map[string]any{"file_path": "/toolu_a"}, calls[0]["tool_input"])
	require.NotEmpty(t, calls[0]["tool_response"])
	require.Equal(t, "toolu_b", calls[1]["tool_use_id"])

	_, err = s.PostToolBatch(ctx, []string{"toolu_a", "toolu_nope"})
	require.ErrorContains(t, err, `no tool call "toolu_nope"`)
}
