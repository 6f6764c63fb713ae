//go:build linux

package acp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// codexStandIn is the scripted agent under the name codex-acp: a script
// that keeps the arguments it was started with and runs the scripted agent.
func codexStandIn(t *testing.T) (command, argsFile string) {
	t.Helper()
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args")
	command = filepath.Join(dir, "codex-acp")
	require.NoError(t, os.WriteFile(command, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > '"+argsFile+"'\nexec '"+scriptAgent+"'\n"), 0o755))
	return command, argsFile
}

// The codex-acp bridge with the scripted agent in codex-acp's place, so it
// is checked where codex-acp is not installed: the agent is started with
// the bridge's hook and its trust as -c overrides (and its sessions get no
// Claude Code settings); that hook, run as Codex runs it (sh -c, Codex's
// hook input on stdin), denies rm -rf with Codex's deny output and tells
// the editor why (a failed tool card, one message), leaves an allowed
// command to Codex's mode ({}), and puts a hook's ask to the user through
// the editor, once, with the hook's reason; once the proxy has ended, the
// hook fails closed (exit 2, the reason on stderr, nothing on stdout). Both
// hook programs (wavehooks-hook, `wavehooks acp-hook`) are run so.
// TestCodexACP proves with the real Codex that it runs and trusts this hook
// in every mode.
func TestCodexBridgeWithScriptedAgent(t *testing.T) {
	for _, hc := range hookClients(t) {
		t.Run(hc.name, func(t *testing.T) { testCodexBridgeWithScriptedAgent(t, hc) })
	}
}

// testCodexBridgeWithScriptedAgent is TestCodexBridgeWithScriptedAgent
// with one hook program.
func testCodexBridgeWithScriptedAgent(t *testing.T, hc hookClientCase) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	agent, argsFile := codexStandIn(t)
	r := startRig(t, rigOptions{project: project, script: `{"turns": [[{"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = hc.bin; o.TrustWorkspace = true; o.Agent = []string{agent} }})
	sess := r.handshake()

	command := codexHookCommand(t, argsFile)
	require.Contains(t, command, hc.command)
	require.Contains(t, r.stderr.String(), hc.log)
	news := r.agentGot("session/new")
	require.Len(t, news, 1)
	require.NotContains(t, mustJSON(news[0]), "claudeCode", "codex-acp's sessions get no Claude Code settings")

	input := func(toolUseID, shell string) []byte {
		return mustRaw(map[string]any{"session_id": sess, "turn_id": "turn-1", "cwd": project, "hook_event_name": "PreToolUse",
			"model": "gpt-5-codex", "permission_mode": "bypassPermissions", "tool_name": "Bash",
			"tool_input": map[string]any{"command": shell}, "tool_use_id": toolUseID})
	}
	// codexRunsHook runs the bridge's hook as Codex does, reading the
	// editor's side until it has seen `until` (the rig answers the proxy's
	// question with Allow), and returns the hook's stdout.
	codexRunsHook := func(toolUseID, shell, until string) string {
		t.Helper()
		done := runCommand(command, input(toolUseID, shell))
		for until != "" {
			msg := r.read()
			require.NotNil(t, msg)
			if strings.Contains(msg.Line, until) {
				break
			}
		}
		res := <-done
		require.NoError(t, res.err, "stderr: %s", res.stderr)
		return string(res.out)
	}

	deny := codexRunsHook("call_deny", "rm -rf build", "[wavehooks] PreToolUse hook")
	var answer struct {
		Specific map[string]any `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(deny), &answer), deny)
	require.Equal(t, "deny", answer.Specific["permissionDecision"])
	require.Contains(t, answer.Specific["permissionDecisionReason"], denyReason, "Codex's model reads the reason")
	require.Contains(t, r.lastFailure(sess), denyReason, "the editor is shown the blocked call, failed, with the reason")
	require.Len(t, r.sessionMessages(sess, denyReason), 1, "and the reason once in the agent's reply")

	require.Equal(t, "{}", codexRunsHook("call_ok", "echo CODEX-OK", ""), "an allow leaves Codex's mode to decide")
	require.Zero(t, r.countNoted(methodRequestPermission), "the editor was not asked")

	ask := codexRunsHook("call_ask", "touch ASKME", methodRequestPermission)
	require.Equal(t, "{}", ask, "the user allowed it: Codex's mode decides")
	asked := r.noted(methodRequestPermission)
	require.Len(t, asked, 1, "the user was asked once")
	require.Contains(t, asked[0].Line, askReason, "with the hook's reason")
	require.Contains(t, asked[0].Line, "touch ASKME")
	for _, s := range []string{"rm -rf build", "CODEX-OK", "touch ASKME"} {
		require.Len(t, h.runs(t, "PreToolUse", s), 1, "PreToolUse ran once for %s", s)
	}

	require.Equal(t, 0, r.wait())
	res := <-runCommand(command, input("call_after", "echo AFTER"))
	var exit *exec.ExitError
	require.ErrorAs(t, res.err, &exit, "stdout: %s", res.out)
	require.Equal(t, 2, exit.ExitCode(), "a hook with no proxy blocks the call (Codex reads exit 2 as a block)")
	require.Empty(t, res.out, "and prints no answer Codex could read as one")
	require.Contains(t, res.stderr, "the tool is not allowed")
	require.Contains(t, res.stderr, "the wavehooks proxy is not reachable")
	require.Empty(t, h.runs(t, "PreToolUse", "AFTER"))
}

// codexHookCommand is the bridge's hook command the proxy gave the agent
// started as codex-acp (codexStandIn), read from its -c overrides, which
// must be the hook and its trusted hash.
func codexHookCommand(t *testing.T, argsFile string) string {
	t.Helper()
	args := strings.Split(strings.TrimSpace(readFile(t, argsFile)), "\n")
	require.Len(t, args, 4, "two -c overrides: %q", args)
	require.Equal(t, []string{"-c", "-c"}, []string{args[0], args[2]})
	m := regexp.MustCompile(`^hooks\.PreToolUse=\[\{hooks=\[\{type="command",command="(.*)",timeout=3600\}\]\}\]$`).FindStringSubmatch(args[1])
	require.NotNil(t, m, "the hook override: %s", args[1])
	command := strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[1])
	require.Contains(t, command, " --socket ")
	require.Regexp(t, `^hooks\.state=\{"/<session-flags>/config\.toml:pre_tool_use:0:0"=\{trusted_hash="sha256:[0-9a-f]{64}"\}\}$`, args[3])
	return command
}

// A bridge whose hook command Codex's trust could hash differently (here:
// a wavehooks path with a non-ASCII letter) is not given to Codex: every
// session is refused with the reason, not started with tools no hook sees.
func TestCodexBridgeThatCannotBeTrustedRefusesSessions(t *testing.T) {
	agent, _ := codexStandIn(t)
	r := startRig(t, rigOptions{script: `{"turns": [[{"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = "/opt/wavé/wavehooks"; o.Agent = []string{agent} }})
	r.initialize(nil)
	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.NotNil(t, res.Error, res.Line)
	require.Contains(t, res.Line, "wavehooks cannot guard this agent's tool calls")
	require.Contains(t, res.Line, "trust hash")
	require.Empty(t, r.agentGot("session/new"), "the session never reached the agent")
}
