package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// laterEventCase fires one of Claude Code's later events, with the fields
// Claude Code sends, into a hook written for Claude Code (claudeHook keeps
// the stdin it read), and checks what the hook read and what its answer
// means for that event.
type laterEventCase struct {
	event   event.Event
	matcher string
	input   string         // the event's own fields, as the agent sends them
	stdin   map[string]any // fields the hook must find on stdin
	noMatch string         // input the matcher must turn away ("" for events without matchers)
	hook    string
	check   func(t *testing.T, r hooks.Result, root string)
}

// laterEventCases has one case per event beyond TestEveryEvent's thirteen.
var laterEventCases = []laterEventCase{{
	event: event.Setup, matcher: "init",
	input:   `{"trigger": "init"}`,
	stdin:   map[string]any{"trigger": "init"},
	noMatch: `{"trigger": "maintenance"}`,
	hook:    `jq -n --arg t "$(field .trigger)" '{hookSpecificOutput: {hookEventName: "Setup", additionalContext: ("set up by " + $t)}}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"set up by init"}, r.AdditionalContext)
	},
}, {
	event: event.UserPromptExpansion, matcher: "deploy",
	input: `{"expansion_type": "slash_command", "command_name": "deploy", "command_args": "prod", "command_source": "project", "prompt": "/deploy prod"}`,
	stdin: map[string]any{"expansion_type": "slash_command", "command_name": "deploy", "command_args": "prod",
		"command_source": "project", "prompt": "/deploy prod"},
	noMatch: `{"command_name": "review", "prompt": "/review"}`,
	hook:    `[ "$(field .command_args)" = prod ] && { echo "no production deploys from chat" >&2; exit 2; }; echo "deploy checklist"`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Blocked)
		require.Equal(t, "no production deploys from chat", r.Reason)
		require.Empty(t, r.Errors)
	},
}, {
	event: event.PermissionDenied, matcher: "Bash",
	input:   `{"tool_name": "Bash", "tool_input": {"command": "rm -rf /tmp/build"}, "tool_use_id": "toolu_9", "reason": "Blocked by classifier"}`,
	stdin:   map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /tmp/build"}, "tool_use_id": "toolu_9", "reason": "Blocked by classifier"},
	noMatch: `{"tool_name": "Write", "tool_input": {}, "reason": "x"}`,
	hook:    `[ "$(field .reason)" = "Blocked by classifier" ] && jq -n '{hookSpecificOutput: {hookEventName: "PermissionDenied", retry: true}}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Retry)
		require.False(t, r.Blocked)
	},
}, {
	event: event.PostToolBatch,
	input: `{"tool_calls": [{"tool_name": "Read", "tool_input": {"file_path": "/a.py"}, "tool_use_id": "t1", "tool_response": "1\tx"},
		{"tool_name": "Read", "tool_input": {"file_path": "/b.py"}, "tool_use_id": "t2", "tool_response": "1\ty"}]}`,
	stdin: map[string]any{"tool_calls": []any{
		map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/a.py"}, "tool_use_id": "t1", "tool_response": "1\tx"},
		map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "/b.py"}, "tool_use_id": "t2", "tool_response": "1\ty"}}},
	hook: `n=$(printf '%s' "$input" | jq '.tool_calls | length')
jq -n --arg n "$n" '{hookSpecificOutput: {hookEventName: "PostToolBatch", additionalContext: ($n + " files were read: run pytest")}}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"2 files were read: run pytest"}, r.AdditionalContext)
	},
}, {
	event: event.MessageDisplay,
	input: `{"turn_id": "turn-1", "message_id": "msg-1", "index": 0, "final": true, "delta": "Here is **the plan**:\n"}`,
	stdin: map[string]any{"turn_id": "turn-1", "message_id": "msg-1", "index": float64(0), "final": true, "delta": "Here is **the plan**:\n"},
	hook: `printf '%s' "$input" | jq '{hookSpecificOutput: {hookEventName: "MessageDisplay", displayContent: (.delta | gsub("\\*\\*"; ""))},
  systemMessage: "discarded", continue: false}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.NotNil(t, r.DisplayContent)
		require.Equal(t, "Here is the plan:\n", *r.DisplayContent)
		require.Empty(t, r.Warnings, "MessageDisplay discards systemMessage")
		require.True(t, r.Continue, "and continue")
	},
}, {
	event: event.TaskCreated,
	input: `{"task_id": "task-001", "task_subject": "Implement login", "task_description": "Add endpoints", "teammate_name": "implementer"}`,
	stdin: map[string]any{"task_id": "task-001", "task_subject": "Implement login", "task_description": "Add endpoints", "teammate_name": "implementer"},
	hook: `case "$(field .task_subject)" in "[TICKET-"*) exit 0;; esac
echo '{"decision": "block", "reason": "Task subject must start with a ticket number", "continue": false}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Blocked)
		require.Equal(t, "Task subject must start with a ticket number", r.Reason)
		require.True(t, r.Continue, "TaskCreated ignores continue")
	},
}, {
	event: event.TaskCompleted,
	input: `{"task_id": "task-002", "task_subject": "Fix the parser"}`,
	stdin: map[string]any{"task_id": "task-002", "task_subject": "Fix the parser"},
	hook:  `jq -n --arg s "$(field .task_subject)" '{continue: false, stopReason: ("tests are red for " + $s)}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.False(t, r.Continue)
		require.Equal(t, "tests are red for Fix the parser", r.StopReason)
	},
}, {
	event: event.StopFailure, matcher: "rate_limit",
	input:   `{"error": "rate_limit", "error_details": "429 Too Many Requests", "last_assistant_message": "API Error: Rate limit reached"}`,
	stdin:   map[string]any{"error": "rate_limit", "error_details": "429 Too Many Requests", "last_assistant_message": "API Error: Rate limit reached"},
	noMatch: `{"error": "overloaded"}`,
	hook:    `echo "$(field .error_details)" >> "$WAVE_PROJECT_DIR/failures.log"; echo '{"systemMessage": "ignored", "continue": false}'; exit 2`,
	check: func(t *testing.T, r hooks.Result, root string) {
		require.True(t, r.Continue)
		require.Empty(t, r.Warnings)
		require.Empty(t, r.Errors)
		require.False(t, r.Blocked)
		log, err := os.ReadFile(filepath.Join(root, "failures.log"))
		require.NoError(t, err)
		require.Equal(t, "429 Too Many Requests\n", string(log))
	},
}, {
	event: event.TeammateIdle,
	input: `{"teammate_name": "researcher", "team_name": "session-a1b2"}`,
	stdin: map[string]any{"teammate_name": "researcher", "team_name": "session-a1b2"},
	hook:  `[ -f "$WAVE_PROJECT_DIR/dist.js" ] || { echo "Build artifact missing, $(field .teammate_name)" >&2; exit 2; }`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Blocked)
		require.Equal(t, "Build artifact missing, researcher", r.Reason)
	},
}, {
	event: event.InstructionsLoaded, matcher: "session_start",
	input:   `{"file_path": "/p/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"}`,
	stdin:   map[string]any{"file_path": "/p/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start"},
	noMatch: `{"file_path": "/p/sub/CLAUDE.md", "memory_type": "Project", "load_reason": "nested_traversal"}`,
	hook:    `echo "cannot write the audit log" >&2; exit 1`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Empty(t, r.Errors, "InstructionsLoaded ignores the exit code")
		require.Contains(t, r.Runs[0].Decision, "cannot write the audit log", "the run history keeps it")
	},
}, {
	event: event.ConfigChange, matcher: "project_settings",
	input:   `{"source": "project_settings", "file_path": "/p/.wave/settings.json"}`,
	stdin:   map[string]any{"source": "project_settings", "file_path": "/p/.wave/settings.json"},
	noMatch: `{"source": "user_settings"}`,
	hook:    `jq -n '{decision: "block", reason: "project settings need review", systemMessage: "discarded"}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Blocked)
		require.Equal(t, "project settings need review", r.Reason)
		require.Empty(t, r.Warnings, "ConfigChange discards systemMessage")
	},
}, {
	event: event.CwdChanged,
	input: `{"old_cwd": "/p", "new_cwd": "/p/src"}`,
	stdin: map[string]any{"old_cwd": "/p", "new_cwd": "/p/src"},
	hook:  `jq -n --arg d "$(field .new_cwd)" '{hookSpecificOutput: {hookEventName: "CwdChanged", watchPaths: [($d + "/.envrc"), ($d + "/.envrc")]}, continue: false}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"/p/src/.envrc"}, r.WatchPaths)
		require.True(t, r.Continue, "CwdChanged discards continue")
	},
}, {
	event: event.DirectoryAdded, matcher: "slash_command",
	input:   `{"directory": "/other-repo", "source": "slash_command"}`,
	stdin:   map[string]any{"directory": "/other-repo", "source": "slash_command"},
	noMatch: `{"directory": "/other-repo", "source": "register_repo_root"}`,
	hook:    `jq -n --arg d "$(field .directory)" '{systemMessage: ("installed the dependencies of " + $d)}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"installed the dependencies of /other-repo"}, r.AdditionalContext, "context for the model")
		require.Empty(t, r.Warnings)
	},
}, {
	event: event.FileChanged, matcher: ".envrc|.env",
	input:   `{"file_path": "/p/.envrc", "event": "change"}`,
	stdin:   map[string]any{"file_path": "/p/.envrc", "event": "change"},
	noMatch: `{"file_path": "/p/notes.txt", "event": "add"}`,
	hook:    `jq -n --arg f "$(field .file_path)" --arg e "$(field .event)" '{systemMessage: ($f + ": " + $e)}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"/p/.envrc: change"}, r.Warnings)
	},
}, {
	event: event.WorktreeCreate,
	input: `{"name": "feature-auth"}`,
	stdin: map[string]any{"name": "feature-auth"},
	hook: `d="$WAVE_PROJECT_DIR/worktrees/$(field .name)"; mkdir -p "$d" >&2
printf 'welcome\n\033[1m%s\033[0m\n\n' "$d"`,
	check: func(t *testing.T, r hooks.Result, root string) {
		require.False(t, r.Blocked, r.Reason)
		require.Equal(t, filepath.Join(root, "worktrees", "feature-auth"), r.WorktreePath, "the last line, without escapes")
	},
}, {
	event: event.WorktreeRemove,
	input: `{"worktree_path": "/p/worktrees/feature-auth"}`,
	stdin: map[string]any{"worktree_path": "/p/worktrees/feature-auth"},
	hook:  `echo "cannot remove $(field .worktree_path)" >&2; exit 2`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Empty(t, r.Errors, "WorktreeRemove failures are only in the run history")
		require.False(t, r.Blocked)
		require.Contains(t, r.Runs[0].Decision, "cannot remove /p/worktrees/feature-auth")
	},
}, {
	event: event.Elicitation, matcher: "my-server",
	input: `{"mcp_server_name": "my-server", "message": "Please provide your credentials", "mode": "form",
		"requested_schema": {"type": "object", "properties": {"username": {"type": "string"}}}}`,
	stdin: map[string]any{"mcp_server_name": "my-server", "message": "Please provide your credentials", "mode": "form",
		"requested_schema": map[string]any{"type": "object", "properties": map[string]any{"username": map[string]any{"type": "string"}}}},
	noMatch: `{"mcp_server_name": "other-server", "message": "x"}`,
	hook:    `jq -n '{hookSpecificOutput: {hookEventName: "Elicitation", action: "accept", content: {username: "alice"}}, systemMessage: "discarded"}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, "accept", r.Action)
		require.JSONEq(t, `{"username":"alice"}`, string(r.Content))
		require.Empty(t, r.Warnings)
		require.Equal(t, "action: accept; 1 of 1 hook(s) ran", hooks.Summary(&r), "the run history says what was answered")
		require.Equal(t, "json: systemMessage, action: accept; systemMessage ignored: Elicitation discards it", r.Runs[0].Decision)
	},
}, {
	event: event.ElicitationResult, matcher: "my-server",
	input:   `{"mcp_server_name": "my-server", "action": "accept", "content": {"username": "root"}, "mode": "form", "elicitation_id": "elicit-1"}`,
	stdin:   map[string]any{"mcp_server_name": "my-server", "action": "accept", "content": map[string]any{"username": "root"}, "elicitation_id": "elicit-1"},
	noMatch: `{"mcp_server_name": "other", "action": "accept"}`,
	hook:    `[ "$(field .content.username)" = root ] && { echo "no root logins" >&2; exit 2; }; exit 0`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.True(t, r.Blocked)
		require.Equal(t, "decline", r.Action, "exit 2 makes the answer decline")
		require.Nil(t, r.Content)
	},
}, {
	event: event.PreModelSwitch,
	input: `{}`,
	stdin: map[string]any{},
	hook: `[ "$(field .hook_event_name)" = PreModelSwitch ] &&
jq -n '{hookSpecificOutput: {hookEventName: "PreModelSwitch", permissionDecision: "ask", permissionDecisionReason: "switching models mid-task"}}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, hooks.PermissionAsk, r.Permission)
		require.Equal(t, "switching models mid-task", r.Reason)
	},
}, {
	event: event.PostModelSwitch,
	input: `{}`,
	stdin: map[string]any{},
	hook:  `jq -n --arg e "$(field .hook_event_name)" '{hookSpecificOutput: {hookEventName: $e, additionalContext: "re-read CONTRIBUTING.md"}}'`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, []string{"re-read CONTRIBUTING.md"}, r.AdditionalContext)
	},
}, {
	event: event.PreSkillShellCommand, matcher: "Bash",
	input: `{"tool_name": "Bash", "tool_input": {"command": "git push --force"}, "tool_use_id": "toolu_1:preamble-0",
		"command_name": "ship", "command_source": "project", "invoked_by": "claude"}`,
	stdin: map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git push --force"}, "tool_use_id": "toolu_1:preamble-0",
		"command_name": "ship", "command_source": "project", "invoked_by": "claude"},
	noMatch: `{"tool_name": "PowerShell", "tool_input": {"command": "Get-ChildItem"}}`,
	hook: `case "$(field .tool_input.command)" in *--force*)
jq -n --arg n "$(field .command_name)" '{hookSpecificOutput: {hookEventName: "PreSkillShellCommand", permissionDecision: "deny", permissionDecisionReason: ("no force pushes from /" + $n)}}';; esac`,
	check: func(t *testing.T, r hooks.Result, _ string) {
		require.Equal(t, hooks.PermissionDeny, r.Permission)
		require.Equal(t, "no force pushes from /ship", r.Reason)
	},
}}

