package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/lsp"
)

// guardSettings is a user settings file whose PreToolUse hook denies
// recursive deletes (testdata/hooks/deny-rm.sh, a real sh + jq script).
const guardSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]}]}}`

// guardCases is a case file with one case the hook passes and one it
// fails ("ls" is not denied): the second case starts on line 7 (0-based).
const guardCases = `// guards
{
  "rm -rf is denied": {
    "event": "PreToolUse",
    "input": { "tool_name": "Bash", "tool_input": { "command": "rm -rf build" } },
    "expect": { "permission": "deny", "ran": "deny-rm.sh" },
  },
  "ls is denied": {
    "event": "PreToolUse",
    "input": { "tool_name": "Bash", "tool_input": { "command": "ls" } },
    "expect": { "permission": "deny" },
  },
}
`

func lenses(t *testing.T, e *editor, path string) []protocol.CodeLens {
	t.Helper()
	var out []protocol.CodeLens
	require.NoError(t, e.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri.File(path)}}, &out))
	return out
}

func runTests(t *testing.T, e *editor, path string) lsp.RunTestsResult {
	t.Helper()
	var res lsp.RunTestsResult
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": "wave.runTests", "arguments": []any{path}}, &res))
	return res
}

// lastDiagnostics is the last publishDiagnostics of path.
func lastDiagnostics(e *editor, path string) (diags []protocol.Diagnostic, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.notifications {
		if n.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(n.Params, &p) == nil && p.URI == uri.File(path) {
			diags, ok = p.Diagnostics, true
		}
	}
	return diags, ok
}

// TestRunTestsLensAndDiagnostics: a case file under .wave/tests gets the
// "▶ Run tests" lens; running it runs the real hook on both cases, says
// "1 passed, 1 failed" to the user, and puts the failed expectation on the
// failing case's range; once the case is fixed, a run clears it. A
// settings file and a file that only has a case file's name (no cases,
// elsewhere) get no such lens.
func TestRunTestsLensAndDiagnostics(t *testing.T) {
	e := startEditor(t, editorOpts{settings: guardSettings})
	dir := filepath.Join(e.root, ".wave", "tests")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	file := filepath.Join(dir, "guards.test.jsonc")
	require.NoError(t, os.WriteFile(file, []byte(guardCases), 0o644))

	ls := lenses(t, e, file)
	require.Len(t, ls, 1)
	require.Equal(t, "▶ Run tests", ls[0].Command.Title)
	require.Equal(t, "wave.runTests", ls[0].Command.Command)
	require.Equal(t, []any{file}, ls[0].Command.Arguments)
	require.EqualValues(t, 0, ls[0].Range.Start.Line, "above the first line with text (the comment)")

	other := filepath.Join(e.root, "fixture.test.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"name": "a jest fixture"}`), 0o644))
	require.Empty(t, lenses(t, e, other), "a file that only has the name is another tool's")
	for _, l := range lenses(t, e, filepath.Join(e.home, "settings.json")) {
		require.NotEqual(t, "wave.runTests", l.Command.Command)
	}

	res := runTests(t, e, file)
	require.Equal(t, 1, res.Passed)
	require.Equal(t, 1, res.Failed)
	require.Len(t, res.Cases, 2)
	require.True(t, res.Cases[0].Passed)
	require.Equal(t, []string{"expected permission deny, got none"}, res.Cases[1].Failures)
	require.Equal(t, 7, res.Cases[1].Line)
	require.Contains(t, res.Message, "guards.test.jsonc: 1 passed, 1 failed")
	e.waitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "1 passed, 1 failed")
	})
	diags, ok := lastDiagnostics(e, file)
	require.True(t, ok)
	require.Len(t, diags, 1)
	require.Equal(t, `case "ls is denied": expected permission deny, got none`, diags[0].Message)
	require.Equal(t, protocol.DiagnosticSeverityError, diags[0].Severity)
	require.Equal(t, protocol.Range{Start: protocol.Position{Line: 7, Character: 18}, End: protocol.Position{Line: 11, Character: 3}}, diags[0].Range,
		"the case's object, from its { to its }")

	fixed := strings.Replace(guardCases, `"ls is denied": {`+"\n"+`    "event": "PreToolUse",`+"\n"+`    "input": { "tool_name": "Bash", "tool_input": { "command": "ls" } },`+"\n"+`    "expect": { "permission": "deny" },`,
		`"ls is denied": {`+"\n"+`    "event": "PreToolUse",`+"\n"+`    "input": { "tool_name": "Bash", "tool_input": { "command": "rm -rf ls" } },`+"\n"+`    "expect": { "permission": "deny" },`, 1)
	require.NotEqual(t, guardCases, fixed)
	require.NoError(t, os.WriteFile(file, []byte(fixed), 0o644))
	res = runTests(t, e, file)
	require.Equal(t, 2, res.Passed)
	require.Equal(t, 0, res.Failed)
	diags, _ = lastDiagnostics(e, file)
	require.Empty(t, diags, "a passing case's diagnostic is cleared")
}

