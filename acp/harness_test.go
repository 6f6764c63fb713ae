package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/proctest"
)

// waitFor bounds the polls that wait for something that happens after a
// message (a file a hook writes, a line on stderr); they end as soon as it has.
const (
	waitFor = 20 * time.Second
	tick    = 10 * time.Millisecond
)

// rig is one proxy between a test editor and the scripted agent: the proxy
// runs in the test (acp.Run over pipes), the agent as a process, and the
// hooks are real sh + jq scripts in a temporary WAVE_HOME.
type rig struct {
	t        *testing.T
	home     string // WAVE_HOME
	project  string
	agentLog string
	stderr   *proctest.Output

	in   *io.PipeWriter // the editor's side of the proxy's stdin
	out  *bufio.Reader  // the editor's side of the proxy's stdout
	done chan int

	mu     sync.Mutex
	nextID int
	// notes are the notifications and the agent's requests the editor got, in order.
	notes []*testMsg
	// answer is how the editor answers the agent's requests; nil leaves
	// them unanswered (they are still in notes).
	answer func(m *testMsg) any
	closed bool
	// proxy is the proxy under test, once it runs.
	proxy *Proxy
}

// testMsg is a message the editor received: its line and its fields.
type testMsg struct {
	Line   string
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type rigOptions struct {
	script   string // the agent's script, JSON
	settings string // $WAVE_HOME/settings.json
	project  string
	fixed    bool
	claude   string // ~/.claude/settings.json
	opts     func(*Options)
	home     string // $WAVE_HOME, when the test prepared one
}

// startRig starts the proxy and the agent. The editor answers permission
// requests with allow_once, fs requests with the real file system under the
// test's directories, and terminal/create with a terminal id.
func startRig(t *testing.T, ro rigOptions) *rig {
	t.Helper()
	r := &rig{t: t, home: t.TempDir(), project: ro.project, stderr: &proctest.Output{}, done: make(chan int, 1)}
	if r.project == "" {
		r.project = t.TempDir()
	}
	if ro.home != "" {
		r.home = ro.home
	}
	r.agentLog = filepath.Join(t.TempDir(), "agent.jsonl")
	scriptFile := filepath.Join(t.TempDir(), "script.json")
	if ro.script == "" {
		ro.script = `{}`
	}
	require.NoError(t, os.WriteFile(scriptFile, []byte(ro.script), 0o600))
	if ro.settings != "" {
		require.NoError(t, os.WriteFile(filepath.Join(r.home, "settings.json"), []byte(ro.settings), 0o600))
	}
	claudeHome := filepath.Join(t.TempDir(), "claude")
	if ro.claude != "" {
		require.NoError(t, os.MkdirAll(claudeHome, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(claudeHome, "settings.json"), []byte(ro.claude), 0o600))
	}
	opts := Options{
		Agent:       []string{scriptAgent},
		AgentEnv:    append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "AGENT_LOG="+r.agentLog),
		AgentStderr: r.stderr,
		WaveHome:    r.home, ProjectRoot: r.project, ProjectFixed: ro.fixed, ClaudeHome: claudeHome,
		KillGrace: 5 * time.Second,
		Logger:    slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if ro.opts != nil {
		ro.opts(&opts)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r.in, r.out = inW, bufio.NewReaderSize(outR, 1<<20)
	r.answer = r.defaultAnswer
	started := make(chan *Proxy, 1)
	go func() {
		code := runProxy(context.Background(), opts, inR, outW, started)
		_ = outW.Close()
		r.done <- code
	}()
	select {
	case r.proxy = <-started:
	case code := <-r.done:
		r.done <- code // the agent could not start: the test reads the code
	}
	t.Cleanup(func() {
		r.closeEditor()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Errorf("the proxy did not end after the editor closed\nstderr:\n%s", r.stderr.String())
		}
		_ = outR.Close()
		if t.Failed() {
			t.Logf("proxy and agent stderr:\n%s", r.stderr.String())
		}
	})
	return r
}

func (r *rig) defaultAnswer(m *testMsg) any {
	var p map[string]any
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case methodRequestPermission:
		for _, o := range p["options"].([]any) {
			if o.(map[string]any)["kind"] == "allow_once" {
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.(map[string]any)["optionId"]}}
			}
		}
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
	case methodWriteTextFile:
		if err := os.WriteFile(p["path"].(string), []byte(p["content"].(string)), 0o600); err != nil {
			return acpmsg.Error{Code: -32603, Message: err.Error()}
		}
		return nil
	case methodReadTextFile:
		data, err := os.ReadFile(p["path"].(string))
		if err != nil {
			return acpmsg.Error{Code: -32002, Message: err.Error()}
		}
		return map[string]any{"content": string(data)}
	case methodTerminalCreate:
		return map[string]any{"terminalId": "term-1"}
	}
	return acpmsg.Error{Code: -32601, Message: "method not found: " + m.Method}
}

// send writes one line to the proxy as the editor.
func (r *rig) send(line string) {
	r.t.Helper()
	_, err := io.WriteString(r.in, line+"\n")
	require.NoError(r.t, err)
}