// TestLaterEvents runs laterEventCases like TestEveryEvent runs the others.
func TestLaterEvents(t *testing.T) {
	seen := map[event.Event]bool{}
	for _, c := range laterEventCases {
		seen[c.event] = true
		t.Run(string(c.event), func(t *testing.T) {
			b, err := json.Marshal(map[string]any{"hooks": map[string]any{string(c.event): []any{map[string]any{
				"matcher": c.matcher, "hooks": []any{map[string]any{"type": "command", "command": claudeHook(c.hook)}}}}}})
			require.NoError(t, err)
			e, root := setup(t, string(b))
			fire := func(fields string) hooks.Result {
				in, err := event.ParseInput(c.event, []byte(fields))
				require.NoError(t, err)
				in.SessionID, in.TranscriptPath, in.Cwd = "sess_1", "/tmp/session_1.json", root
				return e.Fire(context.Background(), in)
			}
			res := fire(c.input)
			require.True(t, res.Runs[0].Ran, "%+v", res.Runs[0])
			c.check(t, res, root)
			raw, err := os.ReadFile(filepath.Join(root, "stdin.json"))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(raw, &got))
			want := map[string]any{"session_id": "sess_1", "transcript_path": "/tmp/session_1.json", "cwd": root, "hook_event_name": string(c.event)}
			for k, v := range c.stdin {
				want[k] = v
			}
			for k, v := range want {
				require.Equal(t, v, got[k], "stdin field %s", k)
			}
			spec, _ := event.Spec(c.event)
			require.Equal(t, c.noMatch != "", spec.MatchField != "", "a case has a noMatch input exactly when its event has a matcher")
			if c.noMatch != "" {
				res := fire(c.noMatch)
				require.False(t, res.Runs[0].Matched, res.Runs[0].Why)
			}
		})
	}
	require.Len(t, seen, len(laterEventCases), "one case per event")
	require.Len(t, seen, 21)
}