// TestRunTestsBadInput: what is not a case file, or a case file with a bad
// case, runs no hook and says why: the command's error, or a diagnostic at
// the bad case.
func TestRunTestsBadInput(t *testing.T) {
	e := startEditor(t, editorOpts{settings: guardSettings})
	for _, tc := range []struct {
		name string
		args []any
		want string
	}{
		{"no argument", []any{}, "takes [caseFile]"},
		{"a relative path", []any{"x.test.json"}, "absolute path"},
		{"not a case file's name", []any{filepath.Join(e.home, "settings.json")}, "not a hook test case file"},
		{"a missing file", []any{filepath.Join(e.root, "gone.test.json")}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := e.call("workspace/executeCommand", map[string]any{"command": "wave.runTests", "arguments": tc.args}, nil)
			require.ErrorContains(t, err, tc.want)
		})
	}
	bad := filepath.Join(e.root, "bad.test.json")
	require.NoError(t, os.WriteFile(bad, []byte("[\n  {\"event\": \"PreTooluse\", \"expect\": {\"blocked\": true}}\n]\n"), 0o644))
	res := runTests(t, e, bad)
	require.Contains(t, res.Error, `unknown event "PreTooluse"`)
	require.Empty(t, res.Cases)
	diags, _ := lastDiagnostics(e, bad)
	require.Len(t, diags, 1)
	require.EqualValues(t, 1, diags[0].Range.Start.Line)
	require.Contains(t, diags[0].Message, `unknown event "PreTooluse"`)
}

// TestRunTestsUntrustedWorkspace: an untrusted workspace's own hooks do not
// run from a case file, and the result says so plainly; a case that names
// a settings file of its own (commands the repository wrote, which the
// command line runs as the user's) is refused outright in an untrusted
// workspace: no hook of it runs.
func TestRunTestsUntrustedWorkspace(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	hook := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch ` + marker + `; echo no >&2; exit 2"}]}]}}`
	e := startEditor(t, editorOpts{project: hook, answer: dismiss})
	file := filepath.Join(e.root, "ws.test.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "expect": {"permission": "deny"}}`), 0o644))
	res := runTests(t, e, file)
	require.Equal(t, 0, res.Passed)
	require.Equal(t, 1, res.Failed)
	require.Len(t, res.Notes, 1)
	require.Contains(t, res.Notes[0], "skipped as untrusted: 1 hook(s) did not run (trust the workspace to run them)")
	require.Contains(t, res.Message, "skipped as untrusted")
	require.NoFileExists(t, marker, "the untrusted workspace's hook did not run")

	require.NoError(t, os.WriteFile(filepath.Join(e.root, "own.json"), []byte(hook), 0o644))
	own := filepath.Join(e.root, "own.test.json")
	require.NoError(t, os.WriteFile(own, []byte(`{"event": "PreToolUse", "settings": "own.json", "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "expect": {"permission": "deny"}}`), 0o644))
	res = runTests(t, e, own)
	require.Contains(t, res.Error, "the editor runs such a case only in a trusted workspace")
	require.NoFileExists(t, marker, "the case's own settings did not run")

	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": "wave.trustWorkspace"}, nil))
	res = runTests(t, e, file)
	require.Equal(t, 1, res.Passed, "trusted, the workspace's hook runs: %+v", res)
	require.FileExists(t, marker)
}

// TestRunTestsOwnSettingsNeedTrust: a workspace with no hooks of its own
// needs no trust for its events, but nobody trusted it either: a case file
// there that names its own settings file is refused, no hook of it runs;
// with the editor's trustWorkspaceHooks it runs.
func TestRunTestsOwnSettingsNeedTrust(t *testing.T) {
	for _, tc := range []struct {
		name   string
		always bool
	}{{"not trusted", false}, {"trustWorkspaceHooks", true}} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "ran")
			e := startEditor(t, editorOpts{initOpts: map[string]any{"trustWorkspaceHooks": tc.always}})
			require.NoError(t, os.WriteFile(filepath.Join(e.root, "own.json"), []byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch `+marker+`; echo no >&2; exit 2"}]}]}}`), 0o644))
			own := filepath.Join(e.root, "own.test.json")
			require.NoError(t, os.WriteFile(own, []byte(`{"event": "PreToolUse", "settings": "own.json", "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "expect": {"permission": "deny"}}`), 0o644))
			res := runTests(t, e, own)
			if !tc.always {
				require.Contains(t, res.Error, "the editor runs such a case only in a trusted workspace")
				require.NoFileExists(t, marker)
				return
			}
			require.Empty(t, res.Error)
			require.Equal(t, 1, res.Passed)
			require.FileExists(t, marker)
		})
	}
}

