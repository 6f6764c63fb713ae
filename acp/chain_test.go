package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/wavehooks/wavehooks/internal/proctest"
)

// testConductor plays the conductor of ACP's proxy-chains RFD for a chain
// of wavehooks components (runComponent, in the test) and the scripted
// agent (a process) behind them: the client talks to the first component;
// a component's proxy/successor goes to the next one unwrapped (initialize
// becoming proxy/initialize for a proxy), with the conductor's own id, and
// its answer goes back as the answer to the proxy/successor; a message of
// the next one's to its predecessor goes back wrapped in proxy/successor.
// trace records every message that passes, as the RFD's diagrams draw them.
type testConductor struct {
	t *testing.T
	// prefix is "" for the RFD's method names, "_" for sacp-conductor's.
	prefix string
	nodes  []*chainNode // the components, then the agent
	client io.Writer    // the conductor's output to the client

	mu      sync.Mutex
	seq     int
	pending map[string]pendingCall // by the conductor's id
	trace   []string
}

// chainNode is one component of the chain, or the agent at its end.
type chainNode struct {
	name string
	in   io.WriteCloser // its stdin
	out  io.Reader      // its stdout
	// proxy and done are a component's.
	proxy *Proxy
	done  chan int
}

// pendingCall is a request the conductor delivered under an id of its own:
// the node that sent it and the id it sent it under.
type pendingCall struct {
	from int
	id   json.RawMessage
}

// chainMsg is a message as the conductor reads it.
type chainMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// startChain builds client → conductor → components… → scripted agent and
// returns the client's rig: the rig's helpers (call, prompt, noted) talk
// to the conductor as an editor does. homes are the components' WAVE_HOMEs
// (each with its own settings.json); the rig's home is the first one's.
func startChain(t *testing.T, prefix, agentScript string, settingsOf ...string) (*rig, *testConductor) {
	t.Helper()
	r := &rig{t: t, project: t.TempDir(), stderr: &proctest.Output{}, done: make(chan int, 1)}
	r.agentLog = filepath.Join(t.TempDir(), "agent.jsonl")
	scriptFile := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(scriptFile, []byte(agentScript), 0o600))
	c := &testConductor{t: t, prefix: prefix, pending: map[string]pendingCall{}}

	for i, s := range settingsOf {
		home := t.TempDir()
		if i == 0 {
			r.home = home
		}
		require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(s), 0o600))
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		n := &chainNode{name: fmt.Sprintf("wavehooks%d", i+1), in: inW, out: outR, done: make(chan int, 1)}
		opts := Options{Component: true, WaveHome: home, ProjectRoot: r.project, ClaudeHome: filepath.Join(t.TempDir(), "claude"),
			KillGrace: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("component", n.name)}
		started := make(chan *Proxy, 1)
		go func() {
			code := runComponent(context.Background(), opts, inR, outW, started)
			_ = outW.Close()
			n.done <- code
		}()
		n.proxy = <-started
		c.nodes = append(c.nodes, n)
	}
	r.proxy = c.nodes[0].proxy

	agent := exec.Command(scriptAgent)
	agent.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptFile, "AGENT_LOG="+r.agentLog)
	agent.Stderr = r.stderr
	agentIn, err := agent.StdinPipe()
	require.NoError(t, err)
	agentOut, err := agent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, agent.Start())
	c.nodes = append(c.nodes, &chainNode{name: "agent", in: agentIn, out: agentOut})

	clientR, clientW := io.Pipe() // the client's messages to the conductor
	outR, outW := io.Pipe()       // the conductor's to the client
	r.in, r.out, c.client = clientW, bufio.NewReaderSize(outR, 1<<20), outW
	r.answer = r.defaultAnswer

	var readers sync.WaitGroup
	for i := range c.nodes {
		readers.Add(1)
		go func() { defer readers.Done(); c.readNode(i) }()
	}
	go func() {
		sc := bufio.NewScanner(clientR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.fromClient(sc.Bytes())
		}
		// The client is gone: so is the chain.
		for _, n := range c.nodes {
			_ = n.in.Close()
		}
		code := 0
		for i, n := range c.nodes[:len(c.nodes)-1] {
			if c := <-n.done; i == 0 || c != 0 {
				code = c // the first component's status, or a later one's failure
			}
		}
		r.done <- code
		_ = agent.Wait()
		readers.Wait()
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		r.closeEditor()
		_ = outR.Close()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Errorf("a component did not end after the client closed\nstderr:\n%s", r.stderr.String())
			return
		}
		if t.Failed() {
			t.Logf("components' and agent's stderr:\n%s", r.stderr.String())
		}
	})
	return r, c
}

