package telemetry_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// buildOnce builds a binary once per test process; the Go build cache
// keeps it across processes.
type buildOnce struct {
	once sync.Once
	path string
	out  string
	err  error
}

var wavehooksBin, collectorBin, scriptAgentBin buildOnce

func (b *buildOnce) build(t testing.TB, dir, pkg, name string) (string, string, error) {
	t.Helper()
	b.once.Do(func() {
		tmp, err := os.MkdirTemp("", "wavehooks-telemetry-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(tmp, name)
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		b.out, b.err = string(out), err
	})
	return b.path, b.out, b.err
}

// otelcol builds the collector of testdata/otelcol (the OTLP receiver and
// the contrib file exporter, all at one release), or skips the test when
// its modules cannot be downloaded; any other build failure fails it.
func otelcol(t testing.TB) string {
	t.Helper()
	start := time.Now()
	path, out, err := collectorBin.build(t, filepath.Join("testdata", "otelcol"), ".", "otelcol")
	if err != nil {
		for _, offline := range []string{"dial tcp", "no such host", "i/o timeout", "GOPROXY", "GOFLAGS=-mod=mod",
			"module lookup disabled", "connection refused", "410 Gone", "404 Not Found", "TLS handshake"} {
			if strings.Contains(out, offline) {
				t.Skipf("SKIPPED: the OpenTelemetry Collector cannot be built here, its modules cannot be downloaded: %v\n%s", err, out)
			}
		}
		t.Fatalf("building the collector (testdata/otelcol): %v\n%s", err, out)
	}
	t.Logf("collector built (or found in Go's build cache) in %s", time.Since(start).Round(time.Millisecond))
	return path
}

func wavehooks(t *testing.T) string {
	t.Helper()
	path, out, err := wavehooksBin.build(t, filepath.Join("..", ".."), "./cmd/wavehooks", "wavehooks")
	require.NoError(t, err, out)
	return path
}

// acpSession is an ACP editor's session through the real proxy
// (`wavehooks acp -- scriptagent`, the acp package's scripted agent): one
// prompt, answered, then the editor closes the connection and the proxy
// exits (sending what its exporter queued). It returns the proxy's stderr.
func acpSession(t *testing.T, bin, home, project string, env []string) string {
	t.Helper()
	agent, out, err := scriptAgentBin.build(t, filepath.Join("..", ".."), "./acp/testdata/scriptagent", "scriptagent")
	require.NoError(t, err, out)
	script := filepath.Join(t.TempDir(), "agent.json")
	require.NoError(t, os.WriteFile(script, []byte(`{"turns": [[{"say":"hello"},{"stop":"end_turn"}]]}`), 0o600))
	cmd := exec.Command(bin, "acp", "--wave-home", home, "--project", project, "--", agent)
	cmd.Env = append(append(os.Environ(), "AGENT_SCRIPT="+script, "HOME="+home), env...)
	projectJSON, _ := json.Marshal(project)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &proctest.Output{} // read while the proxy writes it
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	lines := bufio.NewReader(stdout)
	// answer sends a request and reads the proxy's lines up to its answer.
	answer := func(id int, line string) string {
		_, err := io.WriteString(stdin, line+"\n")
		require.NoError(t, err)
		for {
			got, err := lines.ReadString('\n')
			require.NoError(t, err, stderr.String())
			if strings.Contains(got, fmt.Sprintf(`"id":%d,`, id)) {
				return got
			}
		}
	}
	answer(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	answer(2, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+string(projectJSON)+`,"mcpServers":[]}}`)
	res := answer(3, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hello"}]}}`)
	require.Contains(t, res, `"stopReason":"end_turn"`, stderr.String())
	require.NoError(t, stdin.Close()) // the editor goes: the proxy ends
	_, _ = io.Copy(io.Discard, lines)
	require.NoError(t, cmd.Wait(), stderr.String())
	return stderr.String()
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// collector is a running collector and the files its exporters write.
type collector struct {
	cmd          *exec.Cmd
	logs, traces string
	port         int
	stderr       *bytes.Buffer
}

const collectorConfig = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file/logs:
    path: %s
    flush_interval: 100ms
  file/traces:
    path: %s
    flush_interval: 100ms
service:
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file/logs]
    traces:
      receivers: [otlp]
      exporters: [file/traces]
`

func startCollector(t testing.TB, bin string) *collector {
	t.Helper()
	dir := t.TempDir()
	c := &collector{logs: filepath.Join(dir, "logs.jsonl"), traces: filepath.Join(dir, "traces.jsonl"),
		port: freePort(t), stderr: &bytes.Buffer{}}
	conf := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf(collectorConfig, c.port, c.logs, c.traces)), 0o600))
	c.cmd = exec.Command(bin, "--config", conf)
	c.cmd.Stdout, c.cmd.Stderr = c.stderr, c.stderr
	require.NoError(t, c.cmd.Start())
	t.Cleanup(c.stop)
	addr := fmt.Sprintf("127.0.0.1:%d", c.port)
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return false
		}
		conn.Close()
		return true
	}, 60*time.Second, 50*time.Millisecond, "the collector does not listen on %s", addr)
	return c
}

// stop ends the collector as a deployment would (SIGTERM: it flushes its
// exporters) and waits for it.
func (c *collector) stop() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// otlpAttrs reads an OTLP JSON attribute list into strings.
func otlpAttrs(list []map[string]any) map[string]string {
	out := map[string]string{}
	for _, kv := range list {
		v, _ := kv["value"].(map[string]any)
		for _, x := range v {
			out[fmt.Sprint(kv["key"])] = fmt.Sprint(x)
		}
	}
	return out
}

// exported is one log record or span the collector wrote: its event name
// (logs) or span name, and its attributes.
type exported struct {
	name  string
	attrs map[string]string
}

// readExported reads the file exporter's JSON lines (one OTLP export
// request each); a file not written yet is nothing exported.
func readExported(path string) ([]exported, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []exported
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []struct {
						EventName  string           `json:"eventName"`
						Attributes []map[string]any `json:"attributes"`
					} `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Name       string           `json:"name"`
						Attributes []map[string]any `json:"attributes"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, r := range sl.LogRecords {
					out = append(out, exported{name: r.EventName, attrs: otlpAttrs(r.Attributes)})
				}
			}
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, exported{name: s.Name, attrs: otlpAttrs(s.Attributes)})
				}
			}
		}
	}
	return out, sc.Err()
}

// scriptedEvent is one event of the scripted session and the answer its
// sh+jq hooks give.
type scriptedEvent struct {
	event, stdin   string
	wantPermission string // the printed result's permission ("" for an event without one; "allow" when no hook decided)
	wantDecision   string // the exported decision attribute
	wantLogEvent   string
}

const hooksSettings = `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]},
                 {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "$SCRIPTS/ask-write.sh"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$SCRIPTS/prompt-context.sh"}]}]}}`

func scriptedSession(round string) []scriptedEvent {
	return []scriptedEvent{
		{event: "UserPromptSubmit", stdin: `{"session_id":"` + round + `-1","prompt":"clean up"}`,
			wantDecision: "none", wantLogEvent: "wavehooks.hook_decision"},
		{event: "PreToolUse", stdin: `{"session_id":"` + round + `-2","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`,
			wantPermission: "deny", wantDecision: "reject", wantLogEvent: "wavehooks.tool_decision"},
		{event: "PreToolUse", stdin: `{"session_id":"` + round + `-3","tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"ls"}}`,
			wantPermission: "allow", wantDecision: "none", wantLogEvent: "wavehooks.tool_decision"},
		{event: "PreToolUse", stdin: `{"session_id":"` + round + `-4","tool_name":"Write","tool_use_id":"t3","tool_input":{"file_path":"/etc/hosts"}}`,
			wantPermission: "ask", wantDecision: "ask", wantLogEvent: "wavehooks.tool_decision"},
	}
}

// runEvent runs `wavehooks run EVENT` as an agent's host would, with env
// added, and returns the printed result's permission.
func runEvent(t *testing.T, bin, home, project string, env []string, ev scriptedEvent) string {
	t.Helper()
	cmd := exec.Command(bin, "run", ev.event)
	cmd.Dir = project
	cmd.Env = append(append(os.Environ(), "WAVE_HOME="+home, "HOME="+home), env...)
	cmd.Stdin = strings.NewReader(ev.stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	var res struct {
		Permission string `json:"permission"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	return res.Permission
}

// A scripted session's every decision — `wavehooks run` events and an ACP
// proxy's session — arrives at a real OpenTelemetry Collector exactly once,
// as a log record (and, for the run events, a span); with the collector
// stopped the hooks answer the same, and the runs that could not be sent
// are counted and shown by `wavehooks log`.
func TestEveryDecisionReachesARealCollectorOnce(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("SKIPPED: jq is not installed (the hooks read their stdin with it)")
	}
	col := startCollector(t, otelcol(t))
	bin := wavehooks(t)
	home, project := t.TempDir(), t.TempDir()
	scripts, err := filepath.Abs(filepath.Join("..", "..", "testdata", "hooks"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"),
		[]byte(strings.ReplaceAll(hooksSettings, "$SCRIPTS", scripts)), 0o600))
	env := []string{fmt.Sprintf("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:%d", col.port),
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_EXPORTER_OTLP_HEADERS=x-team=platform"}

	up := scriptedSession("up")
	for _, ev := range up {
		require.Equal(t, ev.wantPermission, runEvent(t, bin, home, project, env, ev), ev.stdin)
	}
	// The same through wavehooks' own setting instead of the variables.
	fileHome := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(fileHome, "settings.json"),
		[]byte(strings.ReplaceAll(hooksSettings, "$SCRIPTS", scripts)), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(fileHome, telemetry.SettingsFile), []byte(fmt.Sprintf(
		`{"endpoint": "http://127.0.0.1:%d", "headers": {"x-team": "platform"}}`, col.port)), 0o600))
	bySetting := scriptedEvent{event: "PreToolUse", stdin: `{"session_id":"setting-1","tool_name":"Bash","tool_use_id":"t9","tool_input":{"command":"rm -rf /"}}`,
		wantPermission: "deny", wantDecision: "reject", wantLogEvent: "wavehooks.tool_decision"}
	require.Equal(t, "deny", runEvent(t, bin, fileHome, project, nil, bySetting))

	// The ACP proxy's UserPromptSubmit of session sess-1, through the same
	// exporter: the proxy sends its queue when the editor goes.
	acpSession(t, bin, home, project, env)

	// Each `wavehooks run` sent its runs before it exited, and the
	// collector writes what it received when it is stopped: what the files
	// hold then is everything that arrived.
	col.stop()
	logs, err := readExported(col.logs)
	require.NoError(t, err)
	spans, err := readExported(col.traces)
	require.NoError(t, err)
	for _, ev := range append(up, bySetting) {
		var session string
		var in map[string]any
		require.NoError(t, json.Unmarshal([]byte(ev.stdin), &in))
		session = in["session_id"].(string)
		var got []exported
		for _, r := range logs {
			if r.attrs["session.id"] == session && strings.HasSuffix(r.name, "_decision") {
				got = append(got, r)
			}
		}
		require.Len(t, got, 1, "session %s: its decision arrives exactly once", session)
		require.Equal(t, ev.wantLogEvent, got[0].name)
		require.Equal(t, ev.wantDecision, got[0].attrs["decision"], session)
		require.Equal(t, "hook", got[0].attrs["source"])
		require.Equal(t, ev.event, got[0].attrs["hook_event_name"])
		if ev.event == "PreToolUse" {
			require.Equal(t, in["tool_name"], got[0].attrs["tool_name"])
		}
		n := 0
		for _, s := range spans {
			if s.name == "wavehooks.hook_event" && s.attrs["session.id"] == session {
				n++
				require.Equal(t, ev.wantDecision, s.attrs["decision"])
			}
		}
		require.Equal(t, 1, n, "session %s: one span for its event", session)
	}
	var proxied []exported
	for _, r := range logs {
		if r.attrs["session.id"] == "sess-1" && strings.HasSuffix(r.name, "_decision") {
			proxied = append(proxied, r)
		}
	}
	require.Len(t, proxied, 1, "the proxy's decision arrives exactly once")
	require.Equal(t, "UserPromptSubmit", proxied[0].attrs["hook_event_name"])
	out, err := exec.Command(bin, "log", "--wave-home", home).CombinedOutput()
	require.NoError(t, err, string(out))
	require.NotContains(t, string(out), "not exported", "nothing was dropped while the collector ran")

	// With the collector down the hooks answer as before, and every run
	// is counted as not exported.
	down := scriptedSession("down")
	for _, ev := range down {
		require.Equal(t, ev.wantPermission, runEvent(t, bin, home, project, env, ev), ev.stdin)
	}
	out, err = exec.Command(bin, "log", "--wave-home", home).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), fmt.Sprintf("telemetry: %d run(s) not exported to OpenTelemetry", len(down)))
}
