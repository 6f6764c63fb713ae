package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// fakeHost stands in for the agent host's model and MCP servers (the only
// part the tests mock): it records what it was asked and answers with
// answer.
type fakeHost struct {
	mu     sync.Mutex
	asked  []hooks.Evaluation
	answer func(ctx context.Context, ev hooks.Evaluation) (json.RawMessage, error)
}

func (f *fakeHost) EvaluateHook(ctx context.Context, ev hooks.Evaluation) (json.RawMessage, error) {
	f.mu.Lock()
	f.asked = append(f.asked, ev)
	f.mu.Unlock()
	return f.answer(ctx, ev)
}

func (f *fakeHost) evaluations() []hooks.Evaluation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]hooks.Evaluation(nil), f.asked...)
}

func answers(s string) func(context.Context, hooks.Evaluation) (json.RawMessage, error) {
	return func(context.Context, hooks.Evaluation) (json.RawMessage, error) { return json.RawMessage(s), nil }
}

// typedHook configures one hook of any type for an event.
func typedHook(ev event.Event, hook map[string]any) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(ev): []any{map[string]any{"hooks": []any{hook}}}}})
	return string(b)
}

func TestPromptHookAnswers(t *testing.T) {
	prompt := func(extra ...any) map[string]any {
		h := map[string]any{"type": "prompt", "prompt": "Judge this: $ARGUMENTS. Answer as JSON."}
		for i := 0; i < len(extra); i += 2 {
			h[extra[i].(string)] = extra[i+1]
		}
		return h
	}
	agent := map[string]any{"type": "agent", "prompt": "Verify the tests pass"}
	cases := []struct {
		name   string
		event  event.Event
		hook   map[string]any
		answer string
		check  func(t *testing.T, res hooks.Result)
	}{
		{"ok:true lets Stop happen", event.Stop, prompt(), `{"ok": true}`, func(t *testing.T, res hooks.Result) {
			require.False(t, res.Blocked)
			require.True(t, res.Continue)
			require.Equal(t, "ok: no objection", res.Runs[0].Decision)
		}},
		{"ok:false on Stop: the reason goes back to the model", event.Stop, prompt(), `{"ok": false, "reason": "tests are red"}`,
			func(t *testing.T, res hooks.Result) {
				require.True(t, res.Blocked)
				require.Equal(t, "tests are red", res.Reason)
				require.True(t, res.Continue)
			}},
		{"impossible lets Stop happen", event.Stop, prompt(), `{"ok": false, "reason": "cannot be done", "impossible": true}`,
			func(t *testing.T, res hooks.Result) {
				require.False(t, res.Blocked)
				require.Contains(t, res.Runs[0].Decision, "impossible")
			}},
		{"ok:false on PreToolUse denies and ends the turn", event.PreToolUse, prompt(), `{"ok": false, "reason": "too risky"}`,
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionDeny, res.Permission)
				require.Equal(t, "too risky", res.Reason)
				require.False(t, res.Continue)
				require.Equal(t, "too risky", res.StopReason)
			}},
		{"continueOnBlock: deny, and the turn goes on", event.PreToolUse, prompt("continueOnBlock", true), `{"ok": false, "reason": "too risky"}`,
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionDeny, res.Permission)
				require.True(t, res.Continue)
			}},
		{"agent hooks behave as continueOnBlock", event.PostToolUse, agent, `{"ok": false, "reason": "a test fails"}`,
			func(t *testing.T, res hooks.Result) {
				require.True(t, res.Blocked)
				require.Equal(t, "a test fails", res.Reason)
				require.True(t, res.Continue)
			}},
		{"ok:false on UserPromptSubmit blocks the prompt", event.UserPromptSubmit, prompt(), `{"ok": false, "reason": "off topic"}`,
			func(t *testing.T, res hooks.Result) {
				require.True(t, res.Blocked)
				require.Equal(t, "off topic", res.Reason)
			}},
		{"ok:false has no effect on PermissionRequest", event.PermissionRequest, prompt(), `{"ok": false, "reason": "no"}`,
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionNone, res.Permission)
				require.Contains(t, res.Runs[0].Decision, "no effect")
			}},
		{"a hook JSON answer is read as such", event.PreToolUse, prompt(),
			`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "check with the user"}}`,
			func(t *testing.T, res hooks.Result) {
				require.Equal(t, hooks.PermissionAsk, res.Permission)
				require.Equal(t, "check with the user", res.Reason)
			}},
		{"a model's text holding the JSON", event.Stop, prompt(), `"` + "```json\\n{\\\"ok\\\": false, \\\"reason\\\": \\\"summarise first\\\"}\\n```" + `"`,
			func(t *testing.T, res hooks.Result) {
				require.True(t, res.Blocked)
				require.Equal(t, "summarise first", res.Reason)
			}},
		{"an answer that is not JSON is a non-blocking error", event.Stop, prompt(), `"I think it is fine"`,
			func(t *testing.T, res hooks.Result) {
				require.False(t, res.Blocked)
				require.Len(t, res.Errors, 1)
				require.Contains(t, res.Errors[0], "not a JSON object")
			}},
		{"ok must be a boolean", event.Stop, prompt(), `{"ok": "yes"}`, func(t *testing.T, res hooks.Result) {
			require.False(t, res.Blocked)
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], `"ok" must be true or false`)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, typedHook(c.event, c.hook))
			host := &fakeHost{answer: answers(c.answer)}
			e.SetDelegate(host)
			in := input(c.event, root)
			if c.event == event.PermissionRequest {
				in.ToolName, in.ToolInput = "Bash", json.RawMessage(`{"command":"ls"}`)
			}
			res := e.Fire(context.Background(), in)
			require.Len(t, res.Runs, 1)
			require.True(t, res.Runs[0].Ran, res.Runs[0].Skipped)
			c.check(t, res)

			asked := host.evaluations()
			require.Len(t, asked, 1)
			ev := asked[0]
			require.Equal(t, c.hook["type"], ev.Type)
			require.Equal(t, c.event, ev.Event)
			require.Equal(t, in.SessionID, ev.SessionID)
			require.JSONEq(t, string(res.Stdin), string(ev.Input), "the input is the stdin a command hook reads")
			want := strings.Replace(c.hook["prompt"].(string), "$ARGUMENTS", strings.TrimSpace(string(res.Stdin)), 1)
			if !strings.Contains(c.hook["prompt"].(string), "$ARGUMENTS") {
				want += "\n\n" + strings.TrimSpace(string(res.Stdin))
			}
			require.Equal(t, want, ev.Prompt)
		})
	}
}

