package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// extra builds the event-specific stdin fields of an input for wave/runHooks.
func extra(t *testing.T, ev event.Event, fields string) event.Input {
	t.Helper()
	in, err := event.ParseInput(ev, []byte(fields))
	require.NoError(t, err)
	return in
}

func TestRunHooksEffectsPerEvent(t *testing.T) {
	allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm test -- --ci"}}}}`
	deny := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on a Friday"}}}`
	cases := []struct {
		name  string
		hook  hook
		input string
		check func(t *testing.T, out session.Outcome, msgs []session.Message)
	}{{
		name:  "PermissionRequest allow rewrites the tool call",
		hook:  hook{event: event.PermissionRequest, command: sh("respond.sh", "0", allow)},
		input: `{"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_1"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, "allow", out.Permission)
			require.JSONEq(t, `{"command":"npm test -- --ci"}`, string(out.ToolInput))
			require.JSONEq(t, `{"command":"npm test -- --ci"}`, string(msgs[0].Blocks[0].Tool().Input), "the tool block runs with the new input")
		},
	}, {
		name:  "PermissionRequest deny records the reason in the tool block",
		hook:  hook{event: event.PermissionRequest, command: sh("respond.sh", "0", deny)},
		input: `{"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_1"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, "deny", out.Permission)
			require.Equal(t, "not on a Friday", out.Reason)
			tool := msgs[0].Blocks[0]
			require.Equal(t, "not on a Friday", tool.Tool().Result)
			require.False(t, *tool.Tool().Success)
		},
	}, {
		name:  "PermissionRequest without a decision leaves it to the user",
		hook:  hook{event: event.PermissionRequest, command: sh("respond.sh", "0")},
		input: `{"tool_name": "Bash", "tool_input": {"command": "npm test"}}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, "", out.Permission)
			require.Nil(t, out.ToolInput)
		},
	}, {
		name:  "PreCompact exit 2 blocks the compaction; the reason is for the user",
		hook:  hook{event: event.PreCompact, command: sh("respond.sh", "2", "", "migration in progress")},
		input: `{"trigger": "auto"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, "migration in progress", out.Reason)
			require.Equal(t, []string{"compaction blocked by a PreCompact hook: migration in progress"}, contents(blocksOf(msgs, session.BlockError)))
			require.Len(t, session.ToAPI(msgs), 1, "the model sees only the tool call")
		},
	}, {
		name:  "PostToolUseFailure exit 2 is feedback for the model",
		hook:  hook{event: event.PostToolUseFailure, command: sh("respond.sh", "2", "", "the build needs make deps first")},
		input: `{"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "toolu_1", "error": "exit status 2"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, []string{"assistant:tool", "user:text"}, roles(msgs))
			require.Equal(t, "the build needs make deps first", msgs[1].Blocks[0].Content)
		},
	}, {
		name: "SubagentStart context is for the subagent, not this conversation",
		hook: hook{event: event.SubagentStart, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"read-only"}}`)},
		input: `{"agent_id": "a1", "agent_type": "Explore"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, []string{"read-only"}, out.AdditionalContext)
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
		},
	}, {
		name: "Notification additionalContext becomes a hook block",
		hook: hook{event: event.Notification, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"Notification","additionalContext":"the user is away"}}`)},
		input: `{"message": "idle", "notification_type": "idle_prompt"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, []session.Block{session.Block{Type: "hook", Content: "the user is away"}.WithHook(session.Hook{Event: "Notification"})}, out.Blocks)
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, c.hook)
			s := e.create(t)
			ctx := context.Background()
			require.NoError(t, s.AddAssistantMessage([]session.Block{session.Block{Type: "tool"}.WithTool(session.Tool{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"npm test"}`)})}))
			out, err := s.RunHooks(ctx, extra(t, c.hook.event, c.input), nil)
			require.NoError(t, err)
			msgs := s.Messages()
			c.check(t, out, msgs)
			require.Equal(t, msgs, fileMessages(t, s))
		})
	}
}

func TestSubagentStopHookActive(t *testing.T) {
	// Blocks a subagent's first stop, then lets it stop: stop_hook_active.
	once := `active=$(jq -r .stop_hook_active); [ "$active" = true ] && exit 0; echo "check your work" >&2; exit 2`
	e := newEnv(t, session.FormatJSON, hook{event: event.SubagentStop, command: once},
		hook{event: event.SubagentStop, matcher: "Always", command: sh("respond.sh", "2", "", "never done")})
	s := e.create(t)
	ctx := context.Background()
	stop := func(agent, typ string) session.Outcome {
		out, err := s.RunHooks(ctx, extra(t, event.SubagentStop, `{"agent_id": "`+agent+`", "agent_type": "`+typ+`"}`), nil)
		require.NoError(t, err)
		return out
	}
	require.True(t, stop("a1", "Explore").Blocked)
	require.True(t, stop("a2", "Explore").Blocked, "another agent's stop is its own")
	require.False(t, stop("a1", "Explore").Blocked, "the same agent's next stop has stop_hook_active")
	require.True(t, stop("a1", "Explore").Blocked, "an allowed stop resets it")

	// A hook that always blocks is honoured 8 times in a row, then not.
	for i := 0; i < 8; i++ {
		require.True(t, stop("a3", "Always").Blocked, "stop %d", i+1)
	}
	out := stop("a3", "Always")
	require.False(t, out.Blocked)
	require.Contains(t, out.Blocks[0].Content, "8 times in a row")
	// The subagent's reasons never reached this conversation.
	require.Equal(t, []string{"assistant:warn"}, roles(s.Messages()))
}