// TestListAndToggleHook: wave/listHooks gives each hook the id `wavehooks
// hooks list` gives it; wave.toggleHook turns it off in the file (a
// comment kept) and the next event skips it, then on again.
func TestListAndToggleHook(t *testing.T) {
	text := "{\n  // the guard\n  \"hooks\": {\"Stop\": [{\"hooks\": [\n    {\"type\": \"command\", \"command\": \"echo 'tests first' >&2; exit 2\"}\n  ]}]}\n}\n"
	e := startEditor(t, editorOpts{settings: text})
	settingsFile := filepath.Join(e.home, "settings.json")
	sid, _ := e.startSession()
	var list lsp.ListHooksResult
	require.NoError(t, e.call("wave/listHooks", nil, &list))
	require.Len(t, list.Hooks, 1)
	h := list.Hooks[0]
	cfg := settings.Load(settings.Paths{WaveHome: e.home, ProjectRoot: e.root}, nil)
	require.Equal(t, settings.HookID(&cfg.Hooks[0]), h.ID)
	require.Equal(t, lsp.HookListing{ID: h.ID, Enabled: true, Source: "user", File: settingsFile, Line: 4, Event: "Stop", Command: "echo 'tests first' >&2; exit 2"}, h)

	var res lsp.ToggleHookResult
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{h.ID}}, &res))
	require.False(t, res.Enabled)
	require.Contains(t, res.Message, "is off")
	b, err := os.ReadFile(settingsFile)
	require.NoError(t, err)
	require.Equal(t, strings.Replace(text, `exit 2"}`, `exit 2", "enabled": false}`, 1), string(b))
	require.Equal(t, false, e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"], "off at once")
	require.NoError(t, e.call("wave/listHooks", nil, &list))
	require.False(t, list.Hooks[0].Enabled)
	require.Equal(t, h.ID, list.Hooks[0].ID, "the id stays")

	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{h.ID}}, &res))
	require.True(t, res.Enabled)
	require.Equal(t, true, e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"], "on again")

	err = e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{"nosuchid"}}, nil)
	require.ErrorContains(t, err, "nosuchid")
	err = e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{h.ID, "off"}}, nil)
	require.ErrorContains(t, err, "true or false")
}