// laterExitTwo is what exit 2 means for each later event, as Claude Code's
// "Exit code 2 behavior per event" table says: block (the event's action
// does not happen, or the model gets the reason), an error the user sees,
// or ignored (only the run history keeps it).
var laterExitTwo = map[event.Event]string{
	event.Setup: "error", event.UserPromptExpansion: "block", event.PermissionDenied: "ignored", event.PostToolBatch: "block",
	event.MessageDisplay: "ignored", event.TaskCreated: "block", event.TaskCompleted: "block", event.StopFailure: "ignored",
	event.TeammateIdle: "block", event.InstructionsLoaded: "ignored", event.ConfigChange: "block", event.CwdChanged: "error",
	event.DirectoryAdded: "ignored", event.FileChanged: "error", event.WorktreeCreate: "block", event.WorktreeRemove: "ignored",
	event.Elicitation: "block", event.ElicitationResult: "block",
	event.PreModelSwitch: "deny", event.PreSkillShellCommand: "deny", event.PostModelSwitch: "error",
}

func TestExitTwoPerLaterEvent(t *testing.T) {
	require.Len(t, laterExitTwo, 21)
	for ev, outcome := range laterExitTwo {
		t.Run(string(ev), func(t *testing.T) {
			e, root := setup(t, one(ev, `jq -r .hook_event_name >/dev/null; echo "said no" >&2; exit 2`))
			res := e.Fire(context.Background(), event.Input{Event: ev, SessionID: "s", Cwd: root})
			require.True(t, res.Runs[0].Ran)
			got := "ignored"
			switch {
			case res.Permission == hooks.PermissionDeny:
				got = "deny"
			case res.Blocked:
				got = "block"
			case len(res.Errors) > 0:
				got = "error"
			}
			require.Equal(t, outcome, got)
			switch outcome {
			case "block", "deny":
				require.Equal(t, "said no", res.Reason)
			case "error":
				require.Equal(t, []string{"said no"}, res.Errors)
			case "ignored":
				require.Empty(t, res.Warnings)
				require.Contains(t, res.Runs[0].Decision, "said no", "the run history keeps what the hook said")
			}
			spec, _ := event.Spec(ev)
			require.NotEmpty(t, spec.Exit2)
		})
	}
}

