package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scripts is the absolute path of testdata/hooks, for settings that name the example scripts.
var scripts = func() string {
	p, err := filepath.Abs("../testdata/hooks")
	if err != nil {
		panic(err)
	}
	return p
}()

// setup writes settings.json (a user-level file, so its hooks always run) and
// returns an engine for a fresh project root.
func setup(t *testing.T, settingsJSON string) (*hooks.Engine, string) {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	settingsJSON = strings.ReplaceAll(settingsJSON, "$SCRIPTS", scripts)
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	require.Empty(t, cfg.Diagnostics(), "test settings must be valid")
	return hooks.NewEngine(cfg), root
}

// one configures a single hook command for an event.
func one(ev event.Event, command string) string {
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{string(ev): []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}}}})
	return string(b)
}

func input(ev event.Event, root string) event.Input {
	in := event.Input{SessionID: "sess_1234abcd", TranscriptPath: "/tmp/session_1234abcd.json", Cwd: root, Event: ev}
	switch ev {
	case event.PreToolUse, event.PostToolUse:
		in.ToolName, in.ToolUseID = "Bash", "toolu_1"
		in.ToolInput = json.RawMessage(`{"command":"ls -la"}`)
		if ev == event.PostToolUse {
			in.ToolResponse = json.RawMessage(`{"success":true,"content":"a\nb"}`)
		}
	case event.UserPromptSubmit:
		in.Prompt = "Please create a file"
	case event.SessionStart:
		in.Source = "startup"
	case event.SessionEnd:
		in.Reason = "other"
	}
	return in
}

func TestStdinCarriesEveryFieldOfItsEvent(t *testing.T) {
	cases := []struct {
		event event.Event
		want  map[string]any
	}{
		{event.PreToolUse, map[string]any{"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"},
			"tool_use_id": "toolu_1"}},
		{event.PostToolUse, map[string]any{"permission_mode": "default", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"},
			"tool_use_id": "toolu_1", "tool_response": map[string]any{"success": true, "content": "a\nb"}}},
		{event.UserPromptSubmit, map[string]any{"permission_mode": "default", "prompt": "Please create a file", "user_prompt": "Please create a file"}},
		{event.Stop, map[string]any{"permission_mode": "default", "stop_hook_active": false, "background_tasks": []any{}, "session_crons": []any{}}},
		{event.SessionStart, map[string]any{"source": "startup"}},
		{event.SessionEnd, map[string]any{"reason": "other", "end_source": "other"}},
	}
	for _, c := range cases {
		t.Run(string(c.event), func(t *testing.T) {
			e, root := setup(t, one(c.event, "$SCRIPTS/record-stdin.sh"))
			res := e.Fire(context.Background(), input(c.event, root))
			require.Empty(t, res.Errors)
			b, err := os.ReadFile(filepath.Join(root, "stdin-"+string(c.event)+".json"))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			want := map[string]any{"session_id": "sess_1234abcd", "transcript_path": "/tmp/session_1234abcd.json",
				"cwd": root, "hook_event_name": string(c.event)}
			for k, v := range c.want {
				want[k] = v
			}
			require.Equal(t, want, got)
		})
	}
}

func TestHooksRunInProjectRootWithProjectDirEnv(t *testing.T) {
	e, root := setup(t, one(event.UserPromptSubmit, `cat >/dev/null; echo "$(pwd)|$WAVE_PROJECT_DIR|$CLAUDE_PROJECT_DIR"`))
	res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
	real, _ := filepath.EvalSymlinks(root)
	require.Equal(t, []string{real + "|" + root + "|" + root}, res.Context)
}

// exitHook reads its stdin with jq, prints to stdout and stderr and exits with code.
func exitHook(code int, stdout, stderr string) string {
	return fmt.Sprintf(`jq -r .hook_event_name >/dev/null; printf '%%s' '%s'; printf '%%s' '%s' >&2; exit %d`, stdout, stderr, code)
}

