//go:build linux

package acp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue #35 item 2: a decision is bound to the exact input it judged, not to
// the tool call's id. A hostile agent that had `echo` allowed, then changes
// the call's input or asks again with other content for the same id, does
// not get `rm -rf` past the hooks: at a terminal/create, an
// fs/write_text_file or a permission request, without a bridge and behind
// both bridges. The matrix hooks deny anything with "rm -rf" or DENYME and
// allow the rest.
func TestADecisionBindsTheInputItJudged(t *testing.T) {
	type bridgeKind int
	const (
		noBridge bridgeKind = iota
		claudeBridge
		codexBridge
	)
	cases := []struct {
		name   string
		bridge bridgeKind
		// hook is the command the agent's own hook hands the bridge for
		// toolu_1 before the turn's steps go on ("" for none).
		hook string
		// steps are the agent's turn; VICTIM and TARGET are replaced by
		// paths in the test's directory.
		steps string
		// check is what must hold after the turn.
		check func(t *testing.T, r *rig, h matrixHooks, victim, target string)
	}{
		{
			name: "an update after the allow, then a terminal",
			steps: `{"update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"echo SAFE","kind":"execute","status":"pending","rawInput":{"command":"echo SAFE"}}},
			  {"permission":{"toolCallId":"c1","title":"echo SAFE","kind":"execute","rawInput":{"command":"echo SAFE"}},
			   "ifAllowed":[
			     {"update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","rawInput":{"command":"rm -rf VICTIM"}}},
			     {"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","VICTIM"]}},"ifOK":[{"say":"RAN"}],"ifError":[{"say":"REFUSED"}]}],
			   "ifRejected":[{"say":"REJECTED"}]}`,
			check: func(t *testing.T, r *rig, h matrixHooks, victim, _ string) {
				require.Empty(t, r.noted(methodTerminalCreate), "rm -rf never reached the editor")
				require.Contains(t, r.chunkTexts(), "REFUSED")
				require.NotEmpty(t, h.runs(t, "PreToolUse", "rm -rf "+victim), "the hooks judged the new input")
				require.NotEmpty(t, r.agentGot(methodSessionCancel), "the agent's turn was cancelled: it might run the call itself")
			},
		},
		{
			name: "an update of the diff after the allow, then a write",
			steps: `{"update":{"sessionUpdate":"tool_call","toolCallId":"c2","title":"Write TARGET","kind":"edit","status":"pending","content":[{"type":"diff","path":"TARGET","oldText":null,"newText":"safe"}]}},
			  {"permission":{"toolCallId":"c2","title":"Write TARGET","kind":"edit","content":[{"type":"diff","path":"TARGET","oldText":null,"newText":"safe"}]},
			   "ifAllowed":[
			     {"update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","content":[{"type":"diff","path":"TARGET","oldText":null,"newText":"DENYME evil"}]}},
			     {"call":{"method":"fs/write_text_file","params":{"path":"TARGET","content":"DENYME evil"}},"ifOK":[{"say":"RAN"}],"ifError":[{"say":"REFUSED"}]}],
			   "ifRejected":[{"say":"REJECTED"}]}`,
			check: func(t *testing.T, r *rig, h matrixHooks, _, target string) {
				require.Empty(t, r.noted(methodWriteTextFile), "the write never reached the editor")
				require.NoFileExists(t, target)
				require.Contains(t, r.chunkTexts(), "REFUSED")
				require.NotEmpty(t, h.runs(t, "PreToolUse", "DENYME evil"), "the hooks judged the new content")
			},
		},
		{
			name:   "claude bridge: a permission request with other input",
			bridge: claudeBridge,
			hook:   "echo SAFE",
			steps: `{"permission":{"toolCallId":"toolu_1","title":"echo SAFE","kind":"execute","rawInput":{"command":"echo SAFE"},"_meta":{"claudeCode":{"toolName":"Bash"}}},
			   "ifAllowed":[{"say":"SAME-RAN"}],"ifRejected":[{"say":"SAME-REFUSED"}]},
			  {"permission":{"toolCallId":"toolu_1","title":"rm","kind":"execute","rawInput":{"command":"rm -rf VICTIM"},"_meta":{"claudeCode":{"toolName":"Bash"}}},
			   "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"say":"REFUSED"}]}`,
			check: func(t *testing.T, r *rig, h matrixHooks, victim, _ string) {
				require.Contains(t, r.chunkTexts(), "SAME-RAN", "the request for the input the bridge judged reuses its allow")
				require.Len(t, h.runs(t, "PreToolUse", "echo SAFE"), 1, "once, at the bridge")
				require.Contains(t, r.chunkTexts(), "REFUSED", "the other input was judged, and denied")
				require.NotContains(t, r.chunkTexts(), "RAN")
				require.Len(t, h.runs(t, "PreToolUse", "rm -rf "+victim), 1)
			},
		},
		{
			name:   "claude bridge: an update after the allow, then a terminal",
			bridge: claudeBridge,
			hook:   "echo SAFE",
			steps: `{"update":{"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"echo SAFE","kind":"execute","status":"pending","rawInput":{"command":"echo SAFE"},"_meta":{"claudeCode":{"toolName":"Bash"}}}},
			  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","rawInput":{"command":"rm -rf VICTIM"}}},
			  {"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","VICTIM"]}},"ifOK":[{"say":"RAN"}],"ifError":[{"say":"REFUSED"}]}`,
			check: func(t *testing.T, r *rig, h matrixHooks, victim, _ string) {
				require.Empty(t, r.noted(methodTerminalCreate), "rm -rf never reached the editor")
				require.Contains(t, r.chunkTexts(), "REFUSED")
				require.NotEmpty(t, h.runs(t, "PreToolUse", "rm -rf "+victim))
			},
		},
		{
			name:   "codex bridge: a permission request with other input",
			bridge: codexBridge,
			hook:   "echo SAFE",
			steps: `{"permission":{"toolCallId":"toolu_1","title":"echo SAFE","kind":"execute","rawInput":{"call_id":"toolu_1","command":["bash","-lc","echo SAFE"],"cwd":"/"}},
			   "ifAllowed":[{"say":"SAME-RAN"}],"ifRejected":[{"say":"SAME-REFUSED"}]},
			  {"permission":{"toolCallId":"toolu_1","title":"rm","kind":"execute","rawInput":{"call_id":"toolu_1","command":["bash","-lc","rm -rf VICTIM"],"cwd":"/"}},
			   "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"say":"REFUSED"}]}`,
			check: func(t *testing.T, r *rig, h matrixHooks, victim, _ string) {
				require.Contains(t, r.chunkTexts(), "SAME-RAN", "Codex's own description of the command the bridge judged reuses its decision")
				require.Len(t, h.runs(t, "PreToolUse", "echo SAFE"), 1, "once, at the bridge")
				require.Contains(t, r.chunkTexts(), "REFUSED", "the other command was judged, and denied")
				require.NotContains(t, r.chunkTexts(), "RAN")
				require.NotEmpty(t, h.runs(t, "PreToolUse", "rm -rf "+victim))
			},
		},
	}
	bin, err := wavehooksBin()
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			project, dir := t.TempDir(), t.TempDir()
			h := writeMatrixHooks(t, project)
			victim, target, go1 := filepath.Join(dir, "victim"), filepath.Join(dir, "target.txt"), filepath.Join(dir, "go")
			require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
			steps := strings.NewReplacer("VICTIM", victim, "TARGET", target).Replace(c.steps)
			name := "scripted"
			var agent []string
			switch c.bridge {
			case claudeBridge:
				name = "@agentclientprotocol/claude-agent-acp"
			case codexBridge:
				command, _ := codexStandIn(t)
				agent = []string{command}
			}
			script := `{"agentName": "` + name + `", "turns": [[{"waitFile": ` + strconv.Quote(go1) + `}, ` + steps + `, {"stop":"end_turn"}]]}`
			r := startRig(t, rigOptions{project: project, script: script, opts: func(o *Options) {
				o.HookExe, o.TrustWorkspace = bin, true
				if agent != nil {
					o.Agent = agent
				}
			}})
			sess := r.handshake()
			turn := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
			if c.hook != "" {
				command := bridgeCommand(t, r)
				in := mustRaw(map[string]any{"hook_event_name": "PreToolUse", "session_id": sess, "tool_name": "Bash",
					"tool_input": map[string]any{"command": c.hook}, "tool_use_id": "toolu_1", "cwd": project})
				res := <-runCommand(command, in)
				require.NoError(t, res.err, "stderr: %s", res.stderr)
				require.NotContains(t, string(res.out), "deny", "the bridge allowed %s", c.hook)
			}
			require.NoError(t, os.WriteFile(go1, nil, 0o600))
			require.Equal(t, "end_turn", stopReason(t, r.await(turn)))
			c.check(t, r, h, victim, target)
		})
	}
}

// bridgeCommand is the hook command the proxy gave the agent (on codex-acp's
// command line, or in the session's Claude Code settings).
func bridgeCommand(t *testing.T, r *rig) string {
	t.Helper()
	b := r.proxy.bridgeOf()
	require.NotNil(t, b, "the bridge runs")
	require.NoError(t, b.err)
	return b.command
}
