package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// The UserPromptSubmit examples of docs/hooks.md, and docs/hooks.md's exit-code table for it.
func TestUserPromptSubmit(t *testing.T) {
	ev := event.UserPromptSubmit
	cases := []struct {
		name  string
		hooks []hook
		check func(t *testing.T, out session.Outcome, msgs []session.Message)
	}{{
		name:  "exit 2 erases the prompt and shows stderr to the user only",
		hooks: []hook{{event: ev, command: sh("respond.sh", "2", "", "bad")}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, "bad", out.Reason)
			require.Equal(t, []string{"bad"}, contents(blocksOf(msgs, session.BlockError)))
			require.Equal(t, []string{"assistant:error"}, roles(msgs), "no user message may be left")
			require.Empty(t, session.ToAPI(msgs), "the model must not see the prompt")
		},
	}, {
		name:  "exit 0 stdout becomes a user message",
		hooks: []hook{{event: ev, command: sh("respond.sh", "0", "ctx")}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Blocked)
			require.Equal(t, []string{"ctx"}, out.AdditionalContext)
			require.Equal(t, []string{"user:text", "user:text"}, roles(msgs))
			require.Equal(t, "prompt", msgs[0].Blocks[0].Content)
			require.Equal(t, "ctx", msgs[1].Blocks[0].Content)
		},
	}, {
		name: "results 0 A, 2 policy, 0 block the prompt and inject nothing",
		hooks: []hook{
			{event: ev, command: sh("respond.sh", "0", "A")},
			{event: ev, command: sh("respond.sh", "2", "", "policy")},
			{event: ev, command: sh("respond.sh", "0") + " # third"},
		},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, "policy", out.Reason)
			require.Empty(t, out.AdditionalContext)
			require.Equal(t, []string{"assistant:error"}, roles(msgs))
			require.Equal(t, "policy", msgs[0].Blocks[0].Content)
		},
	}, {
		name:  "another exit code is an error block and the prompt goes on",
		hooks: []hook{{event: ev, command: sh("respond.sh", "1", "", "oops")}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Blocked)
			require.True(t, out.Continue)
			require.Equal(t, []string{"user:text", "assistant:error"}, roles(msgs))
			require.Equal(t, "oops", msgs[1].Blocks[0].Content)
			require.Equal(t, []session.Block{{Type: "error", Content: "oops"}}, out.Blocks)
		},
	}, {
		name:  "a timed-out hook is an error block, never a success",
		hooks: []hook{{event: ev, command: sh("sleep.sh", "5"), timeout: 0.3}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Blocked)
			errs := contents(blocksOf(msgs, session.BlockError))
			require.Len(t, errs, 1)
			require.Contains(t, errs[0], "timed out")
			require.Equal(t, "prompt", msgs[0].Blocks[0].Content)
		},
	}, {
		name: "additionalContext becomes a hook block and systemMessage a warn block",
		hooks: []hook{{event: ev, command: sh("respond.sh", "0",
			`{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"extra"}}`)}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.Equal(t, []string{"user:text", "assistant:warn", "user:hook"}, roles(msgs))
			require.Equal(t, session.Block{Type: "hook", Content: "extra"}.WithHook(session.Hook{Event: "UserPromptSubmit"}), msgs[2].Blocks[0])
			require.Equal(t, []string{"extra"}, out.AdditionalContext)
			api, err := json.Marshal(session.ToAPI(msgs))
			require.NoError(t, err)
			require.JSONEq(t, `[{"role":"user","content":[{"type":"text","text":"prompt"},{"type":"text","text":"[Hook:UserPromptSubmit] extra"}]}]`, string(api),
				"the systemMessage is for the user: it never reaches the model")
		},
	}, {
		name:  "JSON decision block erases the prompt",
		hooks: []hook{{event: ev, command: sh("respond.sh", "0", `{"decision":"block","reason":"no secrets"}`)}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, []string{"assistant:error"}, roles(msgs))
			require.Equal(t, "no secrets", msgs[0].Blocks[0].Content)
		},
	}, {
		name:  "continue false stops the agent and tells the user",
		hooks: []hook{{event: ev, command: sh("respond.sh", "0", `{"continue":false,"stopReason":"halt"}`)}},
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Continue)
			require.Equal(t, "halt", out.StopReason)
			require.Equal(t, []string{"stopped by hook: halt"}, contents(blocksOf(msgs, session.BlockError)))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, tc.hooks...)
			s := e.create(t)
			out, err := s.UserPromptSubmit(context.Background(), "prompt")
			require.NoError(t, err)
			require.NotNil(t, out.Blocks)
			require.NotNil(t, out.AdditionalContext)
			msgs := s.Messages()
			tc.check(t, out, msgs)
			require.Equal(t, msgs, fileMessages(t, s), "the file must hold what the session holds")
		})
	}
}

