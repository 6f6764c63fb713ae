package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	e2eOnce sync.Once
	e2eBin  string
	e2eErr  error
)

// e2eBinary builds the real wavehooks binary once for the end-to-end tests.
func e2eBinary(t testing.TB) string {
	t.Helper()
	e2eOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wavehooks-e2e-")
		if err != nil {
			e2eErr = err
			return
		}
		e2eBin = filepath.Join(dir, "wavehooks")
		out, err := exec.Command("go", "build", "-o", e2eBin, ".").CombinedOutput()
		if err != nil {
			e2eErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, e2eErr)
	return e2eBin
}

var scriptsDir = func() string {
	p, _ := filepath.Abs("../../testdata/hooks")
	return p
}()

// cliEnv is a WAVE_HOME with settings and a project directory.
type cliEnv struct {
	home, project string
}

func newCLIEnv(t *testing.T, settings string) cliEnv {
	t.Helper()
	env := cliEnv{home: t.TempDir(), project: t.TempDir()}
	settings = strings.ReplaceAll(settings, "$SCRIPTS", scriptsDir)
	require.NoError(t, os.WriteFile(filepath.Join(env.home, "settings.json"), []byte(settings), 0o644))
	return env
}

func (c cliEnv) run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(e2eBinary(t), args...)
	cmd.Dir = c.project
	cmd.Env = append(os.Environ(), "WAVE_HOME="+c.home, "HOME="+c.home)
	return runWithStdin(t, cmd, stdin)
}

// runWithStdin runs cmd with stdin, and returns its stdout, its stderr and
// its exit code; failing to start it fails the test.
func runWithStdin(t *testing.T, cmd *exec.Cmd, stdin string) (string, string, int) {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errOut.String(), code
}

const demoSettings = `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]},
                 {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "$SCRIPTS/ask-write.sh"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$SCRIPTS/prompt-context.sh"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 0.3}]}]}}`

func TestRunPrintsTheMethodResult(t *testing.T) {
	env := newCLIEnv(t, demoSettings)
	cases := []struct {
		name, event, stdin string
		check              func(t *testing.T, r map[string]any)
	}{
		{"a denied command", "PreToolUse", `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`,
			func(t *testing.T, r map[string]any) {
				require.Equal(t, "deny", r["permission"])
				require.Contains(t, r["reason"], "recursive delete is blocked")
				require.Equal(t, false, r["asked"])
			}},
		{"an ask is printed, not prompted", "PreToolUse", `{"tool_name":"Write","tool_use_id":"t2","tool_input":{"file_path":"/etc/hosts"}}`,
			func(t *testing.T, r map[string]any) {
				require.Equal(t, "ask", r["permission"])
				require.Contains(t, r["reason"], "outside src/")
			}},
		{"injected context", "UserPromptSubmit", `{"prompt":"hello"}`,
			func(t *testing.T, r map[string]any) {
				require.Equal(t, false, r["blocked"])
				require.Contains(t, fmt.Sprint(r["additionalContext"]), "Project conventions")
			}},
		{"a timeout", "Stop", `{}`,
			func(t *testing.T, r map[string]any) {
				require.Equal(t, false, r["blocked"])
				require.Contains(t, fmt.Sprint(r["blocks"]), "hook timed out after 300ms")
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := env.run(t, c.stdin, "run", c.event)
			require.Equal(t, 0, code, stderr)
			var r map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &r), out)
			require.IsType(t, []any{}, r["blocks"], "blocks is always an array")
			c.check(t, r)
		})
	}
}