func (c *testConductor) note(format string, args ...any) {
	c.mu.Lock()
	c.trace = append(c.trace, fmt.Sprintf(format, args...))
	c.mu.Unlock()
}

// write sends one message line to node i.
func (c *testConductor) write(i int, v any) {
	b, err := json.Marshal(v)
	require.NoError(c.t, err)
	_, _ = c.nodes[i].in.Write(append(b, '\n'))
}

// kind names a message for the trace.
func kind(m chainMsg) string {
	if m.Method == "" {
		return "response"
	}
	return m.Method
}

// fromClient hands the client's message to the first component, its
// initialize as proxy/initialize.
func (c *testConductor) fromClient(line []byte) {
	var m chainMsg
	require.NoError(c.t, json.Unmarshal(line, &m))
	c.note("client→conductor %s", kind(m))
	if m.Method == "initialize" {
		m.Method = c.prefix + "proxy/initialize"
		c.note("conductor→%s %s", c.nodes[0].name, m.Method)
		c.write(0, withVersion(m))
		return
	}
	c.note("conductor→%s %s", c.nodes[0].name, kind(m))
	_, _ = c.nodes[0].in.Write(append(append([]byte(nil), line...), '\n'))
}

// withVersion is m as a JSON-RPC 2.0 message.
func withVersion(m chainMsg) map[string]any {
	out := map[string]any{"jsonrpc": "2.0"}
	if m.ID != nil {
		out["id"] = m.ID
	}
	if m.Method != "" {
		out["method"] = m.Method
	}
	if m.Params != nil {
		out["params"] = m.Params
	}
	if m.Result != nil {
		out["result"] = m.Result
	}
	if m.Error != nil {
		out["error"] = m.Error
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		out["result"] = nil
	}
	return out
}

// readNode routes node i's messages.
func (c *testConductor) readNode(i int) {
	sc := bufio.NewScanner(c.nodes[i].out)
	sc.Buffer(nil, 1<<20)
	name := c.nodes[i].name
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var m chainMsg
		if json.Unmarshal(line, &m) != nil {
			c.t.Errorf("%s wrote a line that is not JSON: %q", name, line)
			continue
		}
		switch {
		case m.Method == c.prefix+"proxy/successor":
			// To the successor, unwrapped, under the conductor's id.
			var inner chainMsg
			require.NoError(c.t, json.Unmarshal(m.Params, &inner))
			c.note("%s→conductor %s(%s)", name, m.Method, inner.Method)
			next := i + 1
			if inner.Method == "initialize" && next < len(c.nodes)-1 {
				inner.Method = c.prefix + "proxy/initialize"
			}
			if m.ID != nil {
				inner.ID = c.remember(i, m.ID)
			}
			c.note("conductor→%s %s", c.nodes[next].name, inner.Method)
			c.write(next, withVersion(inner))
		case m.Method == "":
			c.mu.Lock()
			call, ok := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			c.note("%s→conductor response", name)
			switch {
			case !ok && i == 0:
				c.note("conductor→client response")
				_, _ = c.client.Write(append(line, '\n'))
			case !ok:
				c.t.Errorf("%s answered a request nobody sent: %s", name, line)
			case call.from < i:
				// The successor's answer to a proxy/successor request.
				m.ID = call.id
				c.note("conductor→%s %s(response)", c.nodes[call.from].name, c.prefix+"proxy/successor")
				c.write(call.from, withVersion(m))
			default:
				// The answer to a request of the successor's, delivered wrapped.
				m.ID = call.id
				c.note("conductor→%s response", c.nodes[call.from].name)
				c.write(call.from, withVersion(m))
			}
		case i == 0:
			c.note("%s→conductor %s", name, m.Method)
			c.note("conductor→client %s", m.Method)
			_, _ = c.client.Write(append(line, '\n'))
		default:
			// To the predecessor: wrapped in proxy/successor.
			c.note("%s→conductor %s", name, m.Method)
			wrapped := chainMsg{Method: c.prefix + "proxy/successor", Params: mustRaw(map[string]any{"method": m.Method, "params": m.Params})}
			if m.ID != nil {
				wrapped.ID = c.remember(i, m.ID)
			}
			c.note("conductor→%s %s(%s)", c.nodes[i-1].name, wrapped.Method, m.Method)
			c.write(i-1, withVersion(wrapped))
		}
	}
}