// A hook reads the transcript with docs/hooks.md's jq pipeline and must find in it
// what triggered it: the prompt, or the tool block.
func TestHooksSeeTheirTriggerInTheTranscript(t *testing.T) {
	dir := t.TempDir()
	startOut, promptOut, preOut := filepath.Join(dir, "start.json"), filepath.Join(dir, "prompt.json"), filepath.Join(dir, "pre.json")
	e := newEnv(t, session.FormatJSON,
		hook{event: event.SessionStart, command: sh("transcript.sh", startOut)},
		hook{event: event.UserPromptSubmit, command: sh("transcript.sh", promptOut)},
		hook{event: event.PreToolUse, command: sh("transcript.sh", preOut)})
	s := e.create(t)
	ctx := context.Background()

	_, err := s.SessionStart(ctx, "startup")
	require.NoError(t, err)
	seen, err := os.ReadFile(startOut)
	require.NoError(t, err)
	require.JSONEq(t, `[]`, string(seen), "a new session's file exists before its first hook runs")

	_, err = s.UserPromptSubmit(ctx, "list the files")
	require.NoError(t, err)
	seen, err = os.ReadFile(promptOut)
	require.NoError(t, err)
	require.JSONEq(t, `[{"role":"user","blocks":[{"type":"text","content":"list the files"}]}]`, string(seen))

	_, err = s.PreToolUse(ctx, "toolu_1", "Bash", json.RawMessage(`{"command":"ls"}`), nil)
	require.NoError(t, err)
	seen, err = os.ReadFile(preOut)
	require.NoError(t, err)
	require.JSONEq(t, `[{"role":"user","blocks":[{"type":"text","content":"list the files"}]},
		{"role":"assistant","blocks":[{"type":"tool","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}]`, string(seen))
}

