package lsp_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// diagnosticsFor waits for a publishDiagnostics of path whose messages satisfy match.
func (e *editor) diagnosticsFor(path string, match func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	e.tb.Helper()
	var got []protocol.Diagnostic
	e.waitNotification("textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(raw, &p) != nil || p.URI.Filename() != path {
			return false
		}
		if match(p.Diagnostics) {
			got = p.Diagnostics
			return true
		}
		return false
	})
	return got
}

func hasCode(code string) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == code {
				return true
			}
		}
		return false
	}
}

func empty(ds []protocol.Diagnostic) bool { return len(ds) == 0 }

// saveStyles are the ways editors write a file.
var saveStyles = map[string]func(t *testing.T, path, text string){
	"write in place": func(t *testing.T, path, text string) {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	},
	"rename over": func(t *testing.T, path, text string) {
		tmp := path + ".tmp~"
		require.NoError(t, os.WriteFile(tmp, []byte(text), 0o644))
		require.NoError(t, os.Rename(tmp, path))
	},
	"delete and recreate": func(t *testing.T, path, text string) {
		require.NoError(t, os.Remove(path))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	},
}

// TestSettingsChangesReloadHooks saves the user settings file each way an
// editor saves; every time, diagnostics are republished, wave/hooksChanged
// is sent, and the next event runs the new hooks.
func TestSettingsChangesReloadHooks(t *testing.T) {
	for name, save := range saveStyles {
		t.Run(name, func(t *testing.T) {
			e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo first >&2; exit 2"}})})
			settings := filepath.Join(e.home, "settings.json")
			sid, _ := e.startSession()
			require.Equal(t, "first", e.mustCall("wave/stop", map[string]any{"sessionId": sid})["reason"])

			announced := e.countNotifications("wave/hooksChanged", "")
			save(t, settings, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}], "PreToolUs": []}}`)
			e.diagnosticsFor(settings, hasCode("unknown-event"))
			e.waitNotificationAfter("wave/hooksChanged", announced, nil)
			r := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
			require.Equal(t, true, r["blocked"])
			require.NotEqual(t, "first", r["reason"], "the next event uses the new hooks")

			save(t, settings, hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo third >&2; exit 2"}}))
			e.diagnosticsFor(settings, empty) // fixed: cleared
			require.Eventually(t, func() bool {
				var out map[string]any
				return e.call("wave/stop", map[string]any{"sessionId": sid}, &out) == nil && out["reason"] == "third"
			}, 10*time.Second, 20*time.Millisecond)
		})
	}
}

// The editor learns the hooks in force as soon as it is initialized (the
// status bar's "Wave: N hooks ⚠ n"), not only after the first reload.
func TestHooksAreAnnouncedOnceInitialized(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"exit 0"}, "PreToolUse": {"exit 0"}}),
		project: `{"hooks": `})
	var p lsp.HooksChangedParams
	require.NoError(t, json.Unmarshal(e.waitNotification("wave/hooksChanged", nil), &p))
	require.Equal(t, 2, p.Hooks)
	require.Equal(t, 1, p.Diagnostics, "the broken project file")
	require.ElementsMatch(t, []string{filepath.Join(e.home, "settings.json"), filepath.Join(e.root, ".wave", "settings.json")}, p.Files)
	require.True(t, p.Trusted, "the workspace defines no hooks to trust")
}

// A reload can move the hook a "Run hook" lens points at: an editor that
// supports workspace/codeLens/refresh is asked for the lenses again.
func TestCodeLensesAreRefreshedWhenHooksChange(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"exit 0"}}),
		caps: map[string]any{"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}}}})
	settings := filepath.Join(e.home, "settings.json")
	require.Zero(t, e.countRequests("workspace/codeLens/refresh"))
	saveStyles["write in place"](t, settings, hookSettings(map[string][]string{"Stop": {"exit 1", "exit 0"}}))
	require.Eventually(t, func() bool { return e.countRequests("workspace/codeLens/refresh") > 0 },
		10*time.Second, 10*time.Millisecond)
}

func TestProjectSettingsDirectoryAppearsAndIsRecreated(t *testing.T) {
	e := startEditor(t, editorOpts{initOpts: map[string]any{"trustWorkspaceHooks": true}})
	dir := filepath.Join(e.root, ".wave")
	settings := filepath.Join(dir, "settings.json")
	for round := 0; round < 2; round++ {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(settings, []byte(`{"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644))
		e.diagnosticsFor(settings, hasCode("matcher-ignored"))
		require.NoError(t, os.RemoveAll(dir))
		e.diagnosticsFor(settings, empty)
	}
}

func TestBurstOfWritesEndsWithTheLastText(t *testing.T) {
	e := startEditor(t, editorOpts{})
	settings := filepath.Join(e.home, "settings.json")
	for i := 0; i < 100; i++ {
		text := fmt.Sprintf(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo %d"}]}]}}`, i)
		if i == 99 {
			text = `{"hooks": {"Stopp": []}}`
		}
		require.NoError(t, os.WriteFile(settings, []byte(text), 0o644))
	}
	d := e.diagnosticsFor(settings, hasCode("unknown-event"))
	require.Contains(t, d[0].Message, `did you mean "Stop"`)
}

func TestSettingsEditedWhileHooksRun(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null; sleep 0.5; echo old >&2; exit 2"}})})
	sid, _ := e.startSession()
	done := make(chan map[string]any, 1)
	go func() { done <- e.mustCall("wave/stop", map[string]any{"sessionId": sid}) }()
	time.Sleep(100 * time.Millisecond) // let the hook start; the result does not depend on this
	announced := e.countNotifications("wave/hooksChanged", "")
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"),
		[]byte(hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo new >&2; exit 2"}})), 0o644))
	require.Equal(t, "old", (<-done)["reason"], "a running event keeps the hooks it started with")
	e.waitNotificationAfter("wave/hooksChanged", announced, nil)
	require.Equal(t, "new", e.mustCall("wave/stop", map[string]any{"sessionId": sid})["reason"])
}

func TestDiagnosticsFollowTheEditorBuffer(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {}}`})
	settings := filepath.Join(e.home, "settings.json")
	u := uri.File(settings)
	require.NoError(t, e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "jsonc", "version": 1, "text": `{"hooks": {"PreToolUse": [{"matcher": "Edit(", "hooks": []}]}}`}}))
	d := e.diagnosticsFor(settings, hasCode("bad-matcher"))
	require.Equal(t, protocol.Range{Start: protocol.Position{Line: 0, Character: 38}, End: protocol.Position{Line: 0, Character: 45}}, d[0].Range)

	require.NoError(t, e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": "{\n  \"hooks\": {\n    \"Stop\": [ broken\n"}}}))
	d = e.diagnosticsFor(settings, hasCode("syntax"))
	require.Equal(t, uint32(2), d[0].Range.Start.Line)

	require.NoError(t, e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 3},
		"contentChanges": []any{map[string]any{"text": `{"hooks": {}}`}}}))
	e.diagnosticsFor(settings, empty)
	// Unsaved text is diagnosed, never run: the file on disk still has no hooks.
	sid, _ := e.startSession()
	require.Equal(t, false, e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"])
}

func TestQuickFixes(t *testing.T) {
	e := startEditor(t, editorOpts{})
	script := filepath.Join(e.root, "check.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o644))
	settings := filepath.Join(e.home, "settings.json")
	text := `{"hooks": {"PreToolUs": [], "Stop": [{"hooks": [{"command": "` + script + `", "timout": 5}, {"type": "agnet", "prompt": "x"}, {"type": "shell", "command": "x"}]}]}}`
	require.NoError(t, os.WriteFile(settings, []byte(text), 0o644))
	diags := e.diagnosticsFor(settings, hasCode("script-not-executable"))
	actions := func() []protocol.CodeAction {
		var out []protocol.CodeAction
		require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settings)},
			"range":   protocol.Range{End: protocol.Position{Line: 0, Character: uint32(len(text))}},
			"context": map[string]any{"diagnostics": diags}}, &out))
		return out
	}
	titles := map[string]protocol.CodeAction{}
	for _, a := range actions() {
		titles[a.Title] = a
	}
	require.Contains(t, titles, `Change to "PreToolUse"`)
	require.Contains(t, titles, `Add "type": "command"`)
	require.Contains(t, titles, `Change type to "agent"`, "the closest type")
	require.Contains(t, titles, `Change type to "command"`, "command when none is close")
	fix := titles[`Change to "PreToolUse"`]
	edit := fix.Edit.Changes[uri.File(settings)][0]
	require.Equal(t, `"PreToolUse"`, edit.NewText)
	require.Equal(t, `"PreToolUs"`, text[edit.Range.Start.Character:edit.Range.End.Character])
	edit = titles[`Change to "timeout"`].Edit.Changes[uri.File(settings)][0]
	require.Equal(t, `"timeout"`, edit.NewText)
	require.Equal(t, `"timout"`, text[edit.Range.Start.Character:edit.Range.End.Character])

	mk := titles["Make check.sh executable"]
	require.NotNil(t, mk.Command)
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": mk.Command.Command, "arguments": mk.Command.Arguments}, nil))
	st, err := os.Stat(script)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm())
	e.diagnosticsFor(settings, func(ds []protocol.Diagnostic) bool { return !hasCode("script-not-executable")(ds) })
	// A client cannot chmod a file no diagnostic named.
	other := filepath.Join(e.root, "other.sh")
	require.NoError(t, os.WriteFile(other, nil, 0o644))
	err = e.call("workspace/executeCommand", map[string]any{"command": "wave.makeExecutable", "arguments": []any{other}}, nil)
	require.ErrorContains(t, err, "not a hook script flagged")
}

func TestHoverAndCompletion(t *testing.T) {
	text := "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"\", \"hooks\": [{\"type\": \"\", \"command\": \"true\"}]}],\n    \n  }\n}\n"
	e := startEditor(t, editorOpts{settings: text})
	u := uri.File(filepath.Join(e.home, "settings.json"))
	at := func(line, col int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col}}
	}
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(2, 8), &hover))
	require.Contains(t, hover.Contents.Value, "**PreToolUse**")
	require.Contains(t, hover.Contents.Value, "tool_input")
	require.Contains(t, hover.Contents.Value, "exit 2: Denies the tool call")

	var none *protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(0, 0), &none))
	require.Nil(t, none, "nothing to say outside a string")

	labels := func(line, col int) []string {
		var list protocol.CompletionList
		require.NoError(t, e.call("textDocument/completion", at(line, col), &list))
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	require.Contains(t, labels(3, 4), "SessionStart", "event names where an event goes")
	require.Contains(t, labels(2, 31), "Bash", "tool names in a matcher")
	require.Equal(t, []string{"command", "http", "mcp_tool", "prompt", "agent"}, labels(2, 55), "hook types")
}

func TestCodeLensRunsAHook(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {`jq -r .tool_name; exit 2`}})})
	settings := filepath.Join(e.home, "settings.json")
	var lenses []protocol.CodeLens
	require.NoError(t, e.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri.File(settings)}}, &lenses))
	require.Len(t, lenses, 1)
	var out lsp.RunHookResult
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": lenses[0].Command.Command, "arguments": lenses[0].Command.Arguments}, &out))
	require.Equal(t, "Bash", strings.TrimSpace(out.Run.Stdout), "the hook got sample PreToolUse input")
	require.Contains(t, out.Outcome, "deny")
	// Only hooks of the configuration can be run.
	err := e.call("workspace/executeCommand", map[string]any{"command": "wave.runHook", "arguments": []any{"/etc/passwd", 0}}, nil)
	require.ErrorContains(t, err, "no hook")
}

// TestUntrustedRepositoryHooksNeverRun opens a workspace whose own settings
// would write a file; nothing runs until the user trusts it, through the
// prompt or the code action, and a change to the commands asks again.
func TestUntrustedRepositoryHooksNeverRun(t *testing.T) {
	marker := "pwned"
	project := hookSettings(map[string][]string{"SessionStart": {"touch " + marker}, "Stop": {"touch " + marker}})
	e := startEditor(t, editorOpts{project: project})
	prompt := e.nextPrompt() // the trust prompt lists the commands
	require.Contains(t, prompt.params.Message, "touch pwned")
	prompt.reply <- &protocol.MessageActionItem{Title: "Not now"}

	sid, _ := e.startSession()
	stop := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.NoFileExists(t, filepath.Join(e.root, marker))
	require.Contains(t, mustJSON(stop["blocks"]), "not trusted yet", "skipped hooks are reported, not silent")
	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"event": "Stop"}, &runs))
	require.Equal(t, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor", runs.Runs[0].Hooks[0].Skipped)

	// Trust through the code action on the settings file.
	settings := filepath.Join(e.root, ".wave", "settings.json")
	var actions []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settings)},
		"range": protocol.Range{}, "context": map[string]any{"diagnostics": []any{}}}, &actions))
	require.NotEmpty(t, actions)
	trust := actions[len(actions)-1]
	require.Equal(t, "wave.trustWorkspace", trust.Command.Command)
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": trust.Command.Command}, nil))
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.FileExists(t, filepath.Join(e.root, marker))

	// Changed commands need trust again; the old trust does not carry over.
	require.NoError(t, os.Remove(filepath.Join(e.root, marker)))
	require.NoError(t, os.WriteFile(settings, []byte(hookSettings(map[string][]string{"Stop": {"touch " + marker + "2"}})), 0o644))
	again := e.nextPrompt()
	require.Contains(t, again.params.Message, "touch pwned2")
	again.reply <- nil
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.NoFileExists(t, filepath.Join(e.root, marker+"2"))
}

// TestTrustWorkspaceHooksSurvivesAReload: trust given by the editor's
// initializationOptions holds for hooks added after start, as the user who
// set it expects; before, a reload dropped it and asked again.
func TestTrustWorkspaceHooksSurvivesAReload(t *testing.T) {
	e := startEditor(t, editorOpts{initOpts: map[string]any{"trustWorkspaceHooks": true},
		project: hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo one >&2; exit 2"}})})
	sid, _ := e.startSession()
	require.Equal(t, "one", e.mustCall("wave/stop", map[string]any{"sessionId": sid})["reason"])
	announced := e.countNotifications("wave/hooksChanged", "")
	require.NoError(t, os.WriteFile(filepath.Join(e.root, ".wave", "settings.json"),
		[]byte(hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo two >&2; exit 2"}})), 0o644))
	e.waitNotificationAfter("wave/hooksChanged", announced, func(p json.RawMessage) bool { return strings.Contains(string(p), `"trusted":true`) })
	require.Equal(t, "two", e.mustCall("wave/stop", map[string]any{"sessionId": sid})["reason"])
	require.Zero(t, e.countRequests("window/showMessageRequest"), "no trust prompt")
}

func TestTrustPersistsAcrossServers(t *testing.T) {
	project := hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo trusted >&2; exit 2"}})
	e := startEditor(t, editorOpts{project: project})
	require.Zero(t, e.countNotifications("wave/hooksChanged", `"trusted":true`), "not trusted before the answer")
	e.nextPrompt().reply <- &protocol.MessageActionItem{Title: "Trust"}
	require.Eventually(t, func() bool { return e.countNotifications("wave/hooksChanged", `"trusted":true`) > 0 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, 0, e.shutdown())

	// A second server on the same WAVE_HOME and workspace runs them without asking.
	e2 := startEditor(t, editorOpts{project: project, home: e.home, root: e.root})
	sid, _ := e2.startSession()
	require.Equal(t, "trusted", e2.mustCall("wave/stop", map[string]any{"sessionId": sid})["reason"])
}

func TestHookRunHistory(t *testing.T) {
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{HistorySize: 5}, settings: `{"hooks": {
		"PreToolUse": [{"matcher": "Edit.*", "hooks": [{"type": "command", "command": "exit 2"}]},
		               {"matcher": "Write", "hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"continue\": 7}'"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 0.2}]}]}}`})
	sid, _ := e.startSession()
	e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write", "toolInput": map[string]any{}})
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid}, &runs))
	require.Len(t, runs.Runs, 2)
	stop, pre := runs.Runs[0], runs.Runs[1] // newest first
	require.True(t, stop.Hooks[0].TimedOut)
	require.Contains(t, stop.Outcome, "1 error(s)")
	require.False(t, pre.Hooks[0].Matched)
	require.Equal(t, "matcher `Edit.*` is a regex and does not match `Write`", pre.Hooks[0].Why)
	require.True(t, pre.Hooks[1].Ran)
	require.False(t, pre.Hooks[1].JSON)
	require.Contains(t, pre.Hooks[1].Problems[0], "continue must be a boolean")
	require.Contains(t, pre.Stdin, `"tool_name":"Write"`)
	// Each run was also announced, with durationNs a number.
	raw := e.waitNotification("wave/hookRun", func(p json.RawMessage) bool { return strings.Contains(string(p), `"event":"Stop"`) })
	var n struct {
		Hooks []struct {
			DurationNs json.Number `json:"durationNs"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(raw, &n))
	_, err := n.Hooks[0].DurationNs.Int64()
	require.NoError(t, err)
	// The ring keeps its bound.
	for i := 0; i < 20; i++ {
		e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": fmt.Sprint("x", i), "toolName": "Read", "toolInput": map[string]any{}})
	}
	require.NoError(t, e.call("wave/hookRuns", map[string]any{}, &runs))
	require.Len(t, runs.Runs, 5)
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"limit": 2, "event": "PreToolUse"}, &runs))
	require.Len(t, runs.Runs, 2)
}

