package acp

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// A line from the editor that is not a JSON-RPC message is answered with a
// parse error and not passed to the agent; the session goes on.
func TestMalformedEditorLines(t *testing.T) {
	r := startRig(t, rigOptions{script: script(`[{"say":"fine"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	for _, bad := range []string{`{"jsonrpc":"2.0","id":9,"method":`, `not json at all`, `[1,2,3]`, `"a string"`} {
		r.send(bad)
		m := r.read()
		require.NotNil(t, m.Error, "a line %q gets an error", bad)
		require.Equal(t, rpcerr.ParseError, m.Error.Code)
		require.Equal(t, "null", string(m.ID))
	}
	r.send("")
	r.send("   ")
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "still there?")))
	log := readFile(t, r.agentLog)
	require.NotContains(t, log, "not json at all")
	require.NotContains(t, log, `"method":`+"\n")
	require.Contains(t, r.stderr.String(), "not a JSON-RPC message")
}

// 50 MB messages pass whole in both directions, byte for byte: a prompt to
// the agent and a chunk to the editor; the transcript records both. The
// checks compare bytes and ask jq, so that the test's own decoding does not
// dominate its run time under the race detector.
func TestFiftyMegabyteLines(t *testing.T) {
	const size = 50 << 20
	r := startRig(t, rigOptions{script: script(`[{"bigSay":` + itoa(size) + `},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	prompt := `{"jsonrpc":"2.0","id":1000,"method":"session/prompt","params":{"sessionId":"` + sess +
		`","prompt":[{"type":"text","text":"` + strings.Repeat("y", size) + `"}]}}`
	r.send(prompt)
	var chunk string
	for {
		line, err := r.out.ReadString('\n')
		require.NoError(t, err)
		if len(line) > size {
			chunk = line
			continue
		}
		var m testMsg
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		if string(m.ID) == "1000" {
			require.Equal(t, "end_turn", stopReason(t, &m))
			break
		}
	}
	// The agent (a Go program) wrote the chunk with its keys sorted.
	require.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`+sess+
		`","update":{"content":{"text":"`+strings.Repeat("x", size)+`","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`+"\n", chunk)
	require.True(t, bytes.Contains([]byte(readFile(t, r.agentLog)), []byte(prompt+"\n")), "the agent got the prompt as sent")

	file := filepath.Join(r.home, "sessions", "session_"+sess+".json")
	r.transcriptsWritten()
	out, err := exec.Command("jq", "-c", `[.state.messages[].blocks[] | select(.type == "text") | .content | length]`, file).Output()
	require.NoError(t, err)
	require.Equal(t, "["+itoa(size)+","+itoa(size)+"]\n", string(out))
}

// A message over the limit is refused with an error, not held in memory,
// and the messages after it go on.
func TestLineOverTheLimit(t *testing.T) {
	r := startRig(t, rigOptions{
		script: script(`[{"bigSay":3000000},{"say":"after"},{"stop":"end_turn"}]`),
		opts:   func(o *Options) { o.MaxLine = 1 << 20 },
	})
	sess := r.handshake()
	r.send(`{"jsonrpc":"2.0","id":77,"method":"session/prompt","params":{"sessionId":"` + sess + `","prompt":[{"type":"text","text":"` + strings.Repeat("z", 2<<20) + `"}]}}`)
	m := r.read()
	require.NotNil(t, m.Error)
	require.Contains(t, m.Error.Message, "more than 1048576 bytes")
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "small")))
	require.Equal(t, []string{"after"}, r.chunkTexts(), "the agent's oversized chunk was dropped, the next one arrived")
	require.Contains(t, r.stderr.String(), "the agent sent a message too large to pass on")
}

// Params the proxy cannot read are passed on for the agent to judge; the
// proxy never crashes on them.
func TestUnreadableParamsPassThrough(t *testing.T) {
	r := startRig(t, rigOptions{script: script(`[{"update":{"sessionUpdate":"tool_call","toolCallId":7}},` +
		`{"update":{"sessionUpdate":"agent_message_chunk","content":"not an object"}},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	line := `{"jsonrpc":"2.0","id":50,"method":"session/prompt","params":{"sessionId":"` + sess + `","prompt":"not a list"}}`
	r.send(line)
	res := r.await(json.RawMessage(`50`))
	require.Equal(t, "end_turn", stopReason(t, res))
	require.Contains(t, readFile(t, r.agentLog), line+"\n")
	require.Len(t, r.noted(methodSessionUpdate), 2)
}