func TestPreToolUse(t *testing.T) {
	ev := event.PreToolUse
	input := json.RawMessage(`{"command":"rm -rf /tmp/x"}`)
	allow := func(context.Context, session.AskRequest) bool { return true }
	deny := func(context.Context, session.AskRequest) bool { return false }
	askJSON := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`
	cases := []struct {
		name      string
		hooks     []hook
		ask       session.AskFunc
		recorded  bool // the client added the tool block before PreToolUse
		check     func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message)
		wantPerm  string
		wantAsked bool
	}{{
		name:     "exit 2 denies and the tool block carries stderr",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "2", "", "dangerous")}},
		recorded: true,
		wantPerm: "deny",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.Equal(t, "dangerous", out.Reason)
			require.Equal(t, "dangerous", tool.Tool().Result)
			require.Equal(t, ptr(false), tool.Tool().Success)
			require.Equal(t, "Hook blocked tool execution", tool.Tool().Error)
			require.True(t, out.Continue)
			require.Equal(t, []session.Block{tool}, out.Blocks)
		},
	}, {
		name:     "exit 0 allows and leaves the block alone",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "0", "ignored")}},
		wantPerm: "allow",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.Nil(t, tool.Tool().Success)
			require.Empty(t, tool.Tool().Result)
			require.JSONEq(t, string(input), string(out.ToolInput))
			require.Equal(t, []string{"assistant:tool"}, roles(msgs))
			require.Equal(t, []session.Block{tool}, out.Blocks, "the event added the tool block")
		},
	}, {
		name:     "another exit code is an error block and the tool runs",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "1", "", "linter crashed")}},
		recorded: true,
		wantPerm: "allow",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.Equal(t, []string{"assistant:text,tool,error"}, roles(msgs))
			require.Equal(t, []session.Block{{Type: "error", Content: "linter crashed"}}, out.Blocks,
				"the recorded tool block did not change")
		},
	}, {
		name: "updatedInput is the effective input and the block's input",
		hooks: []hook{{event: ev, command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -ri /tmp/x"}}}`)}},
		wantPerm: "allow",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.JSONEq(t, `{"command":"rm -ri /tmp/x"}`, string(out.ToolInput))
			require.JSONEq(t, `{"command":"rm -ri /tmp/x"}`, string(tool.Tool().Input))
		},
	}, {
		name:      "ask, and the user allows",
		hooks:     []hook{{event: ev, command: sh("respond.sh", "0", askJSON)}},
		ask:       allow,
		wantPerm:  "allow",
		wantAsked: true,
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.True(t, out.Continue)
			require.Nil(t, tool.Tool().Success)
		},
	}, {
		name:      "ask, and the user denies: the turn ends",
		hooks:     []hook{{event: ev, command: sh("respond.sh", "0", askJSON)}},
		ask:       deny,
		recorded:  true,
		wantPerm:  "deny",
		wantAsked: true,
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.False(t, out.Continue, "a user's deny stops the agent (shouldContinueRecursion=false)")
			require.NotEmpty(t, out.StopReason)
			require.Equal(t, ptr(false), tool.Tool().Success)
			require.Equal(t, out.Reason, tool.Tool().Result)
			require.Equal(t, "User denied tool execution", tool.Tool().Error)
		},
	}, {
		name:     "ask with nobody to ask denies",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "0", askJSON)}},
		wantPerm: "deny",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.Equal(t, ptr(false), tool.Tool().Success)
			require.Contains(t, out.Reason, "sure?")
		},
	}, {
		name:     "continue false denies and stops",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "0", `{"continue":false,"stopReason":"enough"}`)}},
		wantPerm: "deny",
		check: func(t *testing.T, out session.Outcome, tool session.Block, msgs []session.Message) {
			require.False(t, out.Continue)
			require.Equal(t, "enough", out.StopReason)
			require.Equal(t, []string{"stopped by hook: enough"}, contents(blocksOf(msgs, session.BlockError)))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, tc.hooks...)
			s := e.create(t)
			if tc.recorded {
				require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "deleting"},
					session.Block{Type: "tool"}.WithTool(session.Tool{ID: "toolu_1", Name: "Bash", Input: input})}))
			}
			var asks []session.AskRequest
			var ask session.AskFunc
			if tc.ask != nil {
				ask = func(ctx context.Context, req session.AskRequest) bool {
					asks = append(asks, req)
					return tc.ask(ctx, req)
				}
			}
			out, err := s.PreToolUse(context.Background(), "toolu_1", "Bash", input, ask)
			require.NoError(t, err)
			require.Equal(t, tc.wantPerm, out.Permission)
			require.Equal(t, tc.wantAsked, out.Asked)
			if tc.wantAsked {
				require.Len(t, asks, 1)
				require.Equal(t, session.AskRequest{SessionID: s.ID(), ToolUseID: "toolu_1", ToolName: "Bash",
					ToolInput: input, Reason: "sure?"}, asks[0])
			}
			msgs := s.Messages()
			tools := blocksOf(msgs, session.BlockTool)
			require.Len(t, tools, 1, "the tool block must exist exactly once")
			tc.check(t, out, tools[0], msgs)
			require.Equal(t, msgs, fileMessages(t, s))
		})
	}
}

