//go:build linux

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The whole bridge with the scripted agent in claude-agent-acp's place, so
// it is checked where node is not installed: the agent gets the hook in
// session/new's settings; that command, run as Claude Code runs it (sh -c,
// the hook input on stdin), denies rm -rf with the hook's reason and allows
// the rest; and the agent's permission request for the allowed call is
// answered from that decision, without running PreToolUse again or asking
// the editor.
func TestBridgeEndToEndWithScriptedAgent(t *testing.T) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project,
		script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[
		  {"permission":{"toolCallId":"toolu_ok","title":"echo ok","kind":"execute","rawInput":{"command":"echo BRIDGE-OK"},"_meta":{"claudeCode":{"toolName":"Bash"}}},
		   "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"say":"REFUSED"}]},
		  {"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = bin; o.TrustWorkspace = true }})
	sess := r.handshake()

	news := r.agentGot("session/new")
	require.Len(t, news, 1)
	var params struct {
		Meta struct {
			ClaudeCode struct {
				Options struct {
					Settings struct {
						DisableAllHooks *bool `json:"disableAllHooks"`
						Hooks           struct {
							PreToolUse []struct {
								Matcher string `json:"matcher"`
								Hooks   []struct {
									Type    string `json:"type"`
									Command string `json:"command"`
								} `json:"hooks"`
							} `json:"PreToolUse"`
						} `json:"hooks"`
					} `json:"settings"`
				} `json:"options"`
			} `json:"claudeCode"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(mustRaw(news[0]["params"]), &params))
	s := params.Meta.ClaudeCode.Options.Settings
	require.NotNil(t, s.DisableAllHooks)
	require.False(t, *s.DisableAllHooks)
	require.Len(t, s.Hooks.PreToolUse, 1)
	require.Equal(t, "*", s.Hooks.PreToolUse[0].Matcher)
	require.Len(t, s.Hooks.PreToolUse[0].Hooks, 1)
	require.Equal(t, "command", s.Hooks.PreToolUse[0].Hooks[0].Type)
	command := s.Hooks.PreToolUse[0].Hooks[0].Command

	// claudeRunsHook runs the bridge's hook as Claude Code does; a deny
	// tells the editor why while the hook waits for its answer, so the
	// editor's side reads that one message meanwhile.
	claudeRunsHook := func(toolUseID, shell string, tellsEditor bool) map[string]any {
		t.Helper()
		in := mustRaw(map[string]any{"hook_event_name": "PreToolUse", "session_id": sess, "tool_name": "Bash",
			"tool_input": map[string]any{"command": shell}, "tool_use_id": toolUseID, "cwd": project})
		done := runCommand(command, in)
		if tellsEditor {
			require.NotNil(t, r.read(), "the proxy told the editor something")
		}
		res := <-done
		require.NoError(t, res.err, "stderr: %s", res.stderr)
		var answer struct {
			Specific map[string]any `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal(res.out, &answer), "%s", res.out)
		return answer.Specific
	}
	deny := claudeRunsHook("toolu_deny", "rm -rf build", true)
	require.Equal(t, "deny", deny["permissionDecision"])
	require.Contains(t, deny["permissionDecisionReason"], denyReason)
	allow := claudeRunsHook("toolu_ok", "echo BRIDGE-OK", false)
	require.Equal(t, "allow", allow["permissionDecision"])
	require.Len(t, h.runs(t, "PreToolUse", "rm -rf build"), 1)

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Contains(t, r.chunkTexts(), "RAN", "the agent was answered allow_once")
	require.Zero(t, r.countNoted(methodRequestPermission), "the editor was not asked")
	require.Len(t, h.runs(t, "PreToolUse", "BRIDGE-OK"), 1, "PreToolUse ran once for the call: at the bridge, not again at its permission request")
	var why []string
	for _, text := range r.wavehooksChunks() {
		if strings.Contains(text, denyReason) {
			why = append(why, text)
		}
	}
	require.Len(t, why, 1, "the deny at the bridge is told once in the agent's reply (issue #26 item 2): %q", r.wavehooksChunks())
	require.Contains(t, why[0], "[wavehooks] PreToolUse hook: Bash was not run.")
}

// When the bridge cannot start (here: a $TMPDIR so deep that no unix socket
// path fits under it), the agent's sessions are refused with the reason,
// not started with tools no hook would see.
func TestBridgeThatCannotStartRefusesSessions(t *testing.T) {
	r := startRig(t, rigOptions{script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[{"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = "/usr/bin/wavehooks" }})
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 100), strings.Repeat("e", 100))
	require.NoError(t, os.MkdirAll(deep, 0o700))
	t.Setenv("TMPDIR", deep)
	r.initialize(map[string]any{})
	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.NotNil(t, res.Error, "session/new was refused: %s", res.Line)
	require.Contains(t, res.Line, "hook bridge did not start")
	require.Empty(t, r.agentGot("session/new"), "the agent never got the session/new")
}
