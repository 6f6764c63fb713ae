package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestNeverRunsDiagnostics: live in the editor, a hook on an event the
// host said it never sends (initializationOptions.hostEvents) is flagged,
// as is a matcher that names no tool, whose quick fix the fake editor
// applies: once saved, the hook runs for Write calls. A matcher on an event
// that ignores matchers gets "Remove the matcher", which, applied and
// saved, clears the warning. A host that says nothing
// of its events gets no event-not-sent diagnostic.
func TestNeverRunsDiagnostics(t *testing.T) {
	text := `{"hooks": {
  "PreToolUse": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "echo 'no writes' >&2; exit 2"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}],
  "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
  "ConfigChange": [{"hooks": [{"type": "command", "command": "true"}]}]
}}`
	e := startEditor(t, editorOpts{settings: text, initOpts: map[string]any{"hostEvents": []string{"PreToolUse", "Stop", "SessionStart"}}})
	settings := filepath.Join(e.home, "settings.json")
	diags := e.diagnosticsFor(settings, hasCode("event-not-sent"))
	byCode := map[string][]protocol.Diagnostic{}
	for _, d := range diags {
		byCode[d.Code.(string)] = append(byCode[d.Code.(string)], d)
	}
	require.Len(t, byCode["event-not-sent"], 1, "UserPromptSubmit only: the server fires ConfigChange itself")
	require.Equal(t, uint32(2), byCode["event-not-sent"][0].Range.Start.Line)
	require.Contains(t, byCode["event-not-sent"][0].Message, "never sends UserPromptSubmit")
	require.Len(t, byCode["unknown-tool"], 1)
	require.Contains(t, byCode["unknown-tool"][0].Message, `"write_file" is no tool; did you mean "Write"?`)
	require.Len(t, byCode["matcher-ignored"], 1)

	var actions []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settings)},
		"range": byCode["unknown-tool"][0].Range, "context": map[string]any{"diagnostics": diags}}, &actions))
	var fix *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == `Change the matcher to "Write"` {
			fix = &actions[i]
		}
	}
	require.NotNil(t, fix, "%v", actions)
	edits := fix.Edit.Changes[uri.File(settings)]
	require.Len(t, edits, 1)
	text = applyEdit(text, edits[0])
	require.Contains(t, text, `"matcher": "Write"`)
	require.NoError(t, os.WriteFile(settings, []byte(text), 0o644))
	e.diagnosticsFor(settings, func(ds []protocol.Diagnostic) bool { return !hasCode("unknown-tool")(ds) && len(ds) > 0 })
	sid, _ := e.startSession()
	require.Eventually(t, func() bool {
		out := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
			"toolInput": map[string]any{"file_path": "/tmp/x", "content": "y"}})
		return out["permission"] == "deny"
	}, 10e9, 50e6, "the corrected matcher's hook runs for Write")

	var stop []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settings)},
		"range": byCode["matcher-ignored"][0].Range, "context": map[string]any{"diagnostics": diags}}, &stop))
	var remove *protocol.CodeAction
	for i := range stop {
		if stop[i].Title == "Remove the matcher (this event ignores it)" {
			remove = &stop[i]
		}
	}
	require.NotNil(t, remove, "%v", stop)
	require.Equal(t, protocol.QuickFix, remove.Kind)
	// The diagnostic's range is of the text as first saved; the Write fix
	// above kept the line's length before it, so the edit still lands.
	withMatcher := text
	text = applyEdit(text, remove.Edit.Changes[uri.File(settings)][0])
	require.Contains(t, text, `"Stop": [{"matcher": "", "hooks"`)
	require.NoError(t, os.WriteFile(settings, []byte(text), 0o644))
	e.diagnosticsFor(settings, func(ds []protocol.Diagnostic) bool { return !hasCode("matcher-ignored")(ds) && len(ds) > 0 })

	plain := startEditor(t, editorOpts{settings: withMatcher})
	got := plain.diagnosticsFor(filepath.Join(plain.home, "settings.json"), hasCode("matcher-ignored"))
	for _, d := range got {
		require.NotEqual(t, "event-not-sent", d.Code, "no hostEvents, no such diagnostic")
	}
}

