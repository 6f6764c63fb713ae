package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// TestOnFailureBlockInTheServer: guards with onFailure "block" that fail —
// one exits 1, one prints JSON that does not parse, one times out — deny
// the tool call, block the prompt and deny the permission request through
// the server's methods, and the run history says why.
func TestOnFailureBlockInTheServer(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -e '.tool_input.command' >/dev/null; exit 1", "onFailure": "block"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "jq -r .prompt >/dev/null; echo '{\"decision\": '", "onFailure": "block"}]}],
  "PermissionRequest": [{"hooks": [{"type": "command", "command": "cat >/dev/null; exec sleep 30", "timeout": 0.3, "onFailure": "block"}]}]
}}`})
	sid, _ := e.startSession()
	pre := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}})
	require.Equal(t, "deny", pre["permission"])
	require.Contains(t, pre["reason"], "blocked because the hook failed (onFailure: block): hook `jq -e")
	require.Contains(t, pre["reason"], "it exited 1")

	prompt := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "deploy"})
	require.Equal(t, true, prompt["blocked"])
	require.Contains(t, prompt["reason"], "its JSON answer does not validate")

	perm := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "PermissionRequest",
		"input": map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}})
	require.Equal(t, "deny", perm["permission"])
	require.Contains(t, perm["reason"], "it timed out after")

	var runs lsp.HookRunsResult
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid}, &runs))
	blocked := 0
	for _, r := range runs.Runs {
		for _, h := range r.Hooks {
			if strings.HasSuffix(h.Decision, "; blocked because the hook failed (onFailure: block)") {
				blocked++
			}
		}
	}
	require.Equal(t, 3, blocked, "each of the three runs says why it blocked")
}

// TestEditorExplainsOnFailure: hover on onFailure explains it, and
// completion offers its two values.
func TestEditorExplainsOnFailure(t *testing.T) {
	text := "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\", \"onFailure\": \"\"}]}]}}\n"
	e := startEditor(t, editorOpts{settings: text})
	u := uri.File(filepath.Join(e.home, "settings.json"))
	col := strings.Index(text, `"onFailure"`)
	at := func(c int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": c}}
	}
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(col+3), &hover))
	require.Contains(t, hover.Contents.Value, "`block`: the failure counts as exit code 2")

	var list protocol.CompletionList
	require.NoError(t, e.call("textDocument/completion", at(col+len(`"onFailure": "`)), &list))
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	require.Equal(t, []string{"continue", "block"}, labels)
}

// TestOnFailureBlockMCPTool: an mcp_tool guard whose call fails (the
// agent host's MCP server answers isError) denies the tool call with
// onFailure "block", and lets it through with the default.
func TestOnFailureBlockMCPTool(t *testing.T) {
	for _, c := range []struct{ onFailure, permission string }{{"block", "deny"}, {"continue", "allow"}} {
		t.Run(c.onFailure, func(t *testing.T) {
			host := &agentHost{answer: func(p lsp.EvaluateHookParams) (any, error) {
				return map[string]any{"content": []any{map[string]any{"type": "text", "text": "scanner unavailable"}}, "isError": true}, nil
			}}
			settings := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "scanner", "tool": "scan", "onFailure": "` + c.onFailure + `"}]}]}}`
			e := startEditor(t, editorOpts{settings: settings, caps: declaresEvaluateHook, onRequest: host.onRequest})
			sid, _ := e.startSession()
			pre := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_1", "toolName": "Bash",
				"toolInput": map[string]any{"command": "ls"}})
			require.Equal(t, c.permission, pre["permission"], mustJSON(pre))
			require.Len(t, host.evaluations(), 1, "the hook ran")
			if c.onFailure == "block" {
				require.Contains(t, pre["reason"], "blocked because the hook failed (onFailure: block): hook `mcp_tool scanner/scan`: mcp_tool hook `mcp_tool scanner/scan` failed: scanner unavailable")
			}
		})
	}
}

// TestOnFailureBlockMCPToolWithoutAgentHost: an editor whose agent cannot
// evaluate hooks (it did not declare waveEvaluateHook) cannot run an
// mcp_tool guard; with onFailure "block" that failure denies the tool call
// like any other (#35 item 5), and the run history says why.
func TestOnFailureBlockMCPToolWithoutAgentHost(t *testing.T) {
	for _, c := range []struct{ onFailure, permission string }{{"block", "deny"}, {"continue", "allow"}} {
		t.Run(c.onFailure, func(t *testing.T) {
			settings := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "scanner", "tool": "scan", "onFailure": "` + c.onFailure + `"}]}]}}`
			e := startEditor(t, editorOpts{settings: settings})
			sid, _ := e.startSession()
			pre := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_1", "toolName": "Bash",
				"toolInput": map[string]any{"command": "ls"}})
			require.Equal(t, c.permission, pre["permission"], mustJSON(pre))
			if c.onFailure != "block" {
				return
			}
			require.Contains(t, pre["reason"], "blocked because the hook failed (onFailure: block): hook `mcp_tool scanner/scan`: it could not run: "+
				"the editor did not declare capabilities.experimental.waveEvaluateHook")
			var runs lsp.HookRunsResult
			require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid}, &runs))
			require.Len(t, runs.Runs, 1)
			require.Len(t, runs.Runs[0].Hooks, 1)
			require.False(t, runs.Runs[0].Hooks[0].Ran)
			require.True(t, strings.HasSuffix(runs.Runs[0].Hooks[0].Decision, "; blocked because the hook failed (onFailure: block)"), runs.Runs[0].Hooks[0].Decision)
		})
	}
}
