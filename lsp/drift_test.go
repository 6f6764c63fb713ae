package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// writeLikeAnInstallScript replaces a file with a plain sh, as a package's
// install script would: neither wavehooks nor the editor.
func writeLikeAnInstallScript(t *testing.T, file, text string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `cat > "$1"`, "sh", file)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestDriftIsShownOnceInTheEditor: a hook an outside process adds to the
// user's settings is shown once (window/showMessage naming the file, and a
// hook-drift diagnostic on it); a reload after that shows it no more;
// wavehooks' own toggle and a save by the editor are no drift.
func TestDriftIsShownOnceInTheEditor(t *testing.T) {
	const mine = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]`
	e := startEditor(t, editorOpts{settings: mine + `}}`})
	file := filepath.Join(e.home, "settings.json")
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(e.home, "hook-record.json"))
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the first load adopts the user's hooks")

	const added = "a PreToolUse hook was added in "
	writeLikeAnInstallScript(t, file, mine+`, "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_name"}]}]}}`)
	e.waitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), added+file+" by something other than wavehooks or your editor")
	})

	// Another reload (the same text written again) shows it no more.
	changed := e.countNotifications("wave/hooksChanged", "")
	writeLikeAnInstallScript(t, file, mine+`, "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_name"}]}]}} `)
	e.waitNotificationAfter("wave/hooksChanged", changed, nil)
	require.Equal(t, 1, e.countNotifications("window/showMessage", added))

	// wavehooks' own toggle is no drift.
	var list lsp.ListHooksResult
	require.NoError(t, e.call("wave/listHooks", struct{}{}, &list))
	require.Len(t, list.Hooks, 2)
	require.Equal(t, "added", list.Hooks[1].Drift, "listed as drifted until approved")
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": "wave.toggleHook", "arguments": []any{list.Hooks[0].ID}}, nil))
	require.Equal(t, 0, e.countNotifications("window/showMessage", "a Stop hook was"))

	// The editor's own save: the buffer it holds is what lands on disk.
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	text := strings.Replace(string(saved), `"Stop"`, `"SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye"}]}], "Stop"`, 1)
	require.NoError(t, e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri.File(file), "languageId": "jsonc", "version": 1, "text": text}}))
	changed = e.countNotifications("wave/hooksChanged", "")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	e.waitNotificationAfter("wave/hooksChanged", changed, nil)
	require.Equal(t, 0, e.countNotifications("window/showMessage", "a SessionEnd hook was"), "the editor's save is the user's writing")
}
