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
func buildScriptAgent(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scriptagent")
	out, err := exec.Command("go", "build", "-o", bin, "../../acp/testdata/scriptagent").CombinedOutput()
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

	ed := startACPEditor(t, home, project, agent, scriptFile, t.TempDir())
	sess := ed.newSession(project)
	prompt := func(text string) map[string]any { return ed.prompt(sess, text) }
	require.Equal(t, "refusal", prompt("rm -rf /")["result"].(map[string]any)["stopReason"])
	require.Equal(t, "end_turn", prompt("say hello")["result"].(map[string]any)["stopReason"])
	res := prompt("one more")
	require.Contains(t, res["error"].(map[string]any)["message"], "the agent exited (status 5)")
	_, _ = io.Copy(io.Discard, ed.out)
	err := ed.cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "wavehooks exits with the agent's status: %v", err)
	require.Equal(t, 5, ee.ExitCode())
	require.NotContains(t, ed.stderr.String(), "hooks ran", "the run history is not on stderr by default")
	require.Contains(t, readFileString(t, filepath.Join(home, "runs", "runs.jsonl")), `"UserPromptSubmit"`, "it is in the run log")

	data, err := os.ReadFile(filepath.Join(home, "sessions", "session_"+sess+".json"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"content":"say hello"`)
	require.NotContains(t, string(data), "rm -rf /")
}

// readFileString is a file's content; the test fails when it cannot be read.
func readFileString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// Issue #26 item 7: stderr, which acp.el shows line by line as errors and
// other editors keep as the agent's log, carries only warnings and errors
// by default; the run history is in the run log (`wavehooks log`), and
// --verbose (or --log-level info) puts its lines on stderr again.
func TestACPStderrCarriesWarningsUnlessVerbose(t *testing.T) {
	agent := buildScriptAgent(t)
	for _, c := range []struct {
		name    string
		flags   []string
		history bool // "hooks ran" lines on stderr
	}{
		{name: "default", history: false},
		{name: "verbose", flags: []string{"--verbose"}, history: true},
		{name: "log level info", flags: []string{"--log-level", "info"}, history: true},
		{name: "log level error", flags: []string{"--verbose", "--log-level", "error"}, history: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, project, dir := t.TempDir(), t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"),
				[]byte(`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`), 0o600))
			scriptFile := filepath.Join(dir, "script.json")
			require.NoError(t, os.WriteFile(scriptFile, []byte(`{"turns": [[{"stdout":"STRAY-LINE"},{"stop":"end_turn"}]]}`), 0o600))
			args := append(append([]string{"acp", "--wave-home", home, "--project", project}, c.flags...), "--", agent)
			cmd := exec.Command(e2eBinary(t), args...)
			cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "HOME="+t.TempDir(), "WAVE_MANAGED_SETTINGS="+filepath.Join(dir, "none.json"))
			lines := []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + string(mustJSONBytes(t, project)) + `,"mcpServers":[]}}`,
			}
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			stderr := &proctest.Output{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			out := bufio.NewReader(stdout)
			readUntil := func(id string) map[string]any {
				for {
					line, err := out.ReadBytes('\n')
					require.NoError(t, err, "stderr: %s", stderr.String())
					var m map[string]any
					require.NoError(t, json.Unmarshal(line, &m))
					if m["method"] == nil && string(mustJSONBytes(t, m["id"])) == id {
						return m
					}
				}
			}
			var last map[string]any
			for i, l := range lines {
				_, err := io.WriteString(stdin, l+"\n")
				require.NoError(t, err)
				last = readUntil(string(mustJSONBytes(t, i+1)))
			}
			sess := last["result"].(map[string]any)["sessionId"].(string)
			_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sess+`","prompt":[{"type":"text","text":"hi"}]}}`+"\n")
			require.NoError(t, err)
			require.Equal(t, "end_turn", readUntil("3")["result"].(map[string]any)["stopReason"])
			require.NoError(t, stdin.Close())
			_, _ = io.Copy(io.Discard, out)
			require.NoError(t, cmd.Wait())

			log := stderr.String()
			warnings := c.name != "log level error"
			require.Equal(t, warnings, strings.Contains(log, "level=WARN"), "warnings: %s", log)
			require.Equal(t, warnings, strings.Contains(log, "STRAY-LINE"), "the agent's stray output comes with its warning")
			require.Equal(t, c.history, strings.Contains(log, "hooks ran"), "the run history on stderr: %s", log)
			require.NotContains(t, log, "level=DEBUG")
			require.Contains(t, readFileString(t, filepath.Join(home, "runs", "runs.jsonl")), `"UserPromptSubmit"`,
				"the run history is in the run log either way")
		})
	}
}

func mustJSONBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
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

// acpEditor is an editor in front of the real `wavehooks acp -- <agent>`:
// it sends requests one at a time and reads until their answer.
type acpEditor struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *proctest.Output
	id     int
}

// startACPEditor starts the proxy on the scripted agent with its script,
// HOME home (the agent's), and runs initialize.
func startACPEditor(t *testing.T, waveHome, project, agent, scriptFile, home string) *acpEditor {
	t.Helper()
	cmd := exec.Command(e2eBinary(t), "acp", "--wave-home", waveHome, "--project", project, "--", agent)
	cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "HOME="+home,
		"WAVE_MANAGED_SETTINGS="+filepath.Join(t.TempDir(), "none.json"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	e := &acpEditor{t: t, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), stderr: &proctest.Output{}}
	cmd.Stderr = e.stderr
	require.NoError(t, cmd.Start())
	require.NotNil(t, e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})["result"])
	return e
}

// call sends a request and returns its answer, passing over what comes before it.
func (e *acpEditor) call(method string, params any) map[string]any {
	e.t.Helper()
	e.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.id, "method": method, "params": params})
	_, err := e.stdin.Write(append(b, '\n'))
	require.NoError(e.t, err)
	for {
		line, err := e.out.ReadBytes('\n')
		require.NoError(e.t, err, "stderr: %s", e.stderr.String())
		var m map[string]any
		require.NoError(e.t, json.Unmarshal(line, &m))
		if m["method"] == nil && m["id"] == float64(e.id) {
			return m
		}
	}
}

// newSession opens a session in cwd and returns its id.
func (e *acpEditor) newSession(cwd string) string {
	return e.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})["result"].(map[string]any)["sessionId"].(string)
}

// prompt sends a text prompt and returns the whole answer (result or error).
func (e *acpEditor) prompt(sess, text string) map[string]any {
	return e.call("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": text}}})
}