func TestExitCodes(t *testing.T) {
	type want struct {
		permission hooks.Permission
		blocked    bool
		reason     string
		context    []string
		errors     []string
	}
	cases := []struct {
		name  string
		event event.Event
		code  int
		want  want
	}{
		{"PreToolUse exit 0 allows without opinion", event.PreToolUse, 0, want{}},
		{"PreToolUse exit 2 denies with stderr", event.PreToolUse, 2, want{permission: hooks.PermissionDeny, reason: "bad"}},
		{"PreToolUse exit 1 is a non-blocking error", event.PreToolUse, 1, want{errors: []string{"bad"}}},
		{"PostToolUse exit 0 does nothing", event.PostToolUse, 0, want{}},
		{"PostToolUse exit 2 gives feedback", event.PostToolUse, 2, want{blocked: true, reason: "bad"}},
		{"PostToolUse exit 3 is an error", event.PostToolUse, 3, want{errors: []string{"bad"}}},
		{"UserPromptSubmit exit 0 adds stdout as context", event.UserPromptSubmit, 0, want{context: []string{"ctx"}}},
		{"UserPromptSubmit exit 2 blocks", event.UserPromptSubmit, 2, want{blocked: true, reason: "bad"}},
		{"UserPromptSubmit exit 1 is an error and the prompt goes on", event.UserPromptSubmit, 1, want{errors: []string{"bad"}, context: nil}},
		{"Stop exit 0 lets the agent stop", event.Stop, 0, want{}},
		{"Stop exit 2 blocks stopping", event.Stop, 2, want{blocked: true, reason: "bad"}},
		{"Stop exit 1 is an error", event.Stop, 1, want{errors: []string{"bad"}}},
		{"SessionStart exit 0 adds context", event.SessionStart, 0, want{context: []string{"ctx"}}},
		{"SessionStart exit 2 is an error for the user", event.SessionStart, 2, want{errors: []string{"bad"}}},
		{"SessionEnd exit 2 is an error for the user", event.SessionEnd, 2, want{errors: []string{"bad"}}},
		{"SessionEnd exit 5 is an error", event.SessionEnd, 5, want{errors: []string{"bad"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(c.event, exitHook(c.code, "ctx", "bad")))
			res := e.Fire(context.Background(), input(c.event, root))
			require.True(t, res.Continue)
			require.Equal(t, c.want.permission, res.Permission)
			require.Equal(t, c.want.blocked, res.Blocked)
			require.Equal(t, c.want.reason, res.Reason)
			if c.code != 0 {
				c.want.context = nil
			}
			require.Equal(t, c.want.context, res.Context)
			require.Equal(t, c.want.errors, res.Errors)
			require.Len(t, res.Runs, 1)
			require.True(t, res.Runs[0].Ran)
			require.Equal(t, c.code, res.Runs[0].ExitCode)
		})
	}
}