func TestRunExplain(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"matcher": "Edit.*", "hooks": [{"type": "command", "command": "exit 2"}]},
		{"hooks": [{"type": "command", "command": "cat >/dev/null; echo '{\"decision\": \"block\"}'"}]}]}}`)
	out, _, code := env.run(t, `{"tool_name":"Write","tool_input":{}}`, "run", "PreToolUse", "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, out, "matcher `Edit.*` is a regex and does not match `Write`")
	require.Contains(t, out, "did not run: the matcher does not match")
	require.Contains(t, out, "ran in")
	require.Contains(t, out, `"hook_event_name":"PreToolUse"`)
}

func TestRunRejectsBadInvocations(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	_, stderr, code := env.run(t, `{}`, "run", "PreToolUs")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown event "PreToolUs"`)
	_, stderr, code = env.run(t, `not json`, "run", "Stop")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "must be a JSON object")
	// 4 MB nested 2,000,000 deep: refused before any decoder sees it (the
	// one run uses recurses once per level; issue #12).
	deep := `{"tool_name":"Bash","tool_use_id":"t","tool_input":{"a":` + strings.Repeat("[", 2_000_000) + strings.Repeat("]", 2_000_000) + `}}`
	_, stderr, code = env.run(t, deep, "run", "PreToolUse")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "nested at most 128 levels deep")
}

func TestLint(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"Stopp": [], "Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}]}}`)
	out, _, code := env.run(t, "", "lint", "--project", env.project)
	require.Equal(t, 1, code, "an error fails the lint")
	require.Contains(t, out, `settings.json:1:12: error: unknown hook event "Stopp"; did you mean "Stop"? [unknown-event]`)
	out, _, _ = env.run(t, "", "lint", "--format", "json")
	var diags []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &diags))
	require.Len(t, diags, 2)
	require.Equal(t, "warning", diags[1]["severity"])

	clean := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	out, stderr, code := clean.run(t, "", "lint", "--format", "json")
	require.Equal(t, 0, code)
	require.Equal(t, "[]\n", out)
	require.Empty(t, stderr, "a clean file with --format json says nothing on stderr")
	_, stderr, _ = clean.run(t, "", "lint")
	require.Contains(t, stderr, "1 hook(s), 0 error(s), 0 warning(s)")
}

func TestDemo(t *testing.T) {
	cmd := exec.Command(e2eBinary(t), "demo", "--dir", "../../testdata/demo")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, want := range []string{
		"recursive delete is blocked by policy",
		"[error] hook timed out after 1s",
		"a hook asks the user",
		"[hook:PostToolUse] Reminder after Write",
		"the Stop hook blocked: the agent continues",
		"→ the agent stops",
		"══ The conversation",
	} {
		require.Contains(t, string(out), want)
	}
}

// lspProc is the real server binary on real pipes.
type lspProc struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	seq int
}

func startServe(t *testing.T, env cliEnv) *lspProc {
	cmd := exec.Command(e2eBinary(t), "serve", "--stdio")
	cmd.Dir = env.project
	cmd.Env = append(os.Environ(), "WAVE_HOME="+env.home, "HOME="+env.home)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &lspProc{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

func (p *lspProc) write(msg map[string]any) {
	b, _ := json.Marshal(msg)
	_, err := fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	require.NoError(p.t, err)
}

func (p *lspProc) read() map[string]any {
	n := -1
	for {
		line, err := p.out.ReadString('\n')
		require.NoError(p.t, err)
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(p.out, body)
	require.NoError(p.t, err)
	var m map[string]any
	require.NoError(p.t, json.Unmarshal(body, &m))
	return m
}

// call sends a request and reads until its response, answering server
// requests (asks) with answer.
func (p *lspProc) call(method string, params any, answer string) map[string]any {
	p.seq++
	id := float64(p.seq)
	p.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		m := p.read()
		if m["method"] == "window/showMessageRequest" {
			var result any
			if answer != "" {
				result = map[string]any{"title": answer}
			}
			p.write(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": result})
			continue
		}
		if m["id"] == id && m["method"] == nil {
			return m
		}
	}
}

// TestServeEndToEnd runs the built binary over real pipes: a session with a
// denied tool, an ask the editor allows, a broken frame, and a clean exit.
func TestServeEndToEnd(t *testing.T) {
	env := newCLIEnv(t, demoSettings)
	p := startServe(t, env)
	init := p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	require.Equal(t, "wavehooks", init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"])
	p.write(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})

	start := p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)
	sid := start["sessionId"].(string)
	require.FileExists(t, start["transcriptPath"].(string))
	require.Contains(t, start["transcriptPath"], filepath.Join(env.home, "sessions"))

	deny := p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf /tmp/x"}}, "")["result"].(map[string]any)
	require.Equal(t, "deny", deny["permission"])

	ask := p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
		"toolInput": map[string]any{"file_path": filepath.Join(env.project, "x.txt")}}, "Allow")["result"].(map[string]any)
	require.Equal(t, "allow", ask["permission"])
	require.Equal(t, true, ask["asked"])

	// A body that is not JSON gets a parse error and the connection goes on.
	_, err := fmt.Fprintf(p.in, "Content-Length: 5\r\n\r\n{oops")
	require.NoError(t, err)
	for {
		m := p.read()
		if e, ok := m["error"].(map[string]any); ok {
			require.Equal(t, float64(-32700), e["code"])
			break
		}
	}
	got := p.call("wave/getSession", map[string]any{"sessionId": sid}, "")["result"].(map[string]any)
	require.Contains(t, fmt.Sprint(got["messages"]), "recursive delete is blocked")

	require.Contains(t, p.call("shutdown", nil, ""), "result")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "exit after shutdown ends with status 0")
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit")
	}
}

