package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

func TestAllFiveHookTypesLoad(t *testing.T) {
	text := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "true"},
		{"type": "http", "url": "http://127.0.0.1:9/hooks", "headers": {"X-Token": "$T"}, "allowedEnvVars": ["T"]},
		{"type": "mcp_tool", "server": "db", "tool": "scan", "input": {"p": "${tool_input.command}"}},
		{"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "fast", "continueOnBlock": true},
		{"type": "agent", "prompt": "Verify", "timeout": 90}]}]}}`
	f := settings.ParseFile("s.json", settings.SourceUser, []byte(text), "")
	require.Empty(t, f.Diagnostics)
	require.Len(t, f.Hooks, 5)
	var got []string
	for _, h := range f.Hooks {
		got = append(got, h.Type+": "+h.Display())
	}
	require.Equal(t, []string{"command: true", "http: POST http://127.0.0.1:9/hooks", "mcp_tool: mcp_tool db/scan",
		"prompt: prompt: Safe? $ARGUMENTS (model fast)", "agent: agent: Verify"}, got)
	require.Equal(t, []settings.Header{{Name: "X-Token", Value: "$T"}}, f.Hooks[1].Headers)
	require.Equal(t, []string{"T"}, f.Hooks[1].AllowedEnvVars)
	require.JSONEq(t, `{"p": "${tool_input.command}"}`, string(f.Hooks[2].Input))
	require.True(t, f.Hooks[3].ContinueOnBlock)
	require.Equal(t, "1m30s", f.Hooks[4].Timeout.String())
}

func TestOnceRunsOncePerSession(t *testing.T) {
	e, root := setup(t, `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "echo first time", "once": true},
		{"type": "command", "command": "echo every time"}]}]}}`)
	in := input(event.UserPromptSubmit, root)
	first := e.Fire(context.Background(), in)
	require.Equal(t, []string{"first time", "every time"}, first.Context)
	second := e.Fire(context.Background(), in)
	require.Equal(t, []string{"every time"}, second.Context)
	require.Equal(t, "once: it already ran in this session", second.Runs[0].Skipped)

	other := in
	other.SessionID = "sess_other"
	require.Equal(t, []string{"first time", "every time"}, e.Fire(context.Background(), other).Context, "another session runs it")

	end := in
	end.Event, end.Reason = event.SessionEnd, "clear"
	e.Fire(context.Background(), end)
	require.Equal(t, []string{"first time", "every time"}, e.Fire(context.Background(), in).Context,
		"after SessionEnd the session starts afresh")
}

func TestOnceIsIgnoredInClaudeCodeFiles(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"importClaudeHooks": true}`), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo again", "once": true}]}]}}`), 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	require.Len(t, cfg.Diagnostics(), 1)
	require.Equal(t, settings.SeverityInfo, cfg.Diagnostics()[0].Severity)
	e := hooks.NewEngine(cfg)
	e.SetWorkspaceTrusted(true)
	in := input(event.UserPromptSubmit, root)
	e.Fire(context.Background(), in)
	require.Equal(t, []string{"again"}, e.Fire(context.Background(), in).Context, "as in Claude Code, once does not apply there")
}

func TestShellOption(t *testing.T) {
	bashOnly := `[[ "$(jq -r .prompt)" == Please* ]] && echo "bash read the prompt"`
	for _, c := range []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"bash read the prompt"}},
		{"", nil}, // sh does not know [[
		{"sh", nil},
	} {
		t.Run("shell="+c.shell, func(t *testing.T) {
			if c.shell == "bash" {
				if _, err := exec.LookPath("bash"); err != nil {
					t.Skip("bash is not installed")
				}
			}
			h := map[string]any{"type": "command", "command": bashOnly}
			if c.shell != "" {
				h["shell"] = c.shell
			}
			e, root := setup(t, typedHook(event.UserPromptSubmit, h))
			res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
			require.Equal(t, c.want, res.Context)
			require.True(t, res.Runs[0].Ran)
		})
	}
}