// A pending ask holds no lock: other requests on the session go on, and
// parallel PreToolUse calls run their hooks at the same time (shown by the
// hooks meeting, not by a clock).
func TestPendingAskAndSlowHooksDoNotBlockTheSession(t *testing.T) {
	e := newEnv(t, session.FormatJSON,
		hook{event: event.PreToolUse, matcher: "mcp__test__ask", command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"?"}}`)},
		// Each call's hook waits (up to 20 s) until the other's has started,
		// and says it met it: they can only meet if they run at the same time.
		hook{event: event.PreToolUse, matcher: "mcp__test__slow", command: `id=$(jq -r .tool_use_id); d="$WAVE_PROJECT_DIR/rendezvous"; ` +
			`mkdir -p "$d"; : > "$d/$id"; i=0; ` +
			`while [ "$(ls "$d" | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; ` +
			`[ "$(ls "$d" | wc -l)" -ge 2 ] && : > "$WAVE_PROJECT_DIR/met-$id"; exit 0`})
	s := e.create(t)
	ctx := context.Background()

	asked, release := make(chan struct{}), make(chan bool)
	done := make(chan session.Outcome)
	go func() {
		out, err := s.PreToolUse(ctx, "t_ask", "mcp__test__ask", nil, func(context.Context, session.AskRequest) bool {
			close(asked)
			return <-release
		})
		assert.NoError(t, err)
		done <- out
	}()
	<-asked

	require.Len(t, s.Messages(), 1)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "meanwhile"}}))
	var wg sync.WaitGroup
	for _, id := range []string{"t_slow1", "t_slow2"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := s.PreToolUse(ctx, id, "mcp__test__slow", nil, nil)
			assert.NoError(t, err)
			assert.Equal(t, "allow", out.Permission)
		}()
	}
	wg.Wait()
	for _, id := range []string{"t_slow1", "t_slow2"} {
		require.FileExists(t, filepath.Join(e.root, "met-"+id), "the hooks of two PreToolUse calls on one session run at the same time")
	}

	release <- true
	out := <-done
	require.True(t, out.Asked)
	require.Equal(t, "allow", out.Permission)
	require.Len(t, blocksOf(s.Messages(), session.BlockTool), 3)
}

func TestPostToolUse(t *testing.T) {
	ev := event.PostToolUse
	cases := []struct {
		name     string
		hooks    []hook
		response string
		check    func(t *testing.T, out session.Outcome, msgs []session.Message)
	}{{
		name:     "exit 2 sends stderr to the model as a user message",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "2", "", "tests fail now")}},
		response: `{"success":true,"output":"wrote 3 lines"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.True(t, out.Blocked)
			require.Equal(t, "tests fail now", out.Reason)
			require.Equal(t, []string{"assistant:tool", "user:text"}, roles(msgs))
			require.Equal(t, "tests fail now", msgs[1].Blocks[0].Content)
			api, err := json.Marshal(session.ToAPI(msgs))
			require.NoError(t, err)
			require.JSONEq(t, `[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"a.go"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"wrote 3 lines","is_error":false},
				{"type":"text","text":"tests fail now"}]}]`, string(api))
		},
	}, {
		name:     "additionalContext becomes a hook block",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "0", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted"}}`)}},
		response: `"plain text result"`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Blocked)
			require.Equal(t, []string{"formatted"}, out.AdditionalContext)
			require.Equal(t, []string{"assistant:tool", "user:hook"}, roles(msgs))
			require.Equal(t, "plain text result", msgs[0].Blocks[0].Tool().Result)
		},
	}, {
		name:     "another exit code is an error block",
		hooks:    []hook{{event: ev, command: sh("respond.sh", "3", "", "formatter missing")}},
		response: `{"success":false,"content":"disk full"}`,
		check: func(t *testing.T, out session.Outcome, msgs []session.Message) {
			require.False(t, out.Blocked)
			require.Equal(t, []string{"assistant:tool,error"}, roles(msgs))
			tool := msgs[0].Blocks[0]
			require.Equal(t, "disk full", tool.Tool().Result)
			require.Equal(t, ptr(false), tool.Tool().Success)
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, session.FormatJSON, tc.hooks...)
			s := e.create(t)
			out, err := s.PostToolUse(context.Background(), "toolu_1", "Write",
				json.RawMessage(`{"file_path":"a.go"}`), json.RawMessage(tc.response))
			require.NoError(t, err)
			msgs := s.Messages()
			tc.check(t, out, msgs)
			require.Equal(t, msgs, fileMessages(t, s))
		})
	}
}