func TestPromptHookTimeoutsAndDefaults(t *testing.T) {
	e, root := setup(t, typedHook(event.Stop, map[string]any{"type": "prompt", "prompt": "p", "timeout": 0.2}))
	cancelled := make(chan struct{})
	e.SetDelegate(&fakeHost{answer: func(ctx context.Context, _ hooks.Evaluation) (json.RawMessage, error) {
		<-ctx.Done() // a model that never answers
		close(cancelled)
		return nil, ctx.Err()
	}})
	res := e.Fire(context.Background(), input(event.Stop, root))
	<-cancelled // the call was cancelled, not left running
	require.True(t, res.Runs[0].TimedOut)
	require.False(t, res.Blocked)
	require.Equal(t, []string{"hook timed out after 200ms: `prompt: p`"}, res.Errors)

	// Claude Code's default timeouts: 30 s for prompt hooks, 60 s for agent hooks.
	cfg := settings.ParseFile("s.json", settings.SourceUser, []byte(`{"hooks": {"Stop": [{"hooks": [
		{"type": "prompt", "prompt": "p"}, {"type": "agent", "prompt": "a"}, {"type": "prompt", "prompt": "q", "timeout": 5}]}]}}`), "")
	require.Empty(t, cfg.Diagnostics)
	require.Equal(t, settings.DefaultPromptTimeout, cfg.Hooks[0].Timeout)
	require.Equal(t, settings.DefaultAgentTimeout, cfg.Hooks[1].Timeout)
	require.Equal(t, "5s", cfg.Hooks[2].Timeout.String())

	// The agent host's error is the hook's non-blocking error.
	e.SetDelegate(&fakeHost{answer: func(context.Context, hooks.Evaluation) (json.RawMessage, error) {
		return nil, errors.New("the model is overloaded")
	}})
	res = e.Fire(context.Background(), input(event.Stop, root))
	require.Equal(t, []string{"prompt hook `prompt: p` failed: the model is overloaded"}, res.Errors)
}

