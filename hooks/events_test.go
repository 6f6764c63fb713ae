package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// claudeHook wraps a hook body the way hook scripts for Claude Code are
// written: read stdin once into $input, then pick fields with jq. The raw
// stdin is kept for the test.
func claudeHook(body string) string {
	return `input=$(cat); printf '%s' "$input" > "$WAVE_PROJECT_DIR/stdin.json"; field() { printf '%s' "$input" | jq -r "$1"; }; ` + body
}

// TestEveryEvent fires each of the 13 events with the fields Claude Code
// sends, into a hook written for Claude Code, and checks what the hook read
// and what its answer means for that event.
func TestEveryEvent(t *testing.T) {
	cases := []struct {
		event   event.Event
		matcher string
		input   string         // the event's own fields, as the agent sends them
		stdin   map[string]any // fields the hook must find on stdin
		noMatch string         // input the matcher must turn away ("" for events without matchers)
		hook    string
		check   func(t *testing.T, r hooks.Result)
	}{{
		event: event.PreToolUse, matcher: "Bash",
		input:   `{"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_1"}`,
		stdin:   map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf build"}, "tool_use_id": "toolu_1"},
		noMatch: `{"tool_name": "Read", "tool_input": {}, "tool_use_id": "toolu_2"}`,
		hook:    `case "$(field .tool_input.command)" in *"rm -rf"*) echo "no recursive deletes" >&2; exit 2;; esac`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, hooks.PermissionDeny, r.Permission)
			require.Equal(t, "no recursive deletes", r.Reason)
		},
	}, {
		event: event.PostToolUse, matcher: "Write|Edit",
		input:   `{"tool_name": "Write", "tool_input": {"file_path": "/x.go"}, "tool_use_id": "t", "tool_response": {"success": true}}`,
		stdin:   map[string]any{"tool_name": "Write", "tool_response": map[string]any{"success": true}},
		noMatch: `{"tool_name": "Bash", "tool_use_id": "t"}`,
		hook:    `jq -n --arg f "$(field .tool_input.file_path)" '{decision: "block", reason: ("gofmt " + $f + " first")}'`,
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "gofmt /x.go first", r.Reason)
		},
	}, {
		event: event.PostToolUseFailure, matcher: "Bash",
		input: `{"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "t", "error": "exit status 2", "is_interrupt": false}`,
		stdin: map[string]any{"tool_name": "Bash", "error": "exit status 2", "is_interrupt": false, "tool_use_id": "t"},
		hook: `[ "$(field .is_interrupt)" = false ] || exit 0
jq -n --arg e "$(field .error)" '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: ("make failed: " + $e)}}'`,
		noMatch: `{"tool_name": "Read", "error": "x"}`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"make failed: exit status 2"}, r.AdditionalContext)
		},
	}, {
		event: event.UserPromptSubmit,
		input: `{"prompt": "deploy to prod"}`,
		stdin: map[string]any{"prompt": "deploy to prod"},
		hook:  `case "$(field .prompt)" in *prod*) echo "Production deploys need a ticket." >&2; exit 2;; esac`,
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "Production deploys need a ticket.", r.Reason)
		},
	}, {
		event: event.Stop,
		input: `{"stop_hook_active": true}`,
		stdin: map[string]any{"stop_hook_active": true},
		hook:  `[ "$(field .stop_hook_active)" = true ] && exit 0; echo "run the tests" >&2; exit 2`,
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Blocked, "stop_hook_active lets the agent stop")
		},
	}, {
		event: event.SubagentStart, matcher: "Explore",
		input:   `{"agent_id": "agent_1", "agent_type": "Explore"}`,
		stdin:   map[string]any{"agent_id": "agent_1", "agent_type": "Explore"},
		noMatch: `{"agent_id": "agent_2", "agent_type": "Plan"}`,
		hook:    `jq -n '{hookSpecificOutput: {hookEventName: "SubagentStart", additionalContext: "Stay read-only."}}'`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"Stay read-only."}, r.AdditionalContext)
		},
	}, {
		event: event.SubagentStop, matcher: "Explore",
		input:   `{"agent_id": "agent_1", "agent_type": "Explore", "stop_hook_active": false, "agent_transcript_path": "/t/agent_1.jsonl"}`,
		stdin:   map[string]any{"agent_id": "agent_1", "agent_type": "Explore", "stop_hook_active": false, "agent_transcript_path": "/t/agent_1.jsonl"},
		noMatch: `{"agent_type": "Plan"}`,
		hook:    `[ "$(field .stop_hook_active)" = true ] && exit 0; echo "list the files you read" >&2; exit 2`,
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "list the files you read", r.Reason)
		},
	}, {
		event: event.SessionStart, matcher: "startup|resume",
		input:   `{"source": "resume"}`,
		stdin:   map[string]any{"source": "resume"},
		noMatch: `{"source": "clear"}`,
		hook:    `echo "resumed on branch main"`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"resumed on branch main"}, r.Context)
		},
	}, {
		event: event.SessionEnd, matcher: "logout",
		input:   `{"reason": "logout"}`,
		stdin:   map[string]any{"reason": "logout"},
		noMatch: `{"reason": "clear"}`,
		hook:    `echo "cannot upload the log" >&2; exit 2`,
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Blocked, "SessionEnd cannot be blocked")
			require.Equal(t, []string{"cannot upload the log"}, r.Errors)
		},
	}, {
		event: event.PreCompact, matcher: "auto",
		input:   `{"trigger": "auto", "custom_instructions": ""}`,
		stdin:   map[string]any{"trigger": "auto", "custom_instructions": ""},
		noMatch: `{"trigger": "manual", "custom_instructions": "keep the API notes"}`,
		hook:    `echo "no automatic compaction during a migration" >&2; exit 2`,
		check: func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked, "exit 2 blocks the compaction")
			require.Equal(t, "no automatic compaction during a migration", r.Reason)
			require.Empty(t, r.Errors)
		},
	}, {
		event: event.PostCompact, matcher: "manual",
		input:   `{"trigger": "manual"}`,
		stdin:   map[string]any{"trigger": "manual", "compact_summary": ""},
		noMatch: `{"trigger": "auto"}`,
		hook:    `echo "cannot save the summary" >&2; exit 2`,
		check: func(t *testing.T, r hooks.Result) {
			require.False(t, r.Blocked, "PostCompact cannot be blocked")
			require.Equal(t, []string{"cannot save the summary"}, r.Errors)
		},
	}, {
		event: event.Notification, matcher: "permission_prompt|idle_prompt",
		input:   `{"message": "Claude needs your permission to use Bash", "title": "Permission needed", "notification_type": "permission_prompt"}`,
		stdin:   map[string]any{"message": "Claude needs your permission to use Bash", "title": "Permission needed", "notification_type": "permission_prompt"},
		noMatch: `{"message": "Signed in", "notification_type": "auth_success"}`,
		hook:    `jq -n --arg t "$(field .title)" --arg m "$(field .message)" '{systemMessage: ($t + ": " + $m)}'`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"Permission needed: Claude needs your permission to use Bash"}, r.Warnings)
		},
	}, {
		event: event.PermissionRequest, matcher: "Bash",
		input:   `{"tool_name": "Bash", "tool_input": {"command": "npm test"}, "permission_suggestions": [{"type": "toolAlwaysAllow", "tool": "Bash"}]}`,
		stdin:   map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}},
		noMatch: `{"tool_name": "Write", "tool_input": {}}`,
		hook: `[ "$(field .tool_input.command)" = "npm test" ] || exit 0
jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "allow", updatedInput: {command: "npm test -- --ci"}}}}'`,
		check: func(t *testing.T, r hooks.Result) {
			require.Equal(t, hooks.PermissionAllow, r.Permission)
			require.JSONEq(t, `{"command":"npm test -- --ci"}`, string(r.UpdatedInput))
		},
	}}
	require.Len(t, cases, len(event.Events())-len(laterEventCases), "one case per event (the later ones: TestLaterEvents)")
	for _, c := range cases {
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
			c.check(t, res)
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
			if c.noMatch != "" {
				res := fire(c.noMatch)
				require.False(t, res.Runs[0].Matched, res.Runs[0].Why)
			}
		})
	}
}