func TestJSONOutput(t *testing.T) {
	cases := []struct {
		name  string
		event event.Event
		out   string
		check func(t *testing.T, r hooks.Result)
	}{
		{"continue false stops with its reason", event.PostToolUse, `{"continue":false,"stopReason":"build broke"}`, func(t *testing.T, r hooks.Result) {
			require.False(t, r.Continue)
			require.Equal(t, "build broke", r.StopReason)
		}},
		{"systemMessage is a warning", event.Stop, `{"systemMessage":"careful"}`, func(t *testing.T, r hooks.Result) {
			require.Equal(t, []string{"careful"}, r.Warnings)
			require.True(t, r.Continue)
		}},
		{"PreToolUse allow", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, hooks.PermissionAllow, r.Permission)
				require.Equal(t, "safe", r.Reason)
			}},
		{"PreToolUse deny", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, hooks.PermissionDeny, r.Permission)
				require.Equal(t, "no", r.Reason)
			}},
		{"PreToolUse ask", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, hooks.PermissionAsk, r.Permission)
				require.Equal(t, "sure?", r.Reason)
			}},
		{"PreToolUse updatedInput", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command": "ls"}}}`,
			func(t *testing.T, r hooks.Result) {
				require.JSONEq(t, `{"command":"ls"}`, string(r.UpdatedInput))
			}},
		{"deprecated approve means allow", event.PreToolUse, `{"decision":"approve","reason":"ok"}`, func(t *testing.T, r hooks.Result) {
			require.Equal(t, hooks.PermissionAllow, r.Permission)
			require.Equal(t, "ok", r.Reason)
		}},
		{"deprecated block means deny", event.PreToolUse, `{"decision":"block","reason":"nope"}`, func(t *testing.T, r hooks.Result) {
			require.Equal(t, hooks.PermissionDeny, r.Permission)
			require.Equal(t, "nope", r.Reason)
		}},
		{"PostToolUse block gives feedback", event.PostToolUse, `{"decision":"block","reason":"lint failed"}`, func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "lint failed", r.Reason)
		}},
		{"PostToolUse additionalContext", event.PostToolUse, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"tests pass"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, []string{"tests pass"}, r.AdditionalContext)
			}},
		{"UserPromptSubmit block in hookSpecificOutput", event.UserPromptSubmit,
			`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","decision":"block","reason":"secret in prompt"}}`, func(t *testing.T, r hooks.Result) {
				require.True(t, r.Blocked)
				require.Equal(t, "secret in prompt", r.Reason)
				require.Empty(t, r.Context)
			}},
		{"UserPromptSubmit additionalContext", event.UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"use tabs"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, []string{"use tabs"}, r.AdditionalContext)
				require.Empty(t, r.Context, "a JSON answer is not plain context")
			}},
		{"Stop block", event.Stop, `{"decision":"block","reason":"tests are red"}`, func(t *testing.T, r hooks.Result) {
			require.True(t, r.Blocked)
			require.Equal(t, "tests are red", r.Reason)
		}},
		{"SessionStart additionalContext", event.SessionStart, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}`,
			func(t *testing.T, r hooks.Result) {
				require.Equal(t, []string{"branch main"}, r.AdditionalContext)
			}},
		{"unknown fields are ignored", event.Stop, `{"suppressOutput":true,"somethingNew":1}`, func(t *testing.T, r hooks.Result) {
			require.Empty(t, r.Warnings)
			require.False(t, r.Blocked)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(c.event, "jq -c . >/dev/null; echo '"+c.out+"'"))
			res := e.Fire(context.Background(), input(c.event, root))
			require.True(t, res.Runs[0].JSON, "stdout should be read as JSON: %v", res.Runs[0].Problems)
			c.check(t, res)
		})
	}
}

func TestInvalidJSONWarnsAndFallsBackToExitCode(t *testing.T) {
	cases := []struct {
		name, out string
		event     event.Event
		code      int
		problem   string
		perm      hooks.Permission
		blocked   bool
	}{
		{"not JSON at all", `{"continue": tru`, event.PreToolUse, 1, "not a valid JSON object", hooks.PermissionNone, false},
		{"wrong type", `{"continue":"no"}`, event.PreToolUse, 0, "continue must be a boolean", hooks.PermissionNone, false},
		{"block without reason", `{"decision":"block"}`, event.Stop, 0, `decision "block" needs a non-empty "reason"`, hooks.PermissionNone, false},
		{"block without reason, exit 1", `{"decision":"block"}`, event.PostToolUse, 1, `decision "block" needs a non-empty "reason"`, hooks.PermissionNone, false},
		{"event name mismatch", `{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"deny"}}`, event.PreToolUse, 0,
			`hookEventName is "Stop" but this is a PreToolUse hook`, hooks.PermissionNone, false},
		{"bad permission", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"maybe"}}`, event.PreToolUse, 0,
			`permissionDecision must be "allow", "deny", "ask" or "defer"`, hooks.PermissionNone, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(c.event, fmt.Sprintf(`cat >/dev/null; echo '%s'; echo fallback >&2; exit %d`, c.out, c.code)))
			res := e.Fire(context.Background(), input(c.event, root))
			require.False(t, res.Runs[0].JSON)
			require.Len(t, res.Warnings, 1)
			require.Contains(t, res.Warnings[0], c.problem)
			require.Contains(t, res.Runs[0].Problems[0], c.problem)
			require.Equal(t, c.perm, res.Permission, "the exit code decides")
			require.Equal(t, c.blocked, res.Blocked, "the exit code decides")
		})
	}
}

