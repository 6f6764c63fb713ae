package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// applyEdit makes an LSP text edit on text (positions in UTF-16 units; the
// test's text is ASCII).
func applyEdit(text string, e protocol.TextEdit) string {
	offset := func(p protocol.Position) int {
		lines := strings.SplitAfter(text, "\n")
		at := 0
		for i := 0; i < int(p.Line); i++ {
			at += len(lines[i])
		}
		return at + int(p.Character)
	}
	return text[:offset(e.Range.Start)] + e.NewText + text[offset(e.Range.End):]
}

// TestToggleHookCodeAction: the fake editor asks for code actions on a
// hook of its settings file, applies "Disable this hook" as the editor
// would (the WorkspaceEdit on its buffer, then a save): the hook stops
// running and the run history shows it skipped (disabled), the file's
// comment is kept, and "Enable this hook" turns it back on.
func TestToggleHookCodeAction(t *testing.T) {
	text := "{\n  // the guard\n  \"hooks\": {\"Stop\": [{\"hooks\": [\n    {\"type\": \"command\", \"command\": \"echo 'tests first' >&2; exit 2\"}\n  ]}]}\n}\n"
	e := startEditor(t, editorOpts{settings: text})
	settings := filepath.Join(e.home, "settings.json")
	u := uri.File(settings)
	sid, _ := e.startSession()
	require.Equal(t, true, e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"])

	toggle := func(title string) {
		t.Helper()
		var actions []protocol.CodeAction
		require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
			"range":   protocol.Range{Start: protocol.Position{Line: 3, Character: 10}, End: protocol.Position{Line: 3, Character: 10}},
			"context": map[string]any{"diagnostics": []any{}}}, &actions))
		var found *protocol.CodeAction
		for i := range actions {
			if actions[i].Title == title {
				found = &actions[i]
			}
		}
		require.NotNil(t, found, "%q among %v", title, actions)
		edits := found.Edit.Changes[u]
		require.Len(t, edits, 1)
		text = applyEdit(text, edits[0])
		require.NoError(t, os.WriteFile(settings, []byte(text), 0o644))
	}

	toggle("Disable this hook")
	require.Equal(t, "{\n  // the guard\n  \"hooks\": {\"Stop\": [{\"hooks\": [\n    {\"type\": \"command\", \"command\": \"echo 'tests first' >&2; exit 2\", \"enabled\": false}\n  ]}]}\n}\n", text)
	require.Eventually(t, func() bool {
		return e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"] == false
	}, 10e9, 50e6, "the server reloads the saved file; the hook no longer blocks")
	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"event": "Stop", "limit": 1}, &runs))
	require.Len(t, runs.Runs, 1)
	require.Equal(t, `disabled: "enabled": false`, runs.Runs[0].Hooks[0].Skipped)
	require.False(t, runs.Runs[0].Hooks[0].Ran)

	toggle("Enable this hook")
	require.Contains(t, text, `"enabled": true}`)
	require.Eventually(t, func() bool {
		return e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"] == true
	}, 10e9, 50e6, "on again, it blocks")
}