// TestHookRunsIncludeRunLog: runs another process appends to the run log
// under the wave home (as the ACP proxy does, through hooks.RunLog) are
// announced with wave/hookRun and listed by wave/hookRuns, marked origin
// "runLog", those written before the server started included; the
// server's own runs, which it writes to the same log, are listed once.
func TestHookRunsIncludeRunLog(t *testing.T) {
	home := t.TempDir()
	log := hooks.NewRunLog(hooks.RunLogDir(home))
	proxyRun := func(sid string) hooks.EventRun {
		return hooks.EventRun{ID: 1, Time: time.Now(), SessionID: sid, Event: event.PreToolUse, MatchValue: "Bash",
			Stdin: `{"tool_name":"Bash"}`, Hooks: []hooks.Run{{Command: "deny-rm.sh", Ran: true}}, Outcome: "deny; 1 of 1 hook(s) ran"}
	}
	require.NoError(t, log.Append(proxyRun("acp-before")))
	e := startEditor(t, editorOpts{home: home, settings: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})

	runs := func(sid string) []hooks.EventRun {
		var r lsp.HookRunsResult
		require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid}, &r))
		return r.Runs
	}
	require.Eventually(t, func() bool { return len(runs("acp-before")) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, "runLog", runs("acp-before")[0].Origin)

	require.NoError(t, log.Append(proxyRun("acp-after")))
	n := e.waitNotification("wave/hookRun", func(p json.RawMessage) bool { return strings.Contains(string(p), "acp-after") })
	var announced hooks.EventRun
	require.NoError(t, json.Unmarshal(n, &announced))
	require.Equal(t, "runLog", announced.Origin)
	require.Equal(t, "deny; 1 of 1 hook(s) ran", announced.Outcome)
	got := runs("acp-after")
	require.Len(t, got, 1)
	require.Equal(t, "deny-rm.sh", got[0].Hooks[0].Command)

	sid, _ := e.startSession()
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	// The server's own Stop run is in the log too; once a later line of
	// another process has been read, the own one must have been skipped.
	require.NoError(t, log.Append(proxyRun("acp-last")))
	e.waitNotification("wave/hookRun", func(p json.RawMessage) bool { return strings.Contains(string(p), "acp-last") })
	own := runs(sid)
	require.Len(t, own, 1, "the server's own run is listed once")
	require.Empty(t, own[0].Origin)
	var all lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"limit": 2}, &all))
	require.Len(t, all.Runs, 2)
	require.Equal(t, "acp-last", all.Runs[0].SessionID, "newest first, across both")
}

// TestToggleHookOpenInEditor: with the settings file open in the editor,
// wave.toggleHook edits the saved file while the buffer matches it, and
// again while the buffer only lags behind its own earlier edit (an editor
// that has not reloaded the file); once the buffer has changes of its own,
// it refuses, and the file is left as it was.
func TestToggleHookOpenInEditor(t *testing.T) {
	text := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}`
	e := startEditor(t, editorOpts{settings: text})
	settings := filepath.Join(e.home, "settings.json")
	u := uri.File(settings)
	require.NoError(t, e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "jsonc", "version": 1, "text": text}}))
	var list lsp.ListHooksResult
	require.NoError(t, e.call("wave/listHooks", nil, &list))
	id := list.Hooks[0].ID
	toggle := func() error {
		return e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{id}}, nil)
	}
	require.NoError(t, toggle())
	require.NoError(t, toggle(), "the buffer lags behind the first toggle; it has no edit of its own")
	saved, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.Contains(t, string(saved), `"enabled": true`)

	edited := strings.Replace(text, "exit 2", "exit 3", 1)
	require.NoError(t, e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}}}))
	// didChange is applied on the read loop, before the request after it runs.
	require.ErrorContains(t, toggle(), "unsaved changes in the editor: save it first")
	after, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.Equal(t, string(saved), string(after), "the refused toggle wrote nothing")
}

// TestRunLogFeedIsBounded: of the run log's runs the server keeps as many
// as its own history (HistorySize), the newest, whether they were in the
// log before it started or appended after.
func TestRunLogFeedIsBounded(t *testing.T) {
	home := t.TempDir()
	log := hooks.NewRunLog(hooks.RunLogDir(home))
	appendRuns := func(from, to int) {
		for i := from; i <= to; i++ {
			require.NoError(t, log.Append(hooks.EventRun{ID: uint64(i), Time: time.Now(), SessionID: fmt.Sprintf("acp-%02d", i),
				Event: event.Stop, Hooks: []hooks.Run{}, Outcome: "0 of 0 hook(s) ran"}))
		}
	}
	sessions := func(e *editor) []string {
		var r lsp.HookRunsResult
		require.NoError(t, e.call("wave/hookRuns", map[string]any{}, &r))
		var out []string
		for _, run := range r.Runs {
			out = append(out, run.SessionID)
		}
		return out
	}
	appendRuns(1, 10)
	e := startEditor(t, editorOpts{home: home, serverOpt: lsp.Options{HistorySize: 3}})
	require.Eventually(t, func() bool { return len(sessions(e)) == 3 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"acp-10", "acp-09", "acp-08"}, sessions(e), "the newest three, newest first")
	appendRuns(11, 20)
	require.Eventually(t, func() bool { return slices.Contains(sessions(e), "acp-20") }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"acp-20", "acp-19", "acp-18"}, sessions(e))
}