func TestTimeoutKillsTheWholeProcessGroup(t *testing.T) {
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"$SCRIPTS/slow.sh","timeout":1}]}]}}`
	e, root := setup(t, settings)
	start := time.Now()
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.Less(t, time.Since(start), 10*time.Second, "Fire must return promptly after the timeout")
	require.True(t, res.Runs[0].TimedOut)
	require.False(t, res.Blocked)
	require.Len(t, res.Errors, 1)
	require.Contains(t, res.Errors[0], "hook timed out after 1s")
	for _, f := range []string{"child.pid", "grandchild.pid"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 20*time.Millisecond, "%s %d survived", f, pid)
	}
}

func TestCancellationKillsHooks(t *testing.T) {
	e, root := setup(t, one(event.Stop, "$SCRIPTS/slow.sh"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res := e.Fire(ctx, input(event.Stop, root))
	require.False(t, res.Runs[0].TimedOut)
	require.Contains(t, res.Errors[0], "cancelled")
}

func TestHookThatNeverReadsHugeStdin(t *testing.T) {
	e, root := setup(t, one(event.PreToolUse, "echo 'did not read' >&2; exit 2"))
	in := input(event.PreToolUse, root)
	big := strings.Repeat("x", 10<<20)
	in.ToolInput, _ = json.Marshal(map[string]string{"content": big})
	res := e.Fire(context.Background(), in)
	require.Equal(t, hooks.PermissionDeny, res.Permission)
	require.Equal(t, "did not read", res.Reason)
}

func TestHookThatReadsHugeStdin(t *testing.T) {
	e, root := setup(t, one(event.PreToolUse, "jq -r '.tool_input.content | length'"))
	in := input(event.PreToolUse, root)
	in.ToolInput, _ = json.Marshal(map[string]string{"content": strings.Repeat("y", 10<<20)})
	res := e.Fire(context.Background(), in)
	require.Equal(t, strconv.Itoa(10<<20), strings.TrimSpace(res.Runs[0].Stdout))
}

func TestFloodedOutputIsCappedAndSaysSo(t *testing.T) {
	e, root := setup(t, one(event.PostToolUse, "cat >/dev/null; head -c 52428800 /dev/zero | tr '\\0' a; head -c 3000000 /dev/zero >&2"))
	res := e.Fire(context.Background(), input(event.PostToolUse, root))
	r := res.Runs[0]
	require.Len(t, r.Stdout, proc.MaxOutput)
	require.Len(t, r.Stderr, proc.MaxOutput)
	require.True(t, r.StdoutTruncated)
	require.True(t, r.StderrTruncated)
	require.Contains(t, strings.Join(res.Warnings, "\n"), "truncated")
}

func TestInjectedTextIsCapped(t *testing.T) {
	e, root := setup(t, one(event.UserPromptSubmit, "cat >/dev/null; head -c 20000 /dev/zero | tr '\\0' c"))
	res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
	require.Len(t, res.Context, 1)
	require.True(t, strings.HasPrefix(res.Context[0], strings.Repeat("c", hooks.MaxInjectedText)+"\n[truncated"))
}

func TestCommandThatCannotStart(t *testing.T) {
	cases := []struct{ name, command, want string }{
		{"not found", "no-such-command-wavehooks --flag", "exit 127: command not found"},
		{"not executable", "$SCRIPTS/../hooks-not-executable.txt", "exit 126: not executable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`)
			cmd := strings.ReplaceAll(c.command, "$SCRIPTS", scripts)
			if c.name == "not executable" {
				cmd = filepath.Join(root, "plain.txt")
				require.NoError(t, os.WriteFile(cmd, []byte("echo hi"), 0o644))
			}
			e.SetConfig(loadUser(t, one(event.Stop, cmd)))
			res := e.Fire(context.Background(), input(event.Stop, root))
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], c.want)
			require.Contains(t, res.Errors[0], "could not start")
			require.False(t, res.Blocked)
		})
	}
}