// remember gives a request node from sent under id an id of the conductor's.
func (c *testConductor) remember(from int, id json.RawMessage) json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	cid := mustRaw(fmt.Sprintf("c-%d", c.seq))
	c.pending[string(cid)] = pendingCall{from: from, id: id}
	return cid
}

// requireInOrder checks that steps happen in trace in this order (others between them).
func requireInOrder(t *testing.T, trace []string, steps ...string) {
	t.Helper()
	i := 0
	for _, s := range trace {
		if i < len(steps) && s == steps[i] {
			i++
		}
	}
	require.Equal(t, len(steps), i, "%q did not happen after the steps before it in\n%s", steps[min(i, len(steps)-1)], strings.Join(trace, "\n"))
}

// traced is the trace up to now.
func (c *testConductor) traced() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.trace...)
}

// rmPermission is a turn whose agent asks to run rm -rf on the project:
// it says "deleted" when allowed, "refused" when rejected.
const rmPermission = `[{"update":{"sessionUpdate":"tool_call","toolCallId":"rm-1","title":"rm -rf /tmp/project","kind":"execute","status":"pending","rawInput":{"command":"rm -rf /tmp/project"}}},
  {"permission":{"toolCallId":"rm-1","title":"rm -rf /tmp/project","kind":"execute","rawInput":{"command":"rm -rf /tmp/project"}},
   "ifAllowed":[{"say":"deleted"}],"ifRejected":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"rm-1","status":"failed"}},{"say":"refused"}]},
  {"stop":"end_turn"}]`

// denyRm is a PreToolUse hook that denies a command with rm -rf, and
// records each command it judged in judged.
func denyRm(t *testing.T, dir, judged string) string {
	return hook(t, dir, "deny-rm.sh", `in=$(cat); cmd=$(printf '%s' "$in" | jq -r '.tool_input.command // ""'); echo "$cmd" >> `+judged+`
case "$cmd" in *"rm -rf"*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf"}}';; esac`)
}

// Under a conductor (the proxy-chains RFD, by its own method names), the
// initialization runs as the RFD's example draws it, and then a PreToolUse
// deny works through the chain: the agent's permission request, which
// reaches wavehooks wrapped in proxy/successor, is answered with the
// agent's reject option, and the client never sees it.
func TestChainComponentDeniesThroughTheConductor(t *testing.T) {
	dir := t.TempDir()
	judged := filepath.Join(dir, "judged.txt")
	r, c := startChain(t, "", script(rmPermission), settings([3]string{"PreToolUse", "", denyRm(t, dir, judged)}))

	init := r.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "terminal-client", "version": "1"}})
	require.Nil(t, init.Error, init.Line)
	require.Contains(t, init.Line, `"agentInfo":{"name":"scriptagent"`, "the agent's InitializeResponse reaches the client")
	require.Equal(t, []string{
		"client→conductor initialize",
		"conductor→wavehooks1 proxy/initialize",
		"wavehooks1→conductor proxy/successor(initialize)",
		"conductor→agent initialize",
		"agent→conductor response",
		"conductor→wavehooks1 proxy/successor(response)",
		"wavehooks1→conductor response",
		"conductor→client response",
	}, c.traced(), "the RFD's initialization, message by message")

	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.Nil(t, res.Error, res.Line)
	var opened struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(res.Result, &opened))

	require.Equal(t, "end_turn", stopReason(t, r.prompt(opened.SessionID, "clean up")))
	texts := r.chunkTexts()
	require.Equal(t, "refused", texts[len(texts)-1], "the agent was refused")
	require.Contains(t, texts[0], "Denied by a PreToolUse hook: no rm -rf", "the client's user reads why")
	require.Empty(t, r.noted(methodRequestPermission), "a denied request never reaches the client")
	require.Equal(t, "rm -rf /tmp/project\n", readFile(t, judged), "the hook judged it once")
	require.Equal(t, []string{`{"outcome":{"optionId":"cancel","outcome":"selected"}}`}, r.agentResponses(),
		"the agent got its reject option, as the answer to its own request id")

	requireInOrder(t, c.traced(), "agent→conductor session/request_permission",
		"conductor→wavehooks1 proxy/successor(session/request_permission)", "wavehooks1→conductor response", "conductor→agent response")
	tools := blocksOf(r.transcript(opened.SessionID), "tool")
	require.Len(t, tools, 1)
	require.Equal(t, "Hook blocked tool execution", tools[0]["error"], "the transcript records the hook's deny")
	require.Equal(t, 0, r.wait())
}