// TestExitTwoPerEvent checks what exit 2 means for each event, as Claude
// Code documents it: deny, block (stop something or give the model
// feedback), or an error the user sees while nothing is stopped.
func TestExitTwoPerEvent(t *testing.T) {
	want := map[event.Event]string{
		event.PreToolUse: "deny", event.PermissionRequest: "deny",
		event.PostToolUse: "block", event.PostToolUseFailure: "block", event.UserPromptSubmit: "block",
		event.Stop: "block", event.SubagentStop: "block", event.PreCompact: "block",
		event.SessionStart: "error", event.SessionEnd: "error", event.Notification: "error",
		event.SubagentStart: "error", event.PostCompact: "error",
	}
	require.Len(t, want, len(event.Events())-len(laterExitTwo), "the later events: TestExitTwoPerLaterEvent")
	for ev, outcome := range want {
		t.Run(string(ev), func(t *testing.T) {
			e, root := setup(t, one(ev, `jq -r .hook_event_name >/dev/null; echo "said no" >&2; exit 2`))
			in := event.Input{Event: ev, SessionID: "s", Cwd: root}
			res := e.Fire(context.Background(), in)
			got := "error"
			switch {
			case res.Permission == hooks.PermissionDeny:
				got = "deny"
			case res.Blocked:
				got = "block"
			}
			require.Equal(t, outcome, got)
			if outcome == "error" {
				require.Equal(t, []string{"said no"}, res.Errors)
			} else {
				require.Equal(t, "said no", res.Reason)
				require.Empty(t, res.Errors)
			}
			spec, _ := event.Spec(ev)
			require.NotEmpty(t, spec.Exit2)
		})
	}
}

