package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// onFailureKind is one way a hook fails in the sense of onFailure.
type onFailureKind struct {
	name string
	// hook is the hook's settings (real sh hooks reading their stdin).
	hook map[string]any
	// serve, when set, answers the http hook, whose url becomes a test
	// server's.
	serve http.HandlerFunc
	// host evaluates the mcp_tool hook; nil leaves the engine without an
	// agent host, as under `wavehooks run` and the ACP proxy.
	host hooks.Delegate
	// notRun: the hook cannot run at all (no agent host serves its type).
	notRun bool
}

// mcpGuard is an mcp_tool hook's settings.
var mcpGuard = map[string]any{"type": "mcp_tool", "server": "scanner", "tool": "scan", "timeout": 0.3}

// hostAnswering is an agent host whose MCP server answers s.
func hostAnswering(s string) hooks.Delegate { return &fakeHost{answer: answers(s)} }

// onFailureKinds are all the ways a hook fails in the sense of onFailure:
// every one of them blocks with onFailure "block", "no host for this hook
// type" included.
var onFailureKinds = []onFailureKind{
	{name: "missing script (exit 127)", hook: map[string]any{"type": "command", "command": "./no-such-guard.sh"}},
	{name: "timeout", hook: map[string]any{"type": "command", "command": "cat >/dev/null; exec sleep 30", "timeout": 0.3}},
	{name: "exit 1", hook: map[string]any{"type": "command", "command": "cat >/dev/null; echo 'guard crashed' >&2; exit 1"}},
	{name: "invalid JSON", hook: map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision": '`}},
	{name: "JSON failing validation", hook: map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision": "sometimes"}'`}},
	{name: "http hook that cannot connect", hook: map[string]any{"type": "http", "url": "http://127.0.0.1:9/guard", "timeout": 5}},
	{name: "http hook answering HTTP 500", hook: map[string]any{"type": "http"},
		serve: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "guard crashed", http.StatusInternalServerError)
		}},
	{name: "http hook that times out", hook: map[string]any{"type": "http", "timeout": 0.3},
		serve: func(_ http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // the server sees the client go only once the body is read
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}},
	{name: "http hook answering a body that is not JSON", hook: map[string]any{"type": "http"},
		serve: func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok, I guess")) }},
	{name: "mcp_tool hook whose host answers an error", hook: mcpGuard,
		host: &fakeHost{answer: func(context.Context, hooks.Evaluation) (json.RawMessage, error) {
			return nil, errors.New("the MCP server crashed")
		}}},
	{name: "mcp_tool hook whose call times out", hook: mcpGuard,
		host: &fakeHost{answer: func(ctx context.Context, _ hooks.Evaluation) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}},
	{name: "mcp_tool hook whose tool answers isError", hook: mcpGuard,
		host: hostAnswering(`{"content": [{"type": "text", "text": "scanner unavailable"}], "isError": true}`)},
	{name: "mcp_tool hook whose answer is not an MCP result", hook: mcpGuard, host: hostAnswering(`[1, 2]`)},
	{name: "mcp_tool hook answering invalid JSON", hook: mcpGuard,
		host: hostAnswering(`{"content": [{"type": "text", "text": "{\"decision\": "}]}`)},
	{name: "mcp_tool hook answering JSON failing validation", hook: mcpGuard,
		host: hostAnswering(`{"content": [{"type": "text", "text": "{\"decision\": \"sometimes\"}"}]}`)},
	// No host for this hook type: #35 item 5.
	{name: "mcp_tool hook with no agent host", hook: mcpGuard, notRun: true},
	{name: "mcp_tool hook whose agent host cannot evaluate hooks", hook: mcpGuard, notRun: true,
		host: &fakeHost{answer: func(context.Context, hooks.Evaluation) (json.RawMessage, error) {
			return nil, &hooks.NotSupportedError{Why: "the editor did not declare it"}
		}}},
}

// onFailureInput is an input of ev that the guard above would judge.
func onFailureInput(ev event.Event, root string) event.Input {
	in := event.Input{Event: ev, SessionID: "s1", Cwd: root}
	switch ev {
	case event.PreToolUse, event.PermissionRequest:
		in.ToolName, in.ToolUseID, in.ToolInput = "Bash", "toolu_1", json.RawMessage(`{"command":"rm -rf build"}`)
	case event.UserPromptSubmit:
		in.Prompt = "deploy to prod"
	}
	return in
}

// TestOnFailureBlock: with onFailure "block", each kind of failure counts
// as exit 2: PreToolUse and PermissionRequest deny, UserPromptSubmit blocks;
// on Stop it is ignored, and with the default ("continue") the failure is
// an error (or, for a hook that could not run, a warning) and nothing is
// blocked. A guard that no agent host can run is one of those failures.
func TestOnFailureBlock(t *testing.T) {
	for _, kind := range onFailureKinds {
		for _, ev := range []event.Event{event.PreToolUse, event.UserPromptSubmit, event.PermissionRequest, event.Stop} {
			for _, onFailure := range []string{"block", "continue"} {
				t.Run(kind.name+"/"+string(ev)+"/"+onFailure, func(t *testing.T) {
					hook := map[string]any{"onFailure": onFailure}
					for k, v := range kind.hook {
						hook[k] = v
					}
					if kind.serve != nil {
						srv := httptest.NewServer(kind.serve)
						t.Cleanup(srv.Close)
						hook["url"] = srv.URL + "/guard"
					}
					b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(ev): []any{map[string]any{"hooks": []any{hook}}}}})
					// Diagnostics are expected: the missing script, and
					// onFailure ignored on Stop.
					e, root := setupLoose(t, string(b))
					if kind.host != nil {
						e.SetDelegate(kind.host)
					}
					res := e.Fire(context.Background(), onFailureInput(ev, root))
					if kind.notRun {
						require.False(t, res.Runs[0].Ran)
						require.True(t, strings.HasPrefix(res.Runs[0].Skipped, hooks.NeedsAgentHost), res.Runs[0].Skipped)
					} else {
						require.True(t, res.Runs[0].Ran, res.Runs[0].Skipped)
					}
					blocked := onFailure == "block" && ev != event.Stop
					switch {
					case !blocked:
						require.False(t, res.Blocked)
						require.NotEqual(t, hooks.PermissionDeny, res.Permission)
						require.NotContains(t, res.Runs[0].Decision, hooks.OnFailureBlocked)
						require.NotEmpty(t, append(res.Errors, res.Warnings...), "the failure is reported")
					case ev == event.UserPromptSubmit:
						require.True(t, res.Blocked)
					default:
						require.Equal(t, hooks.PermissionDeny, res.Permission)
					}
					if blocked {
						require.True(t, strings.HasPrefix(res.Reason, hooks.OnFailureBlocked+": hook `"), res.Reason)
						require.Contains(t, res.Runs[0].Decision, "; "+hooks.OnFailureBlocked)
						require.Empty(t, res.Errors, "exit 2's reason, not an error")
						if kind.notRun {
							require.Contains(t, res.Reason, "it could not run: ")
							require.True(t, strings.HasSuffix(res.Runs[0].Skipped, "; "+hooks.OnFailureBlocked), res.Runs[0].Skipped)
						}
					}
				})
			}
		}
	}
}