func TestServeExitsWhenTheEditorGoesAway(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	require.NoError(t, p.in.Close())
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, 1, ee.ExitCode(), "no shutdown came first")
	case <-time.After(10 * time.Second):
		t.Fatal("server kept running after its stdin closed")
	}
}

// TestRunHookTypes runs the real binary on each hook type: an http hook
// posts to a loopback service; prompt, agent and mcp_tool hooks need an
// agent host, which `wavehooks run` is not, and say so.
func TestRunHookTypes(t *testing.T) {
	var mu sync.Mutex
	var posted []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		posted = append(posted, body)
		mu.Unlock()
		_, _ = io.WriteString(w, `{"decision": "block", "reason": "the review service wants tests first"}`)
	}))
	defer srv.Close()
	env := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [
		{"type": "http", "url": "`+srv.URL+`/stop"},
		{"type": "prompt", "prompt": "Done? $ARGUMENTS"},
		{"type": "agent", "prompt": "Verify the tests"},
		{"type": "mcp_tool", "server": "ci", "tool": "status"}]}]}}`)
	out, stderr, code := env.run(t, `{"session_id": "s1"}`, "run", "Stop")
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, true, res["blocked"])
	require.Equal(t, "the review service wants tests first", res["reason"])
	mu.Lock()
	require.Len(t, posted, 1)
	require.Equal(t, "Stop", posted[0]["hook_event_name"])
	require.Equal(t, "s1", posted[0]["session_id"])
	mu.Unlock()
	for _, h := range []string{"prompt hook `prompt: Done? $ARGUMENTS`", "agent hook `agent: Verify the tests`", "mcp_tool hook `mcp_tool ci/status`"} {
		require.Contains(t, stderr, "wavehooks run: "+h+" did not run: it needs an agent host")
	}
	require.Contains(t, out, "did not run: it needs an agent host", "a warn block in the result says so too")

	explained, _, code := env.run(t, `{"session_id": "s1"}`, "run", "Stop", "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, explained, "hook 2: prompt: Done? $ARGUMENTS")
	require.Contains(t, explained, "did not run: needs an agent host: no agent host is connected to evaluate it")
	require.Contains(t, explained, "ran in ")
	require.Contains(t, explained, "HTTP 200")

	lint, lintErr, code := env.run(t, "", "lint")
	require.Equal(t, 0, code, lint+lintErr)
	require.Equal(t, "1 settings file(s), 4 hook(s), 0 error(s), 0 warning(s)\n", lint+lintErr)
}