// A server that follows the run log knows its own lines by the writer id
// on them, even once its bounded history let them go: a burst of more runs
// than the history holds is never listed again as another process's
// (origin "runLog"). It used to be, under load, when the log was read
// after the burst (TestHookRunHistory failed so).
func TestOwnRunsLeftOutOfTheHistoryAreNotListedAgain(t *testing.T) {
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{HistorySize: 2}, settings: `{"hooks": {
		"PreToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`})
	sid, _ := e.startSession()
	for i := 0; i < 10; i++ {
		e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": fmt.Sprint("x", i), "toolName": "Read", "toolInput": map[string]any{}})
	}
	// Polled in this goroutine, not with require.Never: Never returns at its
	// deadline with a poll still in flight, and that poll then calls over a
	// pipe the test's cleanup has closed (CI failed so).
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var runs lsp.HookRunsResult
		require.NoError(t, e.call("wave/hookRuns", map[string]any{}, &runs))
		for _, r := range runs.Runs {
			require.Empty(t, r.Origin, "the server's own runs are listed once, as its own")
		}
	}
}

// With OpenTelemetry export configured and the collector unreachable, the
// event is answered as without export, and the run view says how many runs
// were not exported (wave/hookRuns' telemetryDropped, docs/telemetry.md).
func TestHookRunsCountTelemetryDrops(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there: every export is refused
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+closed)
	e := startEditor(t, editorOpts{settings: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
		"command": "cat >/dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no\"}}'"}]}]}}`})
	sid, _ := e.startSession()
	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{}, &runs))
	require.Zero(t, runs.TelemetryDropped)
	var res map[string]any
	require.NoError(t, e.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}}, &res))
	require.Equal(t, "deny", res["permission"])
	require.Eventually(t, func() bool {
		var r lsp.HookRunsResult
		return e.call("wave/hookRuns", map[string]any{}, &r) == nil && r.TelemetryDropped == 1
	}, 30*time.Second, 50*time.Millisecond, "the run that could not be exported is counted")
}