func TestAsyncOutputReachesTheSessionsNextEvent(t *testing.T) {
	e, root := setup(t, `{"hooks": {"PostToolUse": [{"hooks": [
		{"type": "command", "async": true, "command": "jq -n '{systemMessage: \"tests are running\", hookSpecificOutput: {hookEventName: \"PostToolUse\", additionalContext: \"2 tests failed\"}}'"}]}]}}`)
	in := input(event.PostToolUse, root)
	started := e.Fire(context.Background(), in)
	require.True(t, started.Runs[0].Async)
	require.Empty(t, started.Delivered, "the hook has not ended yet when its event returns")
	e.Wait()

	other := input(event.Stop, root)
	other.SessionID = "sess_other"
	require.Empty(t, e.Fire(context.Background(), other).Delivered, "another session's event does not carry it")

	next := e.Fire(context.Background(), input(event.Stop, root))
	require.Equal(t, []hooks.Delivery{
		{Event: event.PostToolUse, Hook: started.Runs[0].Command, Content: "2 tests failed"},
		{Event: event.PostToolUse, Hook: started.Runs[0].Command, Content: "tests are running"},
	}, next.Delivered)
	require.Empty(t, e.Fire(context.Background(), input(event.Stop, root)).Delivered, "delivered once")
}

func TestAsyncRewake(t *testing.T) {
	e, root := setup(t, `{"hooks": {"PostToolUse": [{"hooks": [
		{"type": "command", "asyncRewake": true, "command": "cat >/dev/null; echo 'the build broke: main.go:3' >&2; exit 2"},
		{"type": "command", "asyncRewake": true, "command": "cat >/dev/null; echo 'only on stdout'; exit 2"},
		{"type": "command", "asyncRewake": true, "command": "cat >/dev/null; echo fine >&2; exit 1"}]}]}}`)
	done := make(chan hooks.Result, 3)
	e.OnAsyncDone(func(_ event.Input, res hooks.Result) { done <- res })
	res := e.Fire(context.Background(), input(event.PostToolUse, root))
	for _, r := range res.Runs {
		require.True(t, r.Async, "asyncRewake implies async")
	}
	require.False(t, res.Blocked)
	e.Wait()
	close(done)
	rewakes := map[string]string{}
	for r := range done {
		rewakes[r.Runs[0].Command] = r.Rewake
	}
	require.Equal(t, map[string]string{
		"cat >/dev/null; echo 'the build broke: main.go:3' >&2; exit 2": "the build broke: main.go:3",
		"cat >/dev/null; echo 'only on stdout'; exit 2":                 "only on stdout",
		"cat >/dev/null; echo fine >&2; exit 1":                         "",
	}, rewakes)
}

func TestTrustCoversTheNewHookFields(t *testing.T) {
	hash := func(hook map[string]any) (string, []string) {
		root := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(root, ".wave"), 0o755))
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{hook}}}}})
		require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "settings.json"), b, 0o644))
		cfg := settings.Load(settings.Paths{WaveHome: t.TempDir(), ProjectRoot: root}, nil)
		require.Empty(t, cfg.Diagnostics())
		// The hash is of what the workspace's files say, not of where the project is.
		return trust.WorkspaceHash(cfg), trust.WorkspaceCommands(cfg)
	}
	base := map[string]any{"type": "http", "url": "http://127.0.0.1:9/a", "headers": map[string]any{"Authorization": "Bearer $T"},
		"allowedEnvVars": []string{"T"}}
	h0, cmds := hash(base)
	require.Equal(t, []string{"POST http://127.0.0.1:9/a (headers Authorization: Bearer $T, sending $T)"}, cmds,
		"the trust prompt shows where the hook posts and what it sends")
	for _, change := range []map[string]any{
		{"url": "http://127.0.0.1:9/b"},
		{"headers": map[string]any{"Authorization": "Bearer $U"}},
		{"allowedEnvVars": []string{"T", "HOME"}},
		{"type": "prompt", "prompt": "p", "url": nil, "headers": nil, "allowedEnvVars": nil},
	} {
		h := map[string]any{}
		for k, v := range base {
			h[k] = v
		}
		for k, v := range change {
			if v == nil {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		h1, _ := hash(h)
		require.NotEqual(t, h0, h1, "changing %v asks for trust again", change)
	}
	p1, _ := hash(map[string]any{"type": "prompt", "prompt": "Is it done?"})
	p2, cmds := hash(map[string]any{"type": "prompt", "prompt": "Is it done? Say yes."})
	require.NotEqual(t, p1, p2)
	require.Equal(t, []string{"prompt: Is it done? Say yes."}, cmds)
	c1, _ := hash(map[string]any{"type": "command", "command": "true"})
	c2, cmds := hash(map[string]any{"type": "command", "command": "true", "shell": "bash", "asyncRewake": true})
	require.NotEqual(t, c1, c2)
	require.Equal(t, []string{"true (in the background, with bash, waking the agent on exit 2)"}, cmds)
}