func TestStopBlocksAtMostEightTimesInARow(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "stop.jsonl")
	e := newEnv(t, session.FormatJSON, hook{event: event.Stop, command: sh("record.sh", rec, "2", "keep going")})
	s := e.create(t)
	ctx := context.Background()
	_, err := s.UserPromptSubmit(ctx, "do it")
	require.NoError(t, err)

	for i := 1; i <= 8; i++ {
		require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "done?"}}))
		out, err := s.Stop(ctx)
		require.NoError(t, err)
		require.True(t, out.Blocked, "stop %d", i)
		require.True(t, out.Continue, "a blocked stop lets the agent continue")
		require.Equal(t, "keep going", out.Reason)
		msgs := s.Messages()
		require.Equal(t, session.Message{Role: "user", Blocks: []session.Block{{Type: "text", Content: "keep going"}}}, msgs[len(msgs)-1])
	}
	out, err := s.Stop(ctx)
	require.NoError(t, err)
	require.False(t, out.Blocked, "the 9th block in a row is not honoured")
	require.Len(t, out.Blocks, 1)
	require.Equal(t, "warn", out.Blocks[0].Type)
	require.Contains(t, out.Blocks[0].Content, "8 times in a row")

	out, err = s.Stop(ctx) // a new run of blocks
	require.NoError(t, err)
	require.True(t, out.Blocked)
	_, err = s.UserPromptSubmit(ctx, "again") // a new prompt resets the run
	require.NoError(t, err)
	out, err = s.Stop(ctx)
	require.NoError(t, err)
	require.True(t, out.Blocked)

	data, err := os.ReadFile(rec)
	require.NoError(t, err)
	var active []bool
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var in struct {
			StopHookActive bool `json:"stop_hook_active"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &in))
		active = append(active, in.StopHookActive)
	}
	require.Equal(t, []bool{false, true, true, true, true, true, true, true, true, false, false}, active)
}

func TestSessionStartAndEnd(t *testing.T) {
	e := newEnv(t, session.FormatJSON,
		hook{event: event.SessionStart, matcher: "startup", command: sh("respond.sh", "0", "project uses Go 1.26")},
		hook{event: event.SessionStart, matcher: "startup", command: sh("respond.sh", "0",
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"run make test"}}`)},
		hook{event: event.SessionEnd, command: sh("respond.sh", "1", "", "cleanup failed")})
	s := e.create(t)
	ctx := context.Background()
	out, err := s.SessionStart(ctx, "startup")
	require.NoError(t, err)
	require.Equal(t, []string{"project uses Go 1.26", "run make test"}, out.AdditionalContext)
	require.Equal(t, []session.Message{{Role: "user", Blocks: []session.Block{
		session.Block{Type: "hook", Content: "project uses Go 1.26"}.WithHook(session.Hook{Event: "SessionStart"}),
		session.Block{Type: "hook", Content: "run make test"}.WithHook(session.Hook{Event: "SessionStart"})}}}, s.Messages())

	out, err = s.SessionStart(ctx, "resume") // the matcher leaves resume alone
	require.NoError(t, err)
	require.Empty(t, out.Blocks)

	out, err = s.SessionEnd(ctx, "logout")
	require.NoError(t, err)
	require.Equal(t, []session.Block{{Type: "error", Content: "cleanup failed"}}, out.Blocks)
	require.Equal(t, s.Messages(), fileMessages(t, s))
}

func TestRunHooksForOtherEvents(t *testing.T) {
	e := newEnv(t, session.FormatJSON,
		hook{event: event.Notification, command: sh("respond.sh", "0", `{"systemMessage":"noted"}`)},
		hook{event: event.SubagentStop, command: sh("respond.sh", "2", "", "subagent must finish")})
	s := e.create(t)
	ctx := context.Background()
	out, err := s.RunHooks(ctx, event.Input{Event: event.Notification,
		Extra: map[string]json.RawMessage{"message": json.RawMessage(`"hi"`)}}, nil)
	require.NoError(t, err)
	require.Equal(t, []session.Block{{Type: "warn", Content: "noted"}}, out.Blocks)

	out, err = s.RunHooks(ctx, event.Input{Event: event.SubagentStop}, nil)
	require.NoError(t, err)
	require.True(t, out.Blocked)
	require.Equal(t, "subagent must finish", out.Reason)

	out, err = s.RunHooks(ctx, event.Input{Event: event.UserPromptSubmit, Prompt: "typed"}, nil)
	require.NoError(t, err)
	require.False(t, out.Blocked)
	// SubagentStop's reason is for the subagent: returned, not added to this conversation.
	require.Equal(t, []string{"assistant:warn", "user:text"}, roles(s.Messages()))

	_, err = s.RunHooks(ctx, event.Input{Event: "NoSuchEvent"}, nil)
	require.Error(t, err)
}

