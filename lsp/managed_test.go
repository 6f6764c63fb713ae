package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// TestManagedFileIsTheAdministrators: in the editor, hover in a managed
// file says its hooks are managed, no code action offers to edit it (no
// "Disable this hook", no quick fix), the hook list marks its hook managed,
// and wave.toggleHook refuses it naming the file, which stays as it was.
func TestManagedFileIsTheAdministrators(t *testing.T) {
	dir := t.TempDir()
	managed := filepath.Join(dir, "managed-settings.json")
	text := "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"jq -r .session_id >/dev/null\"}]}],\n \"PreToolUs\": []}}"
	require.NoError(t, os.WriteFile(managed, []byte(text), 0o644))
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{ManagedFile: managed}})
	u := uri.File(managed)

	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u},
		"position": map[string]any{"line": 0, "character": 12}}, &hover))
	require.Contains(t, hover.Contents.Value, "**Managed** (policy) settings: its hooks always run")

	diags := e.diagnosticsFor(managed, hasCode("unknown-event"))
	var actions []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": u},
		"range":   protocol.Range{End: protocol.Position{Line: 1, Character: 20}},
		"context": map[string]any{"diagnostics": diags}}, &actions))
	require.Empty(t, actions, "nothing edits a managed file")

	var list lsp.ListHooksResult
	require.NoError(t, e.call("wave/listHooks", struct{}{}, &list))
	require.Len(t, list.Hooks, 1)
	require.True(t, list.Hooks[0].Managed)
	err := e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{list.Hooks[0].ID}}, nil)
	require.ErrorContains(t, err, "this hook comes from the managed settings "+managed+": managed hooks always run")
	after, rerr := os.ReadFile(managed)
	require.NoError(t, rerr)
	require.Equal(t, text, string(after))
}

// TestManagedDropInTakesEffectWhileServing: a drop-in an administrator adds
// to Claude Code's managed-settings.d while the editor runs is policy at
// once: the server reloads and its hook is listed, managed.
func TestManagedDropInTakesEffectWhileServing(t *testing.T) {
	dir := t.TempDir()
	dropIns := filepath.Join(dir, "managed-settings.d")
	require.NoError(t, os.MkdirAll(dropIns, 0o755))
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{ClaudeManagedDir: dir}})
	changed := e.countNotifications("wave/hooksChanged", "")
	require.NoError(t, os.WriteFile(filepath.Join(dropIns, "20-security.json"),
		[]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "jq -r .session_id >/dev/null"}]}]}}`), 0o644))
	e.waitNotificationAfter("wave/hooksChanged", changed, nil)
	var list lsp.ListHooksResult
	require.NoError(t, e.call("wave/listHooks", struct{}{}, &list))
	require.Len(t, list.Hooks, 1)
	require.True(t, list.Hooks[0].Managed)
	require.Equal(t, filepath.Join(dropIns, "20-security.json"), list.Hooks[0].File)
}
