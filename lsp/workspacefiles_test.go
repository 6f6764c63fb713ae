package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/lsp"
)

// userPromptHook is the user's own hook: real sh with jq on its stdin.
const userPromptHook = `{"importVSCodeHooks": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
  "command": "jq -r '\"user hook saw: \" + .prompt'"}]}]}}`

// TestServerSurvivesHostileWorkspaceFiles plants each hostile file as the
// project's .wave/settings.json and as one of VS Code's hook files, before
// the server starts: it starts, publishes a diagnostic on the planted file
// that says what is wrong, and the user's own hook runs. Before the bounded
// reader, the nested file overflowed the stack (the test process died), the
// FIFO hung initialize and /dev/zero grew memory past a GiB.
func TestServerSurvivesHostileWorkspaceFiles(t *testing.T) {
	for _, h := range proctest.HostileFiles {
		for _, where := range []string{".wave/settings.json", ".github/hooks/planted.json"} {
			t.Run(h.Name+" at "+where, func(t *testing.T) {
				root := t.TempDir()
				planted := filepath.Join(root, where)
				require.NoError(t, h.Plant(planted))
				e := startEditor(t, editorOpts{settings: userPromptHook, root: root, serverOpt: lsp.Options{TrustWorkspace: true}})
				e.diagnosticsFor(planted, func(ds []protocol.Diagnostic) bool {
					for _, d := range ds {
						if strings.Contains(d.Message, h.Says) {
							return true
						}
					}
					return false
				})
				sid, _ := e.startSession()
				r := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"})
				require.Contains(t, fmt.Sprint(r["additionalContext"]), "user hook saw: hello")
			})
		}
	}
}