func (r *rig) sendJSON(v any) {
	r.t.Helper()
	b, err := json.Marshal(v)
	require.NoError(r.t, err)
	r.send(string(b))
}

// request sends a request and returns its id.
func (r *rig) request(method string, params any) json.RawMessage {
	r.mu.Lock()
	r.nextID++
	id := json.RawMessage(strings.TrimSpace(string(mustRaw(r.nextID))))
	r.mu.Unlock()
	r.sendJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id
}

// call sends a request and reads until its response, answering the agent's
// requests meanwhile.
func (r *rig) call(method string, params any) *testMsg {
	r.t.Helper()
	return r.await(r.request(method, params))
}

// await reads until the response to id.
func (r *rig) await(id json.RawMessage) *testMsg {
	r.t.Helper()
	for {
		m := r.read()
		require.NotNil(r.t, m, "the proxy closed its output before answering request %s", id)
		if m.Method == "" && string(m.ID) == string(id) {
			return m
		}
	}
}

// read reads the next message and handles it as an editor would: the
// agent's requests are answered (and kept in notes), notifications kept.
// nil at the end of the proxy's output.
func (r *rig) read() *testMsg {
	r.t.Helper()
	line, err := r.out.ReadString('\n')
	if err != nil {
		return nil
	}
	m := &testMsg{Line: strings.TrimSuffix(line, "\n")}
	require.NoError(r.t, json.Unmarshal([]byte(line), m), "the proxy wrote a line that is not JSON: %q", line)
	if m.Method != "" {
		r.mu.Lock()
		r.notes = append(r.notes, m)
		answer := r.answer
		r.mu.Unlock()
		if m.ID != nil && answer != nil {
			res := answer(m)
			if e, ok := res.(acpmsg.Error); ok {
				r.sendJSON(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": e})
			} else {
				r.sendJSON(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			}
		}
	}
	return m
}

// handshake runs initialize and session/new and returns the session id;
// the editor offers file and terminal operations.
func (r *rig) handshake() string {
	r.t.Helper()
	return r.handshakeWith(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
}

func (r *rig) handshakeWith(capabilities map[string]any) string {
	r.t.Helper()
	init := r.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": capabilities,
		"clientInfo": map[string]string{"name": "wavehooks-test", "version": "1"}})
	require.Nil(r.t, init.Error, "initialize: %s", init.Line)
	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.Nil(r.t, res.Error, "session/new: %s", res.Line)
	var out struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(r.t, json.Unmarshal(res.Result, &out))
	return out.SessionID
}

// prompt sends a text prompt and returns the response.
func (r *rig) prompt(sess, text string) *testMsg {
	r.t.Helper()
	return r.call("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": text}}})
}

