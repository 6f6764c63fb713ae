package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/lsp"
)

// askPrompts returns the ask prompts (window/showMessageRequest) the editor
// was sent so far, as the raw JSON decoded into the wire type.
func (e *editor) askPrompts() []lsp.AskPromptParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []lsp.AskPromptParams
	for _, r := range e.requests {
		if r.Method != protocol.MethodWindowShowMessageRequest || !strings.Contains(string(r.Params), "Hook asks") {
			continue
		}
		var p lsp.AskPromptParams
		require.NoError(e.tb, json.Unmarshal(r.Params, &p))
		out = append(out, p)
	}
	return out
}

// askDiagnosticData returns the data of the wave.ask diagnostics in the last
// publishDiagnostics for file.
func (e *editor) askDiagnosticData(file string) []lsp.AskDiagnosticData {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []lsp.AskDiagnosticData
	for i := len(e.notifications) - 1; i >= 0; i-- {
		n := e.notifications[i]
		var p struct {
			URI         protocol.DocumentURI `json:"uri"`
			Diagnostics []struct {
				Code string          `json:"code"`
				Data json.RawMessage `json:"data"`
			} `json:"diagnostics"`
		}
		if n.Method != "textDocument/publishDiagnostics" || json.Unmarshal(n.Params, &p) != nil || p.URI.Filename() != file {
			continue
		}
		for _, d := range p.Diagnostics {
			if d.Code == "wave.ask" {
				var data lsp.AskDiagnosticData
				require.NoError(e.tb, json.Unmarshal(d.Data, &data), string(d.Data))
				out = append(out, data)
			}
		}
		return out
	}
	return nil
}

// Two asks with the same tool and the same reason show the same text: only
// the permission id on the prompt's actions and on the file's diagnostic
// tells them apart, and a client that answers by that id answers the right one.
func TestAskPromptAndDiagnosticCarryThePermissionID(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}})})
	sid, _ := e.startSession()
	files := []string{filepath.Join(e.root, "a.txt"), filepath.Join(e.root, "b.txt")}
	results := make([]chan map[string]any, len(files))
	for i, f := range files {
		results[i] = make(chan map[string]any, 1)
		go func() {
			results[i] <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t" + string(rune('1'+i)),
				"toolName": "Write", "toolInput": map[string]any{"file_path": f, "content": "x"}})
		}()
	}
	first, second := e.nextPrompt(), e.nextPrompt()
	require.Equal(t, first.params.Message, second.params.Message, "the two prompts read the same")

	var pending lsp.ListPermissionsResult
	require.NoError(t, e.call("wave/listPermissions", nil, &pending))
	require.Len(t, pending.Pending, 2)
	idOf := map[string]string{} // file -> permission id
	for _, p := range pending.Pending {
		var in struct {
			FilePath string `json:"file_path"`
		}
		require.NoError(t, json.Unmarshal(p.ToolInput, &in))
		idOf[in.FilePath] = p.ID
	}

	prompts := e.askPrompts()
	require.Len(t, prompts, 2)
	var promptIDs []string
	for _, p := range prompts {
		require.Len(t, p.Actions, 2)
		require.Equal(t, []string{"Allow", "Deny"}, []string{p.Actions[0].Title, p.Actions[1].Title})
		require.Equal(t, p.Actions[0].PermissionID, p.Actions[1].PermissionID, "both actions name the same ask")
		promptIDs = append(promptIDs, p.Actions[0].PermissionID)
	}
	require.ElementsMatch(t, []string{idOf[files[0]], idOf[files[1]]}, promptIDs, "each prompt names a pending permission")

	for _, f := range files {
		require.Eventually(t, func() bool {
			d := e.askDiagnosticData(f)
			return len(d) == 1 && d[0].PermissionID == idOf[f]
		}, 10*time.Second, 5*time.Millisecond, "the wave.ask diagnostic on %s carries its ask's id", f)
	}

	// Deny b.txt's ask by the id its diagnostic carries: a.txt's stays pending.
	var res lsp.ResolvePermissionResult
	require.NoError(t, e.call("wave/resolvePermission", map[string]any{"id": e.askDiagnosticData(files[1])[0].PermissionID, "decision": "deny"}, &res))
	require.True(t, res.Resolved)
	require.Equal(t, "deny", (<-results[1])["permission"])
	require.NoError(t, e.call("wave/listPermissions", nil, &pending))
	require.Len(t, pending.Pending, 1)
	require.Equal(t, idOf[files[0]], pending.Pending[0].ID)

	// The prompt still answers by its title, as LSP has it (a client may send
	// back the item without the id): a.txt's prompt allows a.txt's ask, and
	// b.txt's prompt, withdrawn, changes nothing.
	for _, p := range []pendingPrompt{first, second} {
		p.reply <- &protocol.MessageActionItem{Title: "Allow"}
	}
	require.Equal(t, "allow", (<-results[0])["permission"])
}