// TestOnFailureBlockLetsAWorkingHookDecide: a hook with onFailure "block"
// that works answers as ever: exit 0 lets the call run, exit 2 and a JSON
// allow are theirs.
func TestOnFailureBlockLetsAWorkingHookDecide(t *testing.T) {
	for _, c := range []struct {
		command string
		want    hooks.Permission
	}{
		{"cat >/dev/null; exit 0", hooks.PermissionNone},
		{`cat >/dev/null; jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow"}}'`, hooks.PermissionAllow},
		{"cat >/dev/null; echo 'no' >&2; exit 2", hooks.PermissionDeny},
	} {
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": c.command, "onFailure": "block"}}}}}})
		e, root := setup(t, string(b))
		res := e.Fire(context.Background(), onFailureInput(event.PreToolUse, root))
		require.Equal(t, c.want, res.Permission, c.command)
		require.NotContains(t, res.Runs[0].Decision, hooks.OnFailureBlocked)
	}
}

// TestOnFailureLint: lint says where onFailure does nothing (async hooks,
// Stop, SubagentStop, TaskCompleted, TeammateIdle, prompt and agent hooks),
// and a value other than continue or block is an error under which the
// hook fails closed.
func TestOnFailureLint(t *testing.T) {
	cases := []struct {
		name, event string
		hook        map[string]any
		want        string
	}{
		{"async", "PreToolUse", map[string]any{"type": "command", "command": "true", "async": true, "onFailure": "block"}, "onFailure is ignored for async hooks"},
		{"Stop", "Stop", map[string]any{"type": "command", "command": "true", "onFailure": "block"}, "onFailure is ignored on Stop"},
		{"SubagentStop", "SubagentStop", map[string]any{"type": "command", "command": "true", "onFailure": "block"}, "onFailure is ignored on SubagentStop"},
		{"TaskCompleted", "TaskCompleted", map[string]any{"type": "command", "command": "true", "onFailure": "block"}, "onFailure is ignored on TaskCompleted"},
		{"TeammateIdle", "TeammateIdle", map[string]any{"type": "command", "command": "true", "onFailure": "block"}, "onFailure is ignored on TeammateIdle"},
		{"prompt", "PreToolUse", map[string]any{"type": "prompt", "prompt": "ok?", "onFailure": "block"}, "onFailure is read by command and http and mcp_tool hooks only; this prompt hook ignores it"},
		{"typo", "PreToolUse", map[string]any{"type": "command", "command": "true", "onFailure": "blok"}, `onFailure must be "continue" or "block", not "blok"; until it is fixed, a failure of this hook blocks`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _ := json.Marshal(map[string]any{"hooks": map[string]any{c.event: []any{map[string]any{"hooks": []any{c.hook}}}}})
			cfg := loadSettings(t, string(b))
			var msgs []string
			for _, d := range cfg.Diagnostics() {
				msgs = append(msgs, d.Message)
			}
			require.Len(t, msgs, 1)
			require.Contains(t, msgs[0], c.want)
		})
	}
	cfg := loadSettings(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 1", "onFailure": "blok"}]}]}}`)
	require.Equal(t, settings.OnFailureBlock, cfg.Hooks[0].OnFailure, "a misspelt value fails closed")
	require.Contains(t, cfg.Hooks[0].Describe(), "blocking when it fails", "what the user trusts says it")
}

// loadSettings loads settings as the user's settings file, diagnostics and all.
func loadSettings(t *testing.T, settingsJSON string) *settings.Config {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	return settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
}

// setupLoose is setup for settings that have diagnostics.
func setupLoose(t *testing.T, settingsJSON string) (*hooks.Engine, string) {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	return hooks.NewEngine(settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)), root
}