// TestLaterEventAnswers covers the answers that need more than one case:
// what is rejected, what conflicts, what an event does not read.
func TestLaterEventAnswers(t *testing.T) {
	cases := []struct {
		name   string
		event  event.Event
		hooks  []string
		check  func(t *testing.T, r hooks.Result)
		fields string
	}{{
		name: "an action outside accept, decline and cancel is rejected", event: event.Elicitation,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "maybe"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "", r.Action)
			require.Len(t, r.Warnings, 1)
			require.Contains(t, r.Warnings[0], `action must be "accept", "decline" or "cancel", not "maybe"`)
		},
	}, {
		name: "content is dropped unless the answer accepts", event: event.Elicitation,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "cancel", "content": {"a": 1}}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "cancel", r.Action)
			require.Nil(t, r.Content)
		},
	}, {
		name: "two hooks answering differently: the last wins, with a warning", event: event.Elicitation,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"u": "a"}}}'`,
			`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "decline"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "decline", r.Action)
			require.Len(t, r.Warnings, 1)
			require.Contains(t, r.Warnings[0], "last one in configuration order")
		},
	}, {
		name: "retry on another event is noted and ignored", event: event.PostToolUse,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "retry": true, "additionalContext": "kept"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Retry)
			require.Equal(t, []string{"kept"}, r.AdditionalContext)
			require.Contains(t, r.Runs[0].Decision, "ignored retry: PostToolUse does not read it")
		},
	}, {
		name: "watchPaths must be absolute", event: event.FileChanged,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "FileChanged", "watchPaths": ["relative/.env"]}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Nil(t, r.WatchPaths)
			require.Contains(t, r.Warnings[0], `watchPaths must be absolute paths, not "relative/.env"`)
		},
	}, {
		name: "SessionStart's watchPaths are read with its context", event: event.SessionStart,
		hooks: []string{`jq '{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: "ready", watchPaths: [.cwd + "/.env"]}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Len(t, r.WatchPaths, 1)
			require.Equal(t, ".env", filepath.Base(r.WatchPaths[0]))
			require.Equal(t, []string{"ready"}, r.AdditionalContext)
			require.Empty(t, r.Warnings)
		},
	}, {
		name: "SessionStart's requests of the host: the last title wins, with a warning; any reloadSkills counts", event: event.SessionStart,
		hooks: []string{`jq '{hookSpecificOutput: {hookEventName: "SessionStart", sessionTitle: "first", reloadSkills: true, initialUserMessage: ("start of " + .hook_event_name)}}'`,
			`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "second", "reloadSkills": false}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, "second", r.SessionTitle)
			require.True(t, r.ReloadSkills)
			require.Equal(t, "start of SessionStart", r.InitialUserMessage)
			require.Len(t, r.Warnings, 1)
			require.Contains(t, r.Warnings[0], "several SessionStart hooks answered the session title differently")
			require.Contains(t, r.Runs[0].Decision, "title: first")
		},
	}, {
		name: "SessionStart's fields on another event are noted and ignored", event: event.Setup,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "Setup", "sessionTitle": "x", "reloadSkills": true}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Empty(t, r.SessionTitle)
			require.False(t, r.ReloadSkills)
			require.Contains(t, r.Runs[0].Decision, "ignored sessionTitle, reloadSkills")
		},
	}, {
		name: "watchPaths on another event are noted and ignored", event: event.UserPromptSubmit,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "watchPaths": ["/tmp/x"]}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.Nil(t, r.WatchPaths)
			require.Contains(t, r.Runs[0].Decision, "ignored watchPaths")
		},
	}, {
		name: "an empty watchPaths clears the list", event: event.CwdChanged,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "CwdChanged", "watchPaths": []}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.NotNil(t, r.WatchPaths)
			require.Empty(t, r.WatchPaths)
		},
	}, {
		name: "Setup's plain stdout is not context", event: event.Setup,
		hooks: []string{`cat >/dev/null; echo "installed"`},
		check: func(t *testing.T, r hooks.Result) {
			require.Empty(t, r.Context)
			require.Empty(t, r.AdditionalContext)
		},
	}, {
		name: "UserPromptExpansion's plain stdout is context", event: event.UserPromptExpansion,
		hooks: []string{`cat >/dev/null; echo "review checklist: tests, docs"`},
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"review checklist: tests, docs"}, r.Context)
		},
	}, {
		name: "a blocked expansion gives no context", event: event.UserPromptExpansion,
		hooks: []string{`cat >/dev/null; echo '{"decision": "block", "reason": "not here", "hookSpecificOutput": {"hookEventName": "UserPromptExpansion", "additionalContext": "x"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "not here", r.Reason)
			require.Empty(t, r.AdditionalContext)
		},
	}, {
		name: "TaskCompleted is refused with exit 2, not a JSON decision", event: event.TaskCompleted,
		hooks: []string{`cat >/dev/null; echo '{"decision": "block", "reason": "no"}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Blocked)
			require.Contains(t, r.Runs[0].Decision, `decision "block" ignored`)
		},
	}, {
		name: "a WorktreeCreate hook that prints no path fails the creation", event: event.WorktreeCreate,
		hooks: []string{`cat >/dev/null; echo "   "`},
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Contains(t, r.Reason, "printed no worktree path")
			require.Equal(t, "", r.WorktreePath)
		},
	}, {
		name: "any non-zero exit fails WorktreeCreate", event: event.WorktreeCreate,
		hooks: []string{`cat >/dev/null; echo /tmp; echo "svn: checkout failed" >&2; exit 1`},
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "svn: checkout failed", r.Reason)
			require.Equal(t, "", r.WorktreePath)
		},
	}, {
		name: "an absolute worktree path with .. is refused", event: event.WorktreeCreate,
		hooks: []string{`cat >/dev/null; echo /tmp/../etc`},
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Contains(t, r.Reason, "may not contain . or .. segments")
		},
	}, {
		name: "an http-style worktreePath answer is read", event: event.WorktreeCreate,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": "/srv/wt/x"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Blocked)
			require.Equal(t, "/srv/wt/x", r.WorktreePath)
		},
	}, {
		name: "PermissionDenied's invalid answer only reaches the run history", event: event.PermissionDenied,
		hooks: []string{`cat >/dev/null; echo '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": "yes"}}'`},
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Retry)
			require.Empty(t, r.Warnings)
			require.Contains(t, r.Runs[0].Decision, "answer not read")
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var list []any
			for _, h := range c.hooks {
				list = append(list, map[string]any{"type": "command", "command": h})
			}
			b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(c.event): []any{map[string]any{"hooks": list}}}})
			e, root := setup(t, string(b))
			res := e.Fire(context.Background(), event.Input{Event: c.event, Cwd: root})
			c.check(t, res)
		})
	}
}

func TestLaterEventInputTypes(t *testing.T) {
	for _, c := range []struct {
		event event.Event
		input string
		err   string
	}{
		{event.MessageDisplay, `{"final": "yes"}`, "final must be a boolean"},
		{event.MessageDisplay, `{"index": "0"}`, "index must be a number"},
		{event.PostToolBatch, `{"tool_calls": {}}`, "tool_calls must be an array"},
		{event.PostToolBatch, `{"tool_calls": [{"tool_input": {}}]}`, "tool_calls[0].tool_name is required"},
		{event.Elicitation, `{"requested_schema": "x"}`, "requested_schema must be an object"},
		{event.ElicitationResult, `{"content": [1]}`, "content must be an object"},
		{event.InstructionsLoaded, `{"globs": "*.md"}`, "globs must be an array"},
		{event.TaskCreated, `{"task_description": 3}`, "task_description must be a string"},
	} {
		_, err := event.ParseInput(c.event, []byte(c.input))
		require.ErrorContains(t, err, c.err, c.input)
	}
}

// TestNarrowMatchers: FileChanged and StopFailure keep Claude Code's narrower
// exact lists, where '-', ' ' and ',' make the matcher a regex.
func TestNarrowMatchers(t *testing.T) {
	for _, c := range []struct {
		ev      event.Event
		matcher string
		value   string
		match   bool
	}{
		{event.StopFailure, "rate_limit|overloaded", "overloaded", true},
		{event.StopFailure, "rate_limit, overloaded", "overloaded", false}, // a regex: "rate_limit, overloaded" appears nowhere
		{event.Notification, "permission_prompt, idle_prompt", "idle_prompt", true},
		{event.FileChanged, "my-file", "my-file.bak", true}, // a regex, unanchored
		{event.SessionStart, "my-file", "my-file.bak", false},
	} {
		m, err := settings.CompileMatcherFor(c.ev, c.matcher)
		require.NoError(t, err)
		require.Equal(t, c.match, m.Match(c.value), "%s %q on %q", c.ev, c.matcher, c.value)
	}
}

func TestFileChangedWatchList(t *testing.T) {
	e, root := setup(t, `{"hooks": {"FileChanged": [
		{"matcher": ".envrc|.env", "hooks": [{"type": "command", "command": "true"}]},
		{"matcher": "config/app.toml|../outside", "hooks": [{"type": "command", "command": "true"}]},
		{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]},
		{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	require.Equal(t, []string{filepath.Join(root, ".envrc"), filepath.Join(root, ".env"), filepath.Join(root, "config", "app.toml")},
		e.Config().FileChangedWatchList())
}

func TestResolveWorktreePath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "wt", "a"), 0o755))
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))

	got, err := hooks.ResolveWorktreePath(root, "wt/./a/../a")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "wt", "a"), got)
	got, err = hooks.ResolveWorktreePath(root, outside)
	require.NoError(t, err, "an absolute path outside the project is the hook's choice")
	require.Equal(t, outside, got)
	_, err = hooks.ResolveWorktreePath(root, "link")
	require.ErrorContains(t, err, "passes through the symbolic link")
	_, err = hooks.ResolveWorktreePath(root, "file")
	require.ErrorContains(t, err, "is not a directory")
	_, err = hooks.ResolveWorktreePath(root, "missing")
	require.ErrorContains(t, err, "is not a directory")
}

