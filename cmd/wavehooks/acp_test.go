package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/proctest"
)

// buildScriptAgent builds the scripted ACP agent of the acp package's tests.
func buildScriptAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scriptagent")
	out, err := exec.Command("go", "build", "-o", bin, "../../internal/acp/testdata/scriptagent").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// The real binary as an editor starts it: `wavehooks acp -- <agent>`. A
// prompt a UserPromptSubmit hook blocks is refused; the next goes through;
// when the agent exits mid-turn, the prompt gets an error and wavehooks
// exits with the agent's status.
func TestACPCommandEndToEnd(t *testing.T) {
	agent := buildScriptAgent(t)
	home, project, dir := t.TempDir(), t.TempDir(), t.TempDir()
	gate := filepath.Join(dir, "gate.sh")
	require.NoError(t, os.WriteFile(gate, []byte("#!/bin/sh\njq -e '.prompt | test(\"rm -rf\")' >/dev/null && { echo 'not that' >&2; exit 2; }; exit 0\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"),
		[]byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+gate+`"}]}]}}`), 0o600))
	scriptFile := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(scriptFile, []byte(`{"turns": [[{"say":"hello"},{"stop":"end_turn"}], [{"say":"bye"},{"crash":5}]]}`), 0o600))

	cmd := exec.Command(e2eBinary(t), "acp", "--wave-home", home, "--project", project, "--", agent)
	cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "HOME="+t.TempDir(),
		"WAVE_MANAGED_SETTINGS="+filepath.Join(dir, "none.json"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &proctest.Output{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	out := bufio.NewReader(stdout)
	id := 0
	call := func(method string, params any) map[string]any {
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		_, err := stdin.Write(append(b, '\n'))
		require.NoError(t, err)
		for {
			line, err := out.ReadBytes('\n')
			require.NoError(t, err, "stderr: %s", stderr.String())
			var m map[string]any
			require.NoError(t, json.Unmarshal(line, &m))
			if m["method"] == nil && m["id"] == float64(id) {
				return m
			}
		}
	}
	require.NotNil(t, call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})["result"])
	sess := call("session/new", map[string]any{"cwd": project, "mcpServers": []any{}})["result"].(map[string]any)["sessionId"].(string)
	prompt := func(text string) map[string]any {
		return call("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": text}}})
	}
	require.Equal(t, "refusal", prompt("rm -rf /")["result"].(map[string]any)["stopReason"])
	require.Equal(t, "end_turn", prompt("say hello")["result"].(map[string]any)["stopReason"])
	res := prompt("one more")
	require.Contains(t, res["error"].(map[string]any)["message"], "the agent exited (status 5)")
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "wavehooks exits with the agent's status: %v", err)
	require.Equal(t, 5, ee.ExitCode())
	require.Contains(t, stderr.String(), "UserPromptSubmit")

	data, err := os.ReadFile(filepath.Join(home, "sessions", "session_"+sess+".json"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"content":"say hello"`)
	require.NotContains(t, string(data), "rm -rf /")
}

// Without an agent command, `wavehooks acp` says how to give one.
func TestACPCommandNeedsAnAgent(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, run([]string{"acp", "--wave-home", t.TempDir()}, strings.NewReader(""), &stdout, &stderr))
	require.Contains(t, stderr.String(), "no agent command")
	require.Empty(t, stdout.String())
}

// An agent that cannot be started is an error on stderr and exit status 1.
func TestACPCommandAgentNotFound(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"acp", "--wave-home", t.TempDir(), "--project", t.TempDir(), "--", filepath.Join(t.TempDir(), "no-such-agent")},
		strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stderr.String(), "cannot start the agent")
}