func stopReason(t *testing.T, m *testMsg) string {
	t.Helper()
	require.Nil(t, m.Error, "expected a result: %s", m.Line)
	var res struct {
		StopReason string `json:"stopReason"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &res))
	return res.StopReason
}

// closeEditor closes the proxy's stdin, as an editor that quits does.
func (r *rig) closeEditor() {
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	r.mu.Unlock()
	if !closed {
		_ = r.in.Close()
	}
}

// wait closes the editor's side and returns the proxy's exit status,
// reading the rest of its output.
func (r *rig) wait() int {
	r.t.Helper()
	r.closeEditor()
	go func() {
		_, _ = io.Copy(io.Discard, r.out)
	}()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(30 * time.Second):
		r.t.Fatalf("the proxy did not end\nstderr:\n%s", r.stderr.String())
		return -1
	}
}

// exitStatus reads the editor's side until the proxy ends (the agent
// ended first) and returns its exit status.
func (r *rig) exitStatus() int {
	r.t.Helper()
	for r.read() != nil {
	}
	code := <-r.done
	r.done <- code
	return code
}

// noted returns the notifications and agent requests the editor got with a method.
func (r *rig) noted(method string) []*testMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*testMsg
	for _, m := range r.notes {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// updates returns the session/update payloads of one kind the editor got.
func (r *rig) updates(kind string) []map[string]any {
	var out []map[string]any
	for _, m := range r.noted(methodSessionUpdate) {
		var p struct {
			Update map[string]any `json:"update"`
		}
		require.NoError(r.t, json.Unmarshal(m.Params, &p))
		if p.Update["sessionUpdate"] == kind {
			out = append(out, p.Update)
		}
	}
	return out
}

// chunkTexts returns the text of the agent_message_chunks the editor got.
func (r *rig) chunkTexts() []string {
	var out []string
	for _, u := range r.updates("agent_message_chunk") {
		out = append(out, u["content"].(map[string]any)["text"].(string))
	}
	return out
}

// agentReceived returns the messages the agent received, parsed, and their lines.
func (r *rig) agentReceived() []map[string]any {
	r.t.Helper()
	data, err := os.ReadFile(r.agentLog)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(r.t, err)
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		require.NoError(r.t, json.Unmarshal(line, &m), "%q", line)
		out = append(out, m)
	}
	return out
}

// agentGot returns the messages of one method the agent received.
func (r *rig) agentGot(method string) []map[string]any {
	var out []map[string]any
	for _, m := range r.agentReceived() {
		if m["method"] == method {
			out = append(out, m)
		}
	}
	return out
}

// promptTexts returns the text blocks of a session/prompt the agent received.
func promptTexts(m map[string]any) []string {
	var out []string
	for _, b := range m["params"].(map[string]any)["prompt"].([]any) {
		if b.(map[string]any)["type"] == "text" {
			out = append(out, b.(map[string]any)["text"].(string))
		}
	}
	return out
}

// transcript reads a session's .state.messages, as docs/hooks.md's jq does,
// once the turns answered so far are written (a turn's transcript is
// written transcriptIdle after its answer: flushTranscript).
func (r *rig) transcript(sessionID string) []map[string]any {
	r.t.Helper()
	r.transcriptsWritten()
	name := sessionID
	if len(name) > 8 {
		name = name[len(name)-8:]
	}
	data, err := os.ReadFile(filepath.Join(r.home, "sessions", "session_"+name+".json"))
	require.NoError(r.t, err)
	var f struct {
		State struct {
			Messages []map[string]any `json:"messages"`
		} `json:"state"`
	}
	require.NoError(r.t, json.Unmarshal(data, &f), "%s", data)
	return f.State.Messages
}

// transcriptsWritten waits until the transcripts of the turns answered so
// far are written. It is called while no turn is in flight.
func (r *rig) transcriptsWritten() {
	if r.proxy != nil {
		r.proxy.flushes.Wait()
	}
}

// blocks returns the transcript's blocks of one type, in order.
func blocksOf(msgs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		for _, b := range m["blocks"].([]any) {
			if b.(map[string]any)["type"] == typ {
				out = append(out, b.(map[string]any))
			}
		}
	}
	return out
}

// hook writes an executable sh script into dir and returns its path.
func hook(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	return path
}

// settings builds a settings.json with one hook per (event, matcher, command).
func settings(groups ...[3]string) string {
	byEvent := map[string][]any{}
	for _, g := range groups {
		byEvent[g[0]] = append(byEvent[g[0]], map[string]any{"matcher": g[1],
			"hooks": []any{map[string]any{"type": "command", "command": g[2], "timeout": 60}}})
	}
	return string(mustRaw(map[string]any{"hooks": byEvent}))
}

// script builds an agent script from its turns.
func script(turns ...string) string {
	return `{"turns": [` + strings.Join(turns, ",") + `]}`
}

// readFile returns a file's content, "" when it does not exist.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

// lastFailure is the content of the last update that marked a tool call of
// the session failed: what the editor's tool card ends up showing.
func (r *rig) lastFailure(sess string) string {
	last := ""
	for _, m := range r.noted(methodSessionUpdate) {
		var p struct {
			SessionID string         `json:"sessionId"`
			Update    map[string]any `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.SessionID != sess {
			continue
		}
		if k := p.Update["sessionUpdate"]; (k == "tool_call" || k == "tool_call_update") && p.Update["status"] == "failed" && p.Update["content"] != nil {
			last = mustJSON(p.Update["content"])
		}
	}
	return last
}

// newSession opens one more session on the rig's agent, in the project.
func (r *rig) newSession() (string, map[string]any) {
	r.t.Helper()
	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.Nil(r.t, res.Error, "session/new: %s", res.Line)
	var out map[string]any
	require.NoError(r.t, json.Unmarshal(res.Result, &out))
	return out["sessionId"].(string), out
}

// commandRun is what runCommand's command did.
type commandRun struct {
	out    []byte
	stderr string
	err    error
}

// runCommand runs `sh -c command` with stdin in the background, as an
// agent runs the hook the proxy gave it (the bridge's wavehooks acp-hook),
// while the test goes on reading what the proxy tells the editor.
func runCommand(command string, stdin []byte) <-chan commandRun {
	c := exec.Command("sh", "-c", command)
	c.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	done := make(chan commandRun, 1)
	go func() {
		out, err := c.Output()
		done <- commandRun{out, stderr.String(), err}
	}()
	return done
}

// editorUpdate is a session/update the editor got, as the tests read it.
type editorUpdate struct {
	line      string
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string          `json:"sessionUpdate"`
		Content       json.RawMessage `json:"content"`
		Meta          struct {
			Wavehooks struct {
				Notice bool   `json:"notice"`
				Level  string `json:"level"`
			} `json:"wavehooks"`
		} `json:"_meta"`
	} `json:"update"`
}

// text is a text chunk's text ("" for other content).
func (u *editorUpdate) text() string {
	var c struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(u.Update.Content, &c)
	return c.Text
}

// editorUpdates are the session/update notifications of one session and
// kind the editor got, in order.
func (r *rig) editorUpdates(sess, kind string) []editorUpdate {
	var out []editorUpdate
	for _, m := range r.noted(methodSessionUpdate) {
		u := editorUpdate{line: m.Line}
		if json.Unmarshal(m.Params, &u) == nil && u.SessionID == sess && u.Update.SessionUpdate == kind {
			out = append(out, u)
		}
	}
	return out
}
