//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/conformance"
)

// exportGuard is a wavehooks PreToolUse hook, written for Claude Code's
// stdin and answer: it refuses a shell command that says DENYME, and logs
// each run.
const exportGuard = `#!/bin/sh
input=$(cat)
printf '%s\n' "$input" | jq -c '{hook_event_name, tool_name, command: .tool_input.command}' >> "$LOG"
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *DENYME*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "exported guard: DENYME is off limits"}}' ;;
esac
`

// exportSetup is a user's wavehooks settings with the guard, and where it logs.
func exportSetup(t *testing.T) (waveHome, log string) {
	t.Helper()
	waveHome, dir := t.TempDir(), t.TempDir()
	log = filepath.Join(dir, "runs.jsonl")
	guard := filepath.Join(dir, "guard.sh")
	require.NoError(t, os.WriteFile(guard, []byte(exportGuard), 0o755))
	cmd := "LOG='" + log + "' sh '" + guard + "'"
	settingsJSON, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30}}}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(waveHome, "settings.json"), settingsJSON, 0o600))
	return waveHome, log
}

// export runs `wavehooks hooks export --to AGENT` with HOME (and the
// agents' homes under it) at home.
func export(t *testing.T, to, waveHome, home string) {
	t.Helper()
	cmd := exec.Command(e2eBinary(t), "hooks", "export", "--to", to, "--wave-home", waveHome, "--project", t.TempDir())
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "exported 1 hook(s) to "+to)
}

// wavehooksDecides is wavehooks' own decision on a Bash command, through
// `wavehooks run`, for the same decision to be compared with the agent's.
func wavehooksDecides(t *testing.T, waveHome, command string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/", "tool_name": "Bash", "tool_input": map[string]string{"command": command}})
	cmd := exec.Command(e2eBinary(t), "run", "PreToolUse", "--wave-home", waveHome, "--project", t.TempDir())
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, _ := cmd.Output()
	return string(out)
}

func logLines(t *testing.T, log string) []string {
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// Exported to Claude Code (~/.claude/settings.json), the guard is run by the
// real Claude Code CLI (offline, a scripted model): the DENYME command is
// refused with the guard's reason, as wavehooks refuses it, and another
// command runs (--allowedTools Bash: nothing but the hook refuses anything).
func TestExportThenClaudeCodeDecides(t *testing.T) {
	bin, err := conformance.FindClaude(filepath.Join("..", "..", ".cache", "claude-code-"+conformance.PinnedClaudeVersion))
	if err != nil {
		t.Skip("SKIPPED: the Claude Code CLI is not installed (conformance/install-claude-code.sh): " + err.Error())
	}
	waveHome, log := exportSetup(t)
	home, project := t.TempDir(), t.TempDir()
	export(t, "claude", waveHome, home)
	require.Contains(t, wavehooksDecides(t, waveHome, "echo DENYME"), "exported guard: DENYME is off limits", "wavehooks denies it")

	denied, allowed := filepath.Join(project, "denied.txt"), filepath.Join(project, "allowed.txt")
	api, err := conformance.StartFakeAPI([][]conformance.Block{
		{conformance.Call("toolu_1", "Bash", map[string]any{"command": "echo DENYME > " + denied})},
		{conformance.Call("toolu_2", "Bash", map[string]any{"command": "echo ok > " + allowed})},
		{conformance.Say("DONE")},
	}, "")
	require.NoError(t, err)
	defer api.Close()
	run := conformance.ClaudeRun{Binary: bin, Dir: project, Home: home, TmpDir: t.TempDir(), Prompt: "run them", API: api,
		Args: []string{"--allowedTools", "Bash"}, Timeout: 3 * time.Minute}
	res, err := run.Run(context.Background())
	require.NoError(t, err)
	require.False(t, res.TimedOut)
	require.Equal(t, 0, res.ExitCode, "%s", res.Stderr)
	_, err = os.Stat(denied)
	require.True(t, os.IsNotExist(err), "Claude Code refused the DENYME command: %s", res.Stdout)
	require.FileExists(t, allowed, "and ran the other one: %s", res.Stdout)
	require.Len(t, logLines(t, log), 3, "wavehooks' own run, then the exported hook once per call of Claude Code's")
	require.Contains(t, string(res.Stdout), "exported guard: DENYME is off limits", "with the guard's reason")
}

// Exported to Gemini CLI (~/.gemini/settings.json, its other settings
// kept), the guard runs through the shim in headless Gemini CLI (offline, a
// scripted model, --approval-mode yolo: nothing but the hook refuses): it
// reads Claude Code's stdin, and Gemini CLI reads its deny.
func TestExportThenGeminiCLIDecides(t *testing.T) {
	entry := filepath.Join("..", "..", ".cache", "gemini-cli", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skip("SKIPPED: Gemini CLI is not installed (acp/testdata/gemini/install.sh): " + err.Error())
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: Gemini CLI needs node: " + err.Error())
	}
	entry, _ = filepath.Abs(entry)
	waveHome, log := exportSetup(t)
	home, project, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{
	  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
	  "telemetry": {"enabled": false}, "privacy": {"usageStatisticsEnabled": false},
	  "general": {"disableAutoUpdate": true, "enableAutoUpdate": false}, "ide": {"enabled": false}, "tools": {"sandbox": false}}`), 0o600))
	export(t, "gemini", waveHome, home)
	text, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	require.NoError(t, err)
	require.Contains(t, string(text), `"folderTrust": {"enabled": false}`, "Gemini CLI's own settings are kept")

	denied, allowed := filepath.Join(project, "denied.txt"), filepath.Join(project, "allowed.txt")
	turn := func(parts ...map[string]any) string {
		b, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
			"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}}}}})
		return string(b) + "\n"
	}
	shell := func(c string) map[string]any {
		return map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]string{"command": c}}}
	}
	fake := filepath.Join(t.TempDir(), "model.jsonl")
	require.NoError(t, os.WriteFile(fake, []byte(turn(shell("echo DENYME > "+denied))+turn(shell("echo ok > "+allowed))+
		turn(map[string]any{"text": "DONE"})), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, entry, "-p", "run them", "--approval-mode", "yolo", "--fake-responses-non-strict", fake)
	cmd.Dir = project
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_HOME=" + home, "TMPDIR=" + tmp,
		"GEMINI_API_KEY=offline-test-key", "NO_COLOR=1"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, err = os.Stat(denied)
	require.True(t, os.IsNotExist(err), "Gemini CLI refused the DENYME command: %s", out)
	require.FileExists(t, allowed, "and ran the other one: %s", out)
	lines := logLines(t, log)
	require.Len(t, lines, 2, "the exported hook ran once per call")
	require.JSONEq(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","command":"echo DENYME > `+denied+`"}`, lines[0],
		"the hook read Claude Code's stdin inside Gemini CLI")
}