func loadUser(t *testing.T, settingsJSON string) *settings.Config {
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	return settings.Load(settings.Paths{WaveHome: home, ProjectRoot: t.TempDir()}, nil)
}

// TestParallelHooksCombineInConfigurationOrder runs hooks that finish in the
// reverse of their configuration order; the combined result must not depend
// on who finished first.
func TestParallelHooksCombineInConfigurationOrder(t *testing.T) {
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[
		{"type":"command","command":"cat >/dev/null; sleep 0.3; echo first"},
		{"type":"command","command":"cat >/dev/null; sleep 0.2; echo '{\"systemMessage\":\"w2\",\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"second\"}}'"},
		{"type":"command","command":"cat >/dev/null; sleep 0.1; echo third; echo e3 >&2; exit 1"},
		{"type":"command","command":"cat >/dev/null; echo fourth"}
	]}]}}`
	e, root := setup(t, settings)
	var first hooks.Result
	for i := 0; i < 5; i++ {
		start := time.Now()
		res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
		require.Less(t, time.Since(start), 3*time.Second)
		require.Equal(t, []string{"first", "fourth"}, res.Context)
		require.Equal(t, []string{"second"}, res.AdditionalContext)
		require.Equal(t, []string{"w2"}, res.Warnings)
		require.Equal(t, []string{"e3"}, res.Errors)
		if i == 0 {
			first = res
		}
		require.Equal(t, first.Context, res.Context)
	}
}

func TestCombination(t *testing.T) {
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"d"}}`
	ask := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"a"}}`
	allow := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}`
	upd := func(v string) string {
		return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"` + v + `"}}}`
	}
	stop := `{"continue":false,"stopReason":"halt","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`
	cases := []struct {
		name    string
		outs    []string
		perm    hooks.Permission
		reason  string
		cont    bool
		input   string
		warning string
	}{
		{"deny beats ask and allow", []string{allow, ask, deny}, hooks.PermissionDeny, "d", true, "", ""},
		{"ask beats allow", []string{allow, ask}, hooks.PermissionAsk, "a", true, "", ""},
		{"allow alone keeps every reason", []string{allow, strings.Replace(allow, `"ok"`, `"ok2"`, 1)}, hooks.PermissionAllow, "ok\nok2", true, "", ""},
		{"continue false beats allow", []string{allow, stop}, hooks.PermissionAllow, "ok", false, "", ""},
		{"last updatedInput wins and the conflict warns", []string{upd("one"), upd("two")}, hooks.PermissionAllow, "", true, `{"command":"two"}`, "rewrote the tool input"},
		{"same updatedInput twice is no conflict", []string{upd("same"), upd("same") + " "}, hooks.PermissionAllow, "", true, `{"command":"same"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hs []string
			for _, o := range c.outs {
				b, _ := json.Marshal(map[string]string{"type": "command", "command": "cat >/dev/null; echo '" + o + "'"})
				hs = append(hs, string(b))
			}
			e, root := setup(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[`+strings.Join(hs, ",")+`]}]}}`)
			res := e.Fire(context.Background(), input(event.PreToolUse, root))
			require.Equal(t, c.perm, res.Permission)
			require.Equal(t, c.reason, res.Reason)
			require.Equal(t, c.cont, res.Continue)
			if c.input != "" {
				require.JSONEq(t, c.input, string(res.UpdatedInput))
			}
			if c.warning != "" {
				require.Contains(t, strings.Join(res.Warnings, "\n"), c.warning)
			} else {
				require.Empty(t, res.Warnings)
			}
		})
	}
}

func TestPromptBlockedByOneHookInjectsNothing(t *testing.T) {
	settings := `{"hooks":{"UserPromptSubmit":[{"hooks":[
		{"type":"command","command":"cat >/dev/null; echo A"},
		{"type":"command","command":"cat >/dev/null; echo policy >&2; exit 2"},
		{"type":"command","command":"cat >/dev/null; exit 0"}]}]}}`
	e, root := setup(t, settings)
	res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
	require.True(t, res.Blocked)
	require.Equal(t, "policy", res.Reason)
	require.Empty(t, res.Context)
	require.Empty(t, res.AdditionalContext)
}