func TestDelegatedHooksWithoutAnAgentHostDoNotRun(t *testing.T) {
	settings := `{"hooks": {"Stop": [{"hooks": [
		{"type": "prompt", "prompt": "Should the agent stop?"},
		{"type": "mcp_tool", "server": "db", "tool": "check"},
		{"type": "command", "command": "cat >/dev/null"}]}]}}`
	for _, c := range []struct {
		name string
		host hooks.Delegate
		why  string
	}{
		{"no delegate", nil, "no agent host is connected to evaluate it"},
		{"a delegate that cannot", &fakeHost{answer: func(context.Context, hooks.Evaluation) (json.RawMessage, error) {
			return nil, &hooks.NotSupportedError{Why: "the editor did not declare it"}
		}}, "the editor did not declare it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, settings)
			if c.host != nil {
				e.SetDelegate(c.host)
			}
			in := input(event.Stop, root)
			res := e.Fire(context.Background(), in)
			require.Len(t, res.Runs, 3)
			for _, r := range res.Runs[:2] {
				require.False(t, r.Ran)
				require.True(t, strings.HasPrefix(r.Skipped, "needs an agent host: "+c.why), r.Skipped)
			}
			require.True(t, res.Runs[2].Ran, "a command hook beside them runs")
			require.Len(t, res.Warnings, 1, "one warning per session, not one per hook")
			require.Contains(t, res.Warnings[0], "prompt hook `prompt: Should the agent stop?` did not run: it needs an agent host")
			require.Contains(t, hooks.Summary(&res), "1 of 3 hook(s) ran")
			explained := hooks.Explain(hooks.NewEventRun(in.SessionID, "", &res))
			require.Contains(t, explained, "did not run: needs an agent host: "+c.why)

			again := e.Fire(context.Background(), in)
			require.Empty(t, again.Warnings, "the session was told already")
			other := in
			other.SessionID = "another"
			require.Len(t, e.Fire(context.Background(), other).Warnings, 1, "another session is told")
		})
	}
}

func TestMCPToolHook(t *testing.T) {
	hook := map[string]any{"type": "mcp_tool", "server": "db", "tool": "scan",
		"input": map[string]any{"path": "${tool_input.command}", "note": "event ${hook_event_name} in ${missing.path}", "n": 3}}
	cases := []struct {
		name   string
		answer string
		check  func(t *testing.T, res hooks.Result)
	}{
		{"the text is read like stdout: JSON decides", `{"content": [{"type": "text", "text": "{\"decision\": \"block\", \"reason\": \"scan found a secret\"}"}]}`,
			func(t *testing.T, res hooks.Result) {
				require.True(t, res.Blocked)
				require.Equal(t, "scan found a secret", res.Reason)
			}},
		{"plain text after a successful call changes nothing on PostToolUse", `{"content": [{"type": "text", "text": "all clean"}]}`,
			func(t *testing.T, res hooks.Result) {
				require.False(t, res.Blocked)
				require.Empty(t, res.Errors)
			}},
		{"isError is a non-blocking error", `{"content": [{"type": "text", "text": "database locked"}], "isError": true}`,
			func(t *testing.T, res hooks.Result) {
				require.False(t, res.Blocked)
				require.Equal(t, []string{"mcp_tool hook `mcp_tool db/scan` failed: database locked"}, res.Errors)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, typedHook(event.PostToolUse, hook))
			host := &fakeHost{answer: answers(c.answer)}
			e.SetDelegate(host)
			res := e.Fire(context.Background(), input(event.PostToolUse, root))
			c.check(t, res)
			asked := host.evaluations()
			require.Len(t, asked, 1)
			require.Equal(t, "mcp_tool", asked[0].Type)
			require.Equal(t, "db", asked[0].Server)
			require.Equal(t, "scan", asked[0].Tool)
			require.JSONEq(t, `{"path": "ls -la", "note": "event PostToolUse in ", "n": 3}`, string(asked[0].Arguments))
		})
	}
}