func TestEventDocsOfLaterEvents(t *testing.T) {
	for ev := range laterExitTwo {
		doc, ok := settings.EventDoc(ev)
		require.True(t, ok)
		require.Contains(t, doc, "**"+string(ev)+"**")
		require.Contains(t, doc, "JSON: ")
		spec, _ := event.Spec(ev)
		for _, f := range spec.Fields {
			require.Contains(t, doc, "`"+f+"`")
		}
	}
	doc, _ := settings.EventDoc(event.ConfigChange)
	require.True(t, strings.Contains(doc, "`user_settings`"), doc)
}

// TestLintOfLaterEvents: the later events are known (no unknown-event), and a
// matcher on one that ignores matchers is a warning, as for the others, and
// so is a tool event's matcher that names no tool.
func TestLintOfLaterEvents(t *testing.T) {
	for ev := range laterExitTwo {
		spec, _ := event.Spec(ev)
		text := `{"hooks": {"` + string(ev) + `": [{"matcher": "something", "hooks": [{"type": "command", "command": "true"}]}]}}`
		f := settings.ParseFile("settings.json", settings.SourceUser, []byte(text), t.TempDir())
		var codes []string
		for _, d := range f.Diagnostics {
			codes = append(codes, d.Code)
		}
		switch {
		case spec.MatchField == "":
			require.Equal(t, []string{settings.CodeMatcherIgnored}, codes, ev)
		case event.ToolEvent(ev):
			require.Equal(t, []string{settings.CodeUnknownTool}, codes, "%s: \"something\" is no tool", ev)
		default:
			require.Empty(t, codes, ev)
		}
		require.Len(t, f.Hooks, 1, "the hook of %s loads", ev)
	}
}