func TestIdenticalCommandsRunOnce(t *testing.T) {
	cmd := `cat >/dev/null; echo x >> "$WAVE_PROJECT_DIR/count"`
	b, _ := json.Marshal(cmd)
	e, root := setupLoose(t, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":`+string(b)+`}]},{"hooks":[{"type":"command","command":`+string(b)+`}]}]}}`)
	diags := e.Config().Diagnostics()
	require.Len(t, diags, 1, "lint says the second never runs")
	require.Equal(t, settings.CodeShadowed, diags[0].Code)
	require.Equal(t, 0, diags[0].Range.Start.Line)
	res := e.Fire(context.Background(), input(event.Stop, root))
	got, err := os.ReadFile(filepath.Join(root, "count"))
	require.NoError(t, err)
	require.Equal(t, "x\n", string(got))
	require.Len(t, res.Runs, 2)
	require.Contains(t, res.Runs[1].Skipped, "runs once")
}

func TestMatchers(t *testing.T) {
	cases := []struct {
		matcher string
		tool    string
		match   bool
	}{
		{"", "Bash", true},
		{"*", "Write", true},
		{"Write|Edit", "Edit", true},
		{"Write|Edit", "MultiEdit", false},
		{"Write, Edit", "Write", true},
		{"Bash", "BashOutput", false},
		{"Edit.*", "MultiEdit", true},
		{"Edit.*", "Write", false},
		{"^Notebook", "NotebookEdit", true},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__create_issue", false},
		{"mcp__.*__write.*", "mcp__fs__write_file", true},
	}
	for _, c := range cases {
		t.Run(c.matcher+"/"+c.tool, func(t *testing.T) {
			m, err := settings.CompileMatcher(c.matcher)
			require.NoError(t, err)
			require.Equal(t, c.match, m.Match(c.tool), m.Explain(c.tool))
		})
	}
	_, err := settings.CompileMatcher("Edit(")
	require.ErrorContains(t, err, "not a valid regular expression")
}

func TestMatcherExplainsWhyNot(t *testing.T) {
	e, root := setup(t, `{"hooks":{"PreToolUse":[{"matcher":"Edit.*","hooks":[{"type":"command","command":"exit 2"}]}]}}`)
	in := input(event.PreToolUse, root)
	in.ToolName = "Write"
	res := e.Fire(context.Background(), in)
	require.Equal(t, hooks.PermissionNone, res.Permission)
	require.False(t, res.Runs[0].Matched)
	require.Equal(t, "matcher `Edit.*` is a regex and does not match `Write`", res.Runs[0].Why)
}

func TestWorkspaceHooksWaitForTrust(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".wave"), 0o755))
	marker := filepath.Join(root, "pwned")
	require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "settings.json"),
		[]byte(one(event.SessionStart, "touch "+marker)), 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	e := hooks.NewEngine(cfg)
	res := e.Fire(context.Background(), input(event.SessionStart, root))
	require.NoFileExists(t, marker)
	require.Contains(t, res.Warnings[0], "not trusted")
	require.Equal(t, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor", res.Runs[0].Skipped)

	store := trust.NewTrustStore(home)
	hash := trust.WorkspaceHash(cfg)
	require.False(t, store.Trusted(root, hash))
	require.NoError(t, store.Trust(root, hash))
	require.True(t, store.Trusted(root, hash))
	e.SetWorkspaceTrusted(true)
	e.Fire(context.Background(), input(event.SessionStart, root))
	require.FileExists(t, marker)

	// Changing the commands invalidates the trust.
	require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "settings.json"), []byte(one(event.SessionStart, "echo other")), 0o644))
	cfg2 := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	require.False(t, store.Trusted(root, trust.WorkspaceHash(cfg2)))
}

func writeAndLoad(tb testing.TB, home, root, settingsJSON string) *settings.Config {
	tb.Helper()
	require.NoError(tb, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	require.Empty(tb, cfg.Diagnostics())
	return cfg
}