// TestNeverRunQuickFixes: the quick fixes of the two never-run warnings
// that move or remove a whole hook. A hook whose "if" names Write in a
// group whose matcher is Bash gets "Run this hook for Write calls": once
// applied and saved, the warning is gone, the group's other hook keeps its
// Bash matcher, and the guard (a real sh+jq hook) denies a Write of a .env
// file. A duplicate Stop hook gets "Remove this duplicate hook": applied
// and saved, one Stop hook is left and the shadowed-hook warning is gone.
func TestNeverRunQuickFixes(t *testing.T) {
	guard := `jq -e '.tool_input.file_path | endswith(\".env\")' >/dev/null && { echo 'no .env writes' >&2; exit 2; }; exit 0`
	text := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "true"},
    {"type": "command", "command": "` + guard + `", "if": "Write"}
  ]}],
  "Stop": [
    {"hooks": [{"type": "command", "command": "true"}]},
    {"hooks": [{"type": "command", "command": "true"}]}
  ]
}}`
	e := startEditor(t, editorOpts{settings: text})
	settingsPath := filepath.Join(e.home, "settings.json")
	diags := e.diagnosticsFor(settingsPath, func(ds []protocol.Diagnostic) bool {
		return hasCode("if-never-matches")(ds) && hasCode("shadowed-hook")(ds)
	})
	fix := func(code, title string) protocol.CodeAction {
		t.Helper()
		for _, d := range diags {
			if d.Code != code {
				continue
			}
			var actions []protocol.CodeAction
			require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settingsPath)},
				"range": d.Range, "context": map[string]any{"diagnostics": []protocol.Diagnostic{d}}}, &actions))
			for _, a := range actions {
				if a.Title == title {
					require.Equal(t, protocol.QuickFix, a.Kind)
					require.Len(t, a.Diagnostics, 1)
					require.Equal(t, code, a.Diagnostics[0].Code)
					return a
				}
			}
			require.Failf(t, "no quick fix", "%s: %+v", title, actions)
		}
		require.Failf(t, "no diagnostic", "%s: %+v", code, diags)
		return protocol.CodeAction{}
	}
	apply := func(a protocol.CodeAction) {
		edits := a.Edit.Changes[uri.File(settingsPath)]
		require.NotEmpty(t, edits)
		for i := len(edits) - 1; i >= 0; i-- { // file order: the last first keeps the earlier ranges true
			text = applyEdit(text, edits[i])
		}
	}

	apply(fix("if-never-matches", `Run this hook for Write calls (matcher "Write")`))
	require.Contains(t, text, `{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "true"}
  ]}, {"matcher": "Write", "hooks": [{"type": "command", "command": "`+guard+`", "if": "Write"}]}`)
	require.NoError(t, os.WriteFile(settingsPath, []byte(text), 0o644))
	diags = e.diagnosticsFor(settingsPath, func(ds []protocol.Diagnostic) bool {
		return !hasCode("if-never-matches")(ds) && hasCode("shadowed-hook")(ds)
	})
	apply(fix("shadowed-hook", "Remove this duplicate hook"))
	require.Equal(t, 1, strings.Count(text, `{"hooks": [{"type": "command", "command": "true"}]}`), text)
	require.NoError(t, os.WriteFile(settingsPath, []byte(text), 0o644))
	e.diagnosticsFor(settingsPath, func(ds []protocol.Diagnostic) bool { return !hasCode("shadowed-hook")(ds) })

	sid, _ := e.startSession()
	require.Eventually(t, func() bool {
		out := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
			"toolInput": map[string]any{"file_path": filepath.Join(e.root, ".env"), "content": "KEY=1"}})
		return out["permission"] == "deny"
	}, 10e9, 50e6, "the moved guard runs for Write calls")
	out := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
		"toolInput": map[string]any{"file_path": filepath.Join(e.root, "main.go"), "content": "package main"}})
	require.NotEqual(t, "deny", out["permission"], "the guard only denies .env files")
}

// TestIfRuleToolQuickFix: an "if" rule naming another agent's tool
// (write_file) is a bad-if error whose quick fix, applied and saved, names
// the tool the agent has; the guard (a real sh+jq hook) then denies a
// Write of a .env file.
func TestIfRuleToolQuickFix(t *testing.T) {
	guard := `jq -e '.tool_input.file_path | endswith(\".env\")' >/dev/null && { echo 'no .env writes' >&2; exit 2; }; exit 0`
	text := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "` + guard + `", "if": "write_file"}]}]}}`
	e := startEditor(t, editorOpts{settings: text})
	settingsPath := filepath.Join(e.home, "settings.json")
	diags := e.diagnosticsFor(settingsPath, hasCode("bad-if"))
	var d protocol.Diagnostic
	for _, x := range diags {
		if x.Code == "bad-if" {
			d = x
		}
	}
	require.Contains(t, d.Message, `did you mean "Write"?`)
	var actions []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(settingsPath)},
		"range": d.Range, "context": map[string]any{"diagnostics": []protocol.Diagnostic{d}}}, &actions))
	var fix *protocol.CodeAction
	for i := range actions {
		if actions[i].Title == `Change the rule to "Write"` {
			fix = &actions[i]
		}
	}
	require.NotNil(t, fix, "%v", actions)
	require.Equal(t, protocol.QuickFix, fix.Kind)
	text = applyEdit(text, fix.Edit.Changes[uri.File(settingsPath)][0])
	require.Contains(t, text, `"if": "Write"}`)
	require.NoError(t, os.WriteFile(settingsPath, []byte(text), 0o644))
	e.diagnosticsFor(settingsPath, func(ds []protocol.Diagnostic) bool { return !hasCode("bad-if")(ds) })

	sid, _ := e.startSession()
	require.Eventually(t, func() bool {
		out := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
			"toolInput": map[string]any{"file_path": filepath.Join(e.root, ".env"), "content": "KEY=1"}})
		return out["permission"] == "deny"
	}, 10e9, 50e6, "the corrected rule lets the guard run for Write calls")
}