// Two wavehooks components in one chain, by sacp-conductor's method names
// (_proxy/initialize, _proxy/successor): each runs its own hooks once per
// event, the first one's deny ends the tool call before the second sees
// it, and what the second adds to a prompt reaches the agent through it.
func TestChainTwoComponents(t *testing.T) {
	dir := t.TempDir()
	prompts1, prompts2 := filepath.Join(dir, "p1.txt"), filepath.Join(dir, "p2.txt")
	judged1, judged2 := filepath.Join(dir, "j1.txt"), filepath.Join(dir, "j2.txt")
	ctx2 := hook(t, dir, "ctx2.sh", `jq -r .prompt >> `+prompts2+`; echo "context from the second proxy"`)
	rec1 := hook(t, dir, "rec1.sh", `jq -r .prompt >> `+prompts1)
	r, c := startChain(t, "_", script(`[{"say":"hi"},{"stop":"end_turn"}]`, rmPermission),
		settings([3]string{"UserPromptSubmit", "", rec1}, [3]string{"PreToolUse", "", denyRm(t, dir, judged1)}),
		settings([3]string{"UserPromptSubmit", "", ctx2}, [3]string{"PreToolUse", "", hook(t, dir, "rec2.sh", `jq -r .tool_input.command >> `+judged2)}))
	sess := r.handshake()
	require.Contains(t, strings.Join(c.traced(), "\n"),
		"conductor→wavehooks1 _proxy/initialize\nwavehooks1→conductor _proxy/successor(initialize)\nconductor→wavehooks2 _proxy/initialize\nwavehooks2→conductor _proxy/successor(initialize)\nconductor→agent initialize")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "first")))
	require.Equal(t, "first\n", readFile(t, prompts1), "the first component's UserPromptSubmit ran once")
	require.Equal(t, "first\n", readFile(t, prompts2), "the second component's UserPromptSubmit ran once")
	got := r.agentGot(methodSessionPrompt)
	require.Len(t, got, 1)
	require.Contains(t, strings.Join(promptTexts(got[0]), "\n"), "context from the second proxy")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean up")))
	require.Equal(t, "rm -rf /tmp/project\n", readFile(t, judged2), "the second component, nearer the agent, judged it first, once")
	require.Equal(t, "rm -rf /tmp/project\n", readFile(t, judged1), "the first judged it once and denied it")
	texts := r.chunkTexts()
	require.Equal(t, "hi", texts[0])
	require.Equal(t, "refused", texts[len(texts)-1])
	require.Empty(t, r.noted(methodRequestPermission))
	require.Equal(t, 0, r.wait())
}

// A component given initialize (the place of the chain's agent) says how
// to start it there instead of waiting for an agent it does not have.
func TestChainComponentRefusesInitialize(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runComponent(context.Background(), Options{WaveHome: t.TempDir(), ProjectRoot: t.TempDir()}, inR, outW, nil)
		_ = outW.Close()
	}()
	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	var m testMsg
	require.NoError(t, json.Unmarshal([]byte(line), &m))
	require.Equal(t, "1", string(m.ID))
	require.NotNil(t, m.Error, line)
	require.Contains(t, m.Error.Message, "wavehooks acp -- <agent command>")
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	require.Equal(t, 0, <-done)
}
