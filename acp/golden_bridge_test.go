//go:build linux

package acp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The hook bridge's answers keep their bytes, end to end through
// `wavehooks acp-hook` as Claude Code runs it: a deny, an ask with and
// without a reason, an allow with a reason, an updatedInput and context, no
// decision, and a hook's continue:false.
func TestGoldenBridgeAnswers(t *testing.T) {
	dir := t.TempDir()
	pre := hook(t, dir, "pre.sh", `case "$(jq -r .tool_input.command)" in
  deny) echo "no" >&2; exit 2 ;;
  ask-empty) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask"}}' ;;
  ask) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check <it> & see"}}' ;;
  allow) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "fine",
    updatedInput: {command: "echo safe"}, additionalContext: "one"}}' ;;
  stop) jq -n '{continue: false, stopReason: "halt"}' ;;
  *) echo '{}' ;;
esac`)
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "", pre}),
		script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[{"stop":"end_turn"}]]}`,
		opts:   func(o *Options) { o.HookExe = bin }})
	sess := r.handshake()
	var params struct {
		Meta struct {
			ClaudeCode struct {
				Options struct {
					Settings struct {
						Hooks struct {
							PreToolUse []struct {
								Hooks []struct {
									Command string `json:"command"`
								} `json:"hooks"`
							} `json:"PreToolUse"`
						} `json:"hooks"`
					} `json:"settings"`
				} `json:"options"`
			} `json:"claudeCode"`
		} `json:"_meta"`
	}
	news := r.agentGot("session/new")
	require.Len(t, news, 1)
	require.NoError(t, json.Unmarshal(mustRaw(news[0]["params"]), &params))
	command := params.Meta.ClaudeCode.Options.Settings.Hooks.PreToolUse[0].Hooks[0].Command

	// The editor reads all the while, as a real one does: a deny tells it
	// at once ([wavehooks] message), before the bridge answers.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for r.read() != nil {
		}
	}()
	var got bytes.Buffer
	for i, shell := range []string{"deny", "ask-empty", "ask", "allow", "none", "stop"} {
		in := mustRaw(map[string]any{"hook_event_name": "PreToolUse", "session_id": sess, "tool_name": "Bash",
			"tool_input": map[string]any{"command": shell}, "tool_use_id": "toolu_" + itoa(i), "cwd": r.project})
		ran := runCommand(command, in)
		res := <-ran
		require.NoError(t, res.err, "stderr: %s", res.stderr)
		got.WriteString("# " + shell + "\n")
		got.Write(res.out)
		got.WriteString("\n")
	}
	r.closeEditor()
	<-drained
	r.wait() // the proxy ends
	requireGolden(t, "bridge_answers.txt", got.Bytes())
}