func TestDecisionBlockOnlyWhereAnEventCanBeBlocked(t *testing.T) {
	for _, ev := range []event.Event{event.SessionStart, event.Notification, event.SubagentStart, event.PostCompact} {
		t.Run(string(ev), func(t *testing.T) {
			e, root := setup(t, one(ev, `cat >/dev/null; echo '{"decision":"block","reason":"no"}'`))
			res := e.Fire(context.Background(), event.Input{Event: ev, Cwd: root})
			require.False(t, res.Blocked)
			require.True(t, res.Runs[0].JSON)
			require.Contains(t, res.Runs[0].Decision, "cannot be blocked")
		})
	}
	e, root := setup(t, one(event.PreCompact, `cat >/dev/null; echo '{"decision":"block","reason":"not now"}'`))
	res := e.Fire(context.Background(), event.Input{Event: event.PreCompact, Cwd: root})
	require.True(t, res.Blocked)
	require.Equal(t, "not now", res.Reason)
}

func TestPermissionRequestOutput(t *testing.T) {
	cases := []struct {
		name     string
		out      string
		code     int
		perm     hooks.Permission
		reason   string
		input    string
		cont     bool
		problem  string
		warnings int
	}{
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, 0,
			hooks.PermissionAllow, "", "", true, "", 0},
		{"allow with updatedInput", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -l"},"updatedPermissions":[{"type":"toolAlwaysAllow","tool":"Bash"}]}}}`, 0,
			hooks.PermissionAllow, "", `{"command":"ls -l"}`, true, "", 0},
		{"deny with a message for the model", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`, 0,
			hooks.PermissionDeny, "not on main", "", true, "", 0},
		{"deny and interrupt stops the agent", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"stop now","interrupt":true}}}`, 0,
			hooks.PermissionDeny, "stop now", "", false, "", 0},
		{"no decision leaves it to the user", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest"}}`, 0,
			hooks.PermissionNone, "", "", true, "", 0},
		{"exit 2 denies with stderr", ``, 2, hooks.PermissionDeny, "fallback", "", true, "", 0},
		{"a bad behavior falls back to the exit code", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"ask"}}}`, 0,
			hooks.PermissionNone, "", "", true, `decision.behavior must be "allow" or "deny", not "ask"`, 1},
		{"exit 2 denies whatever the JSON says", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`, 2,
			hooks.PermissionDeny, "fallback", "", true, "stdout ignored: exit 2 blocks", 1},
		{"keys are case-sensitive", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"Behavior":"deny","behavior":"allow"}}}`, 0,
			hooks.PermissionAllow, "", "", true, `ignored key "hookSpecificOutput.decision.Behavior": keys are case-sensitive; did you mean "hookSpecificOutput.decision.behavior"?`, 1},
		{"a string decision is PreToolUse's shape, not this one's", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":"allow"}}`, 0,
			hooks.PermissionNone, "", "", true, "hookSpecificOutput.decision must be an object", 1},
		{"permissionDecision belongs to PreToolUse", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","permissionDecision":"allow"}}`, 0,
			hooks.PermissionNone, "", "", true, "permissionDecision only applies to PreToolUse", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := `jq -r .tool_name >/dev/null; echo fallback >&2; printf '%s' '` + c.out + `'; exit ` + string(rune('0'+c.code))
			e, root := setup(t, one(event.PermissionRequest, cmd))
			in := event.Input{Event: event.PermissionRequest, Cwd: root, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
			res := e.Fire(context.Background(), in)
			require.Equal(t, c.perm, res.Permission)
			require.Equal(t, c.reason, res.Reason)
			require.Equal(t, c.cont, res.Continue)
			if c.input != "" {
				require.JSONEq(t, c.input, string(res.UpdatedInput))
			} else {
				require.Nil(t, res.UpdatedInput)
			}
			require.Len(t, res.Warnings, c.warnings)
			if c.problem != "" {
				require.Contains(t, res.Warnings[0], c.problem)
			}
		})
	}
}

func TestRunHooksInputFieldTypes(t *testing.T) {
	for _, c := range []struct {
		event event.Event
		input string
		err   string
	}{
		{event.PostToolUseFailure, `{"is_interrupt": "no"}`, "is_interrupt must be a boolean"},
		{event.PostToolUseFailure, `{"error": 2}`, "error must be a string"},
		{event.Notification, `{"notification_type": ["x"]}`, "notification_type must be a string"},
		{event.PermissionRequest, `{"permission_suggestions": {}}`, "permission_suggestions must be an array"},
		{event.SubagentStop, `{"stop_hook_active": "yes"}`, "stop_hook_active must be a boolean"},
	} {
		_, err := event.ParseInput(c.event, []byte(c.input))
		require.ErrorContains(t, err, c.err, c.input)
	}
}
