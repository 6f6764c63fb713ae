package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooks"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// onFailureKinds are the ways a hook fails in the sense of onFailure, each
// as the hook's settings (real sh hooks reading their stdin).
var onFailureKinds = []struct {
	name string
	hook map[string]any
}{
	{"missing script (exit 127)", map[string]any{"type": "command", "command": "./no-such-guard.sh"}},
	{"timeout", map[string]any{"type": "command", "command": "cat >/dev/null; exec sleep 30", "timeout": 0.3}},
	{"exit 1", map[string]any{"type": "command", "command": "cat >/dev/null; echo 'guard crashed' >&2; exit 1"}},
	{"invalid JSON", map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision": '`}},
	{"JSON failing validation", map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision": "sometimes"}'`}},
	{"http hook that cannot connect", map[string]any{"type": "http", "url": "http://127.0.0.1:9/guard", "timeout": 5}},
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
// an error and nothing is blocked.
func TestOnFailureBlock(t *testing.T) {
	for _, kind := range onFailureKinds {
		for _, ev := range []event.Event{event.PreToolUse, event.UserPromptSubmit, event.PermissionRequest, event.Stop} {
			for _, onFailure := range []string{"block", "continue"} {
				t.Run(kind.name+"/"+string(ev)+"/"+onFailure, func(t *testing.T) {
					hook := map[string]any{"onFailure": onFailure}
					for k, v := range kind.hook {
						hook[k] = v
					}
					b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(ev): []any{map[string]any{"hooks": []any{hook}}}}})
					// Diagnostics are expected: the missing script, and
					// onFailure ignored on Stop.
					e, root := setupLoose(t, string(b))
					res := e.Fire(context.Background(), onFailureInput(ev, root))
					require.True(t, res.Runs[0].Ran, res.Runs[0].Skipped)
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