func TestAddAssistantMessage(t *testing.T) {
	e := newEnv(t, session.FormatJSON)
	s := e.create(t)
	ctx := context.Background()
	// PreToolUse first, then the client records the model's message: the
	// tool block is not repeated.
	_, err := s.PreToolUse(ctx, "toolu_9", "Read", json.RawMessage(`{"file_path":"x"}`), nil)
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: "text", Content: "reading"},
		session.Block{Type: "tool"}.WithTool(session.Tool{ID: "toolu_9", Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`)})}))
	require.Equal(t, []string{"assistant:tool", "assistant:text"}, roles(s.Messages()))

	for _, bad := range [][]session.Block{
		{{Type: "error", Content: "x"}},
		{session.Block{Type: "tool"}.WithTool(session.Tool{Name: "NoID"})},
		{session.Block{Type: "tool"}.WithTool(session.Tool{ID: "a"}), session.Block{Type: "tool"}.WithTool(session.Tool{ID: "a"})},
		{session.Block{Type: "tool"}.WithTool(session.Tool{ID: "b", Input: json.RawMessage(`{not json`)})},
	} {
		require.Error(t, s.AddAssistantMessage(bad), "%+v", bad)
	}
	require.Len(t, s.Messages(), 2)
	_, err = s.PreToolUse(ctx, "", "Read", nil, nil)
	require.Error(t, err)
	_, err = s.PostToolUse(ctx, "", "Read", nil, nil)
	require.Error(t, err)
	_, err = s.PostToolUse(ctx, "toolu_9", "Read", nil, json.RawMessage(`{broken`))
	require.Error(t, err)
}

// TestToolCallsWithoutAddAssistantMessage: a client that reports its tool
// calls through preToolUse and postToolUse only (a proxy, a simple agent)
// gets one assistant message per step, as the model's API has them: calls
// made before any result came back share the reply addAssistantMessage
// recorded, and a call after a result starts a message of its own. Long
// sessions of such calls therefore never pile into one message.
func TestToolCallsWithoutAddAssistantMessage(t *testing.T) {
	in := json.RawMessage(`{"file_path":"x"}`)
	out := json.RawMessage(`"ok"`)
	type step struct {
		kind, id string // kind: reply (addAssistantMessage with a text), pre, post
	}
	cases := []struct {
		name  string
		steps []step
		want  []string
		api   []string
	}{{
		name:  "one call after another",
		steps: []step{{"pre", "a"}, {"post", "a"}, {"pre", "b"}, {"post", "b"}, {"pre", "c"}},
		want:  []string{"assistant:tool", "assistant:tool", "assistant:tool"},
		api:   []string{"assistant", "user", "assistant", "user", "assistant"},
	}, {
		name:  "calls only asked about",
		steps: []step{{"pre", "a"}, {"pre", "b"}, {"pre", "c"}},
		want:  []string{"assistant:tool", "assistant:tool", "assistant:tool"},
		api:   []string{"assistant"},
	}, {
		name:  "parallel calls of a recorded reply",
		steps: []step{{"reply", ""}, {"pre", "a"}, {"pre", "b"}, {"post", "a"}, {"post", "b"}},
		want:  []string{"assistant:text,tool,tool"},
		api:   []string{"assistant", "user"},
	}, {
		name:  "a call after a result of the reply",
		steps: []step{{"reply", ""}, {"pre", "a"}, {"post", "a"}, {"pre", "b"}, {"post", "b"}},
		want:  []string{"assistant:text,tool", "assistant:tool"},
		api:   []string{"assistant", "user", "assistant", "user"},
	}}
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		for _, tc := range cases {
			t.Run(string(format)+"/"+tc.name, func(t *testing.T) {
				e := newEnv(t, format)
				s := e.create(t)
				ctx := context.Background()
				for _, st := range tc.steps {
					var err error
					switch st.kind {
					case "reply":
						err = s.AddAssistantMessage([]session.Block{{Type: "text", Content: "Let me look."}})
					case "pre":
						_, err = s.PreToolUse(ctx, st.id, "Read", in, nil)
					case "post":
						_, err = s.PostToolUse(ctx, st.id, "Read", in, out)
					}
					require.NoError(t, err)
				}
				require.Equal(t, tc.want, roles(s.Messages()))
				var api []string
				for _, m := range s.APIMessages() {
					api = append(api, m.Role)
				}
				require.Equal(t, tc.api, api)
			})
		}
	}
}
