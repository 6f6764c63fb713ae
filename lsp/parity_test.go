package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/lsp"
)

// TestRunHooksExtraEvents fires Claude Code's further events through
// wave/runHooks into hooks written for Claude Code.
func TestRunHooksExtraEvents(t *testing.T) {
	settings := `{"hooks": {
	  "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
	    "cmd=$(jq -r .tool_input.command); [ \"$cmd\" = \"npm test\" ] || { echo \"only npm test\" >&2; exit 2; }; jq -n '{hookSpecificOutput: {hookEventName: \"PermissionRequest\", decision: {behavior: \"allow\", updatedInput: {command: \"npm test -- --ci\"}}}}'"}]}],
	  "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "jq -r .trigger >/dev/null; echo 'not during a migration' >&2; exit 2"}]}],
	  "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command":
	    "jq '{systemMessage: (.title + \": \" + .message)}'"}]}],
	  "SubagentStop": [{"hooks": [{"type": "command", "command":
	    "[ \"$(jq -r .stop_hook_active)\" = true ] && exit 0; echo 'list what you read' >&2; exit 2"}]}]
	}}`
	e := startEditor(t, editorOpts{settings: settings})
	sid, _ := e.startSession()
	run := func(event string, input map[string]any) map[string]any {
		return e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": event, "input": input})
	}

	allowed := run("PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}})
	require.Equal(t, "allow", allowed["permission"])
	require.JSONEq(t, `{"command":"npm test -- --ci"}`, mustJSON(allowed["toolInput"]))
	denied := run("PermissionRequest", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}})
	require.Equal(t, "deny", denied["permission"])
	require.Equal(t, "only npm test", denied["reason"])
	require.Nil(t, denied["toolInput"])
	other := run("PermissionRequest", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/x"}})
	require.Nil(t, other["permission"], "no hook decided: the editor asks the user as usual")

	compact := run("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": ""})
	require.Equal(t, true, compact["blocked"])
	require.Equal(t, "not during a migration", compact["reason"])
	manual := run("PreCompact", map[string]any{"trigger": "manual"})
	require.Equal(t, false, manual["blocked"], "the matcher leaves manual compaction alone")

	note := run("Notification", map[string]any{"message": "waiting for input", "title": "Wave", "notification_type": "idle_prompt"})
	require.Contains(t, mustJSON(note["blocks"]), "Wave: waiting for input")
	e.waitNotification("window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "Wave: waiting for input") })

	first := run("SubagentStop", map[string]any{"agent_id": "a1", "agent_type": "Explore"})
	require.Equal(t, true, first["blocked"])
	require.Equal(t, "list what you read", first["reason"])
	second := run("SubagentStop", map[string]any{"agent_id": "a1", "agent_type": "Explore"})
	require.Equal(t, false, second["blocked"], "stop_hook_active on the agent's next stop")

	err := e.call("wave/runHooks", map[string]any{"sessionId": sid, "event": "PostToolUseFailure",
		"input": map[string]any{"tool_name": "Bash", "is_interrupt": "no"}}, nil)
	require.ErrorContains(t, err, "is_interrupt must be a boolean")
}

// TestAsyncHookRunIsReportedLater: the request returns while an async hook
// still waits at its gate; its run is announced once it ends.
func TestAsyncHookRunIsReportedLater(t *testing.T) {
	gated := `jq -r .prompt >/dev/null; cat \"$WAVE_PROJECT_DIR/gate\" >/dev/null; echo 'too late' >&2; exit 2`
	e := startEditor(t, editorOpts{settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "` + gated + `", "async": true}]}]}}`})
	gate := filepath.Join(e.root, "gate")
	require.NoError(t, mkfifo(gate))
	sid, _ := e.startSession()
	up := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"})
	require.Equal(t, false, up["blocked"], "the async hook's exit 2 is never applied")
	require.Equal(t, 0, e.countNotifications("wave/hookRun", `"exitCode":2`), "the hook cannot have ended yet")

	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err == nil {
			err = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the async hook never opened its gate")
	}
	p := e.waitNotification("wave/hookRun", func(p json.RawMessage) bool { return strings.Contains(string(p), `"exitCode":2`) })
	var run struct {
		SessionID string `json:"sessionId"`
		Hooks     []struct {
			Async  bool   `json:"async"`
			Ran    bool   `json:"ran"`
			Stderr string `json:"stderr"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(p, &run))
	require.Equal(t, sid, run.SessionID)
	require.True(t, run.Hooks[0].Async)
	require.True(t, run.Hooks[0].Ran)
	require.Equal(t, "too late\n", run.Hooks[0].Stderr)
	got := e.mustCall("wave/getSession", map[string]any{"sessionId": sid})
	require.Contains(t, mustJSON(got["messages"]), "hello", "the prompt was never blocked")
}

func TestStatusMessageIsTheProgressTitle(t *testing.T) {
	e := startEditor(t, editorOpts{progress: true, serverOpt: lsp.Options{ProgressDelay: 50 * time.Millisecond},
		settings: `{"hooks": {"Stop": [{"hooks": [
			{"type": "command", "command": "cat >/dev/null; sleep 0.5", "statusMessage": "Running the test suite…"}]}]}}`})
	sid, _ := e.startSession()
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	e.waitNotification("$/progress", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"begin"`) && strings.Contains(string(p), `"title":"Running the test suite…"`)
	})
}

func TestManagedHooksThroughTheServer(t *testing.T) {
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	require.NoError(t, os.WriteFile(managed, []byte(`{"allowManagedHooksOnly": true, "hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "jq -r .prompt >/dev/null; echo 'Company policy: no secrets in prompts.'"}]}]}}`), 0o644))
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{ManagedFile: managed},
		settings: hookSettings(map[string][]string{"UserPromptSubmit": {"cat >/dev/null; echo user context"}})})
	sid, _ := e.startSession()
	up := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hi"})
	require.Equal(t, []any{"Company policy: no secrets in prompts."}, up["additionalContext"])
	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid, "event": "UserPromptSubmit"}, &runs))
	require.Len(t, runs.Runs, 1)
	require.Contains(t, runs.Runs[0].Hooks[0].Skipped, "allowManagedHooksOnly is set in the managed settings "+managed)
	require.Equal(t, "managed", runs.Runs[0].Hooks[1].Source.String())
	// The user's settings file says why its hooks are ignored.
	e.waitNotification("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "hooks-ignored") && strings.Contains(string(p), "settings.json")
	})
}
