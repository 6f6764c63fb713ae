package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Where no hook acts, every message passes unchanged, byte for byte, in both
// directions: unknown methods, unknown fields, _meta, other protocol versions.
func TestForwardsUnknownMessagesByteForByte(t *testing.T) {
	agentLine := `{"jsonrpc":"2.0","method":"_vendor/progress",  "params":{"sessionId":"sess-1","x":[1,2.50,"é"],"_meta":{"k":null}}}`
	r := startRig(t, rigOptions{script: script(`[{"stdout": ` + string(mustRaw(agentLine)) + `}, {"say": "hi"}, {"stop": "end_turn"}]`)})

	editorLines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"clientCapabilities":{"_meta":{"zed":{"x":1}}},"future":true}}`,
		`{"jsonrpc":"2.0","method":"_zed/notify","params":{"a":  "b"}}`,
	}
	for _, l := range editorLines {
		r.send(l)
	}
	res := r.await(json.RawMessage(`1`))
	require.Nil(t, res.Error)
	sess := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}, "_meta": map[string]any{"extra": 1}})
	var created struct {
		SessionID string         `json:"sessionId"`
		Meta      map[string]any `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(sess.Result, &created))
	require.Equal(t, map[string]any{"scriptagent": true}, created.Meta, "the agent's _meta reaches the editor")

	resp := r.prompt(created.SessionID, "hello")
	require.Equal(t, "end_turn", stopReason(t, resp))
	require.Contains(t, resp.Line, `"_meta":{"scriptagent":"kept"}`)

	// Agent → editor: the odd spacing and number format of the agent's line survive.
	var got []string
	for _, m := range r.noted("_vendor/progress") {
		got = append(got, m.Line)
	}
	require.Equal(t, []string{agentLine}, got)

	// Editor → agent: the agent's log holds the editor's lines as sent.
	log := readFile(t, r.agentLog)
	for _, l := range editorLines {
		require.Contains(t, log, l+"\n")
	}
	require.Equal(t, 0, r.wait())
}

// Order is kept in each direction: many notifications and responses
// interleaved arrive in the order they were sent.
func TestKeepsOrder(t *testing.T) {
	r := startRig(t, rigOptions{script: script(`[{"say":"a"},{"say":"b"},{"say":"c"},{"chunks":{"n":200}},{"say":"z"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	texts := r.chunkTexts()
	require.Len(t, texts, 204)
	require.Equal(t, []string{"a", "b", "c", "chunk 0 "}, texts[:4])
	for i := 0; i < 200; i++ {
		require.Equal(t, "chunk "+itoa(i)+" ", texts[3+i])
	}
	require.Equal(t, "z", texts[203])
}

// The agent's text is recorded in the transcript, gathered per message:
// one text block for the whole streamed message, a new one when the
// messageId changes.
func TestTranscriptGathersTextPerMessage(t *testing.T) {
	r := startRig(t, rigOptions{script: script(
		`[{"say":"Hel","messageId":"m1"},{"say":"lo","messageId":"m1"},{"say":"Second","messageId":"m2"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "hi there")))
	msgs := r.transcript(sess)
	require.Equal(t, "user", msgs[0]["role"])
	require.Equal(t, "hi there", blocksOf(msgs[:1], "text")[0]["content"])
	var texts []string
	for _, b := range blocksOf(msgs[1:], "text") {
		texts = append(texts, b["content"].(string))
	}
	require.Equal(t, []string{"Hello", "Second"}, texts)
}

// The agent's stderr passes to the proxy's; a line on its stdout that is not
// JSON-RPC goes there too instead of to the editor.
func TestAgentStderrAndStrayStdout(t *testing.T) {
	r := startRig(t, rigOptions{script: script(`[{"stderr":"agent log line"},{"stdout":"console.log garbage"},{"say":"ok"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, []string{"ok"}, r.chunkTexts())
	require.Eventually(t, func() bool { return strings.Contains(r.stderr.String(), "agent log line") }, waitFor, tick)
	require.Contains(t, r.stderr.String(), "console.log garbage")
}

func itoa(i int) string { return strings.TrimSpace(string(mustRaw(i))) }

// The editor's messages reach the agent in the order sent, also when the
// first is a prompt whose hook is still running and the others are handled
// without waiting on a hook (handleEditor): those wait behind it.
func TestEditorMessagesKeepTheirOrderBehindAHook(t *testing.T) {
	r := startRig(t, rigOptions{script: script(`[{"say":"ok"},{"stop":"end_turn"}]`),
		settings: `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"sleep 0.3"}]}]}}`})
	sess := r.handshake()
	prompt := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "first"}}})
	r.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "_x/note", "params": map[string]any{"n": 1}})
	ping := r.request("_x/ping", map[string]any{"n": 2})
	answered := map[string]*testMsg{}
	for len(answered) < 2 { // the two answers, in whichever order the agent gives them
		m := r.read()
		require.NotNil(t, m, "the proxy closed its output")
		if m.Method == "" && (string(m.ID) == string(prompt) || string(m.ID) == string(ping)) {
			answered[string(m.ID)] = m
		}
	}
	require.Equal(t, "end_turn", stopReason(t, answered[string(prompt)]))
	var methods []string
	for _, m := range r.agentReceived() {
		if method, _ := m["method"].(string); method != "" {
			methods = append(methods, method)
		}
	}
	require.Equal(t, []string{"initialize", "session/new", "session/prompt", "_x/note", "_x/ping"}, methods)
}
