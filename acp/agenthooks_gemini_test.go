//go:build linux

package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
)

// A hook in Gemini CLI's own format, in the workspace's .gemini/settings.json,
// holds in Gemini CLI's ACP mode, where Gemini CLI does not run its tool
// hooks itself: the proxy knows the agent it runs and runs that file's
// BeforeTool hooks, with Gemini CLI's stdin, and reads the hook's Gemini-shaped
// deny. The shell command never runs, and the hook runs once for the call
// (Gemini CLI, had it run the hook too, would have logged a second run).
func TestGeminiCLIOwnHookFileInACPMode(t *testing.T) {
	node, entry := geminiCLI(t)
	home, tmp, project := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{
	  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
	  "telemetry": {"enabled": false}, "privacy": {"usageStatisticsEnabled": false},
	  "general": {"disableAutoUpdate": true, "enableAutoUpdate": false}, "ide": {"enabled": false}, "tools": {"sandbox": false}}`), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".gemini", "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".gemini", "settings.json"), []byte(`{
	  // Gemini CLI's documented format: BeforeTool, its tool name, milliseconds.
	  "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
	    {"name": "guard", "type": "command", "command": "sh \"$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh\"", "timeout": 20000}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".gemini", "hooks", "guard.sh"), []byte(`#!/bin/sh
input=$(cat)
printf '%s\n' "$input" | jq -c '{hook_event_name, tool_name, command: .tool_input.command}' >> "$GEMINI_PROJECT_DIR/runs.jsonl"
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *DENYME*) jq -n '{decision: "deny", reason: "gemini guard: DENYME is off limits"}' ;;
  *) jq -n '{decision: "allow"}' ;;
esac
`), 0o755))
	marker := filepath.Join(project, "ran.txt")
	shell := func(cmd string) map[string]any {
		return map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]string{"command": cmd, "description": "a test command"}}}
	}
	fake := filepath.Join(t.TempDir(), "model.jsonl")
	require.NoError(t, os.WriteFile(fake, []byte(
		geminiTurn(geminiText("Running it."), shell("echo DENYME > "+marker))+
			geminiTurn(geminiText("DONE-ONE"))), 0o600))
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.Agent = []string{node, entry, "--acp", "--fake-responses-non-strict", fake}
		o.AgentDir = project
		o.AgentEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_HOME=" + home, "TMPDIR=" + tmp,
			"GEMINI_API_KEY=offline-test-key", "NO_COLOR=1"}
		o.AgentHomes = map[agentfmt.Agent]string{agentfmt.Gemini: filepath.Join(home, ".gemini")}
		o.TrustWorkspace = true
	}})
	sess := r.handshakeWith(map[string]any{})

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "PROMPT-ONE: run the command")))
	require.Contains(t, r.chunkTexts(), "DONE-ONE")
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "the denied shell command did not run")
	runs, err := os.ReadFile(filepath.Join(project, "runs.jsonl"))
	require.NoError(t, err, "the Gemini-format hook ran")
	lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
	require.Len(t, lines, 1, "the hook ran once for the call: %s", runs)
	require.JSONEq(t, `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","command":"echo DENYME > `+marker+`"}`, lines[0],
		"the hook read Gemini CLI's stdin")
	var failed []string
	for _, u := range append(r.updates("tool_call"), r.updates("tool_call_update")...) {
		if u["status"] == "failed" {
			failed = append(failed, mustJSON(u["content"]))
		}
	}
	require.Len(t, failed, 1)
	require.Contains(t, failed[0], "gemini guard: DENYME is off limits")
	require.Empty(t, r.noted(methodRequestPermission), "the hook decided; the editor was never asked")
	require.Equal(t, 0, r.wait())
}
