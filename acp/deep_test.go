package acp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// deep is an array nested n levels deep.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// twoMillion is the depth of the 4 MB line that used to overflow the
// proxy's stack (fatal, no recover), orphaning the agent with no SessionEnd.
const twoMillion = 2_000_000

// A message from the editor nested 2,000,000 deep is refused, not passed to
// the agent: a request gets InvalidRequest with its id, a notification is
// dropped, an answer to the agent's permission request reaches the agent as
// an error (the agent is not left waiting). The proxy goes on, the next
// prompt works, and SessionEnd runs when the editor leaves.
func TestDeepMessagesFromTheEditor(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionEnd", "", end}),
		script: script(
			`[{"permission":{"toolCallId":"t1","title":"ls","kind":"execute","rawInput":{"command":"ls"}},
			   "ifAllowed":[{"say":"allowed"}],"ifRejected":[{"say":"rejected"}],"ifCancelled":[{"say":"no answer: cancelled"}]},
			  {"stop":"end_turn"}]`,
			`[{"say":"still here"},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()

	r.send(`{"jsonrpc":"2.0","id":40,"method":"session/prompt","params":{"sessionId":"` + sess + `","prompt":` + deep(twoMillion) + `}}`)
	m := r.read()
	require.Equal(t, "40", string(m.ID))
	require.NotNil(t, m.Error, "%s", m.Line)
	require.Equal(t, rpcerr.InvalidRequest, m.Error.Code)
	require.Contains(t, m.Error.Message, "arrays and objects nest deeper than 128 levels")

	r.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sess + `","x":` + deep(twoMillion) + `}}`)
	r.send(`{"jsonrpc":"2.0","id":41,"method":"x/deepId","id":` + deep(twoMillion) + `}`)
	m = r.read()
	require.Equal(t, "null", string(m.ID), "an id that is itself deep is answered as null")
	require.Equal(t, rpcerr.InvalidRequest, m.Error.Code)

	// The editor answers the agent's permission request with a deep result.
	r.mu.Lock()
	r.answer = nil
	r.mu.Unlock()
	id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	for {
		m = r.read()
		require.NotNil(t, m)
		if m.Method == methodRequestPermission {
			break
		}
	}
	r.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + deep(twoMillion) + `}`)
	require.Equal(t, "end_turn", stopReason(t, r.await(id)))
	require.Contains(t, r.chunkTexts(), "no answer: cancelled", "the agent got an error, not the deep answer, and went on")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "next")))
	require.Contains(t, r.chunkTexts(), "still here")
	require.NotContains(t, readFile(t, r.agentLog), deep(200)[:200], "nothing deep reached the agent")
	require.Equal(t, 0, r.wait())
	require.Equal(t, "prompt_input_exit\n", readFile(t, ended), "SessionEnd ran when the editor left")
}

// A message from the agent nested too deep is refused, not passed to the
// editor, and no hook sees it: a notification is dropped with a message to
// the editor, a file request is answered with InvalidRequest, a permission
// request whose tool input is deeper than a hook's jq can read is denied
// (the agent's reject option) with the reason shown to the editor — never
// allowed because its guard could not parse it — and an answer to the
// editor's prompt becomes an error answer. The proxy goes on, the next
// prompt works, and SessionEnd runs.
func TestDeepMessagesFromTheAgent(t *testing.T) {
	dir := t.TempDir()
	seen, ended := filepath.Join(dir, "seen"), filepath.Join(dir, "ended")
	guard := hook(t, dir, "guard.sh", `jq -c '[.tool_name, .tool_input.command]' >> `+seen+` || echo "jq failed" >> `+seen)
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	deepUpdate := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":` + deep(twoMillion) + `}}`
	deepRead := `{"jsonrpc":"2.0","id":900,"method":"fs/read_text_file","params":{"sessionId":"sess-1","path":` + deep(twoMillion) + `}}`
	deepAnswer := `{"jsonrpc":"2.0","id":4,"result":` + deep(twoMillion) + `}`
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", guard}, [3]string{"SessionEnd", "", end}),
		script: script(
			`[{"stdout":`+string(mustRaw(deepUpdate))+`},{"stdout":`+string(mustRaw(deepRead))+`},
			  {"permission":{"toolCallId":"d1","title":"deep","kind":"execute","rawInput":{"command":"ls","x":`+deep(200)+`}},
			   "ifAllowed":[{"say":"permission allowed"}],"ifRejected":[{"say":"permission rejected"}],"ifCancelled":[{"say":"permission cancelled"}]},
			  {"permission":{"toolCallId":"s1","title":"shallow","kind":"execute","rawInput":{"command":"ls","x":`+deep(100)+`}},
			   "ifAllowed":[{"say":"shallow allowed"}],"ifRejected":[{"say":"shallow rejected"}]},
			  {"say":"after"},{"stop":"end_turn"}]`,
			`[{"stdout":`+string(mustRaw(deepAnswer))+`}]`,
			`[{"say":"still here"},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "sess-1", sess)
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))

	texts := r.chunkTexts()
	require.Contains(t, texts, "permission rejected", "a permission request too deep for its hooks is denied")
	require.Contains(t, texts, "shallow allowed", "one within the limit reaches its hook and the editor")
	require.Contains(t, texts, "after")
	require.Contains(t, texts, "\n\n[wavehooks] warning: a permission request was denied: its arrays and objects nest deeper than 128 levels, more than its hooks can read\n\n")
	require.Contains(t, texts, "\n\n[wavehooks] warning: the agent sent a session/update whose arrays and objects nest deeper than 128 levels; it was dropped\n\n")
	require.Contains(t, texts, "\n\n[wavehooks] warning: the agent's fs/read_text_file was refused: its arrays and objects nest deeper than 128 levels\n\n")
	require.Equal(t, `["Bash","ls"]`+"\n", readFile(t, seen), "the guard ran once, for the shallow request, and parsed its input")
	perms := r.noted(methodRequestPermission)
	require.Len(t, perms, 1)
	require.Contains(t, perms[0].Line, `"toolCallId":"s1"`)
	require.Empty(t, r.noted(methodReadTextFile))
	answers := r.agentResponses()
	require.Contains(t, answers[0], `"code":-32600`, "the deep read was answered with an error: %v", answers)
	require.Equal(t, `{"outcome":{"optionId":"cancel","outcome":"selected"}}`, answers[1], "the deep permission request got reject_once")

	res := r.prompt(sess, "second")
	require.NotNil(t, res.Error, "the agent's deep answer became an error: %s", res.Line)
	require.Contains(t, res.Error.Message, "the agent's answer was refused: arrays and objects nest deeper than 128 levels")
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "third")))
	require.Contains(t, r.chunkTexts(), "still here")
	require.Equal(t, 0, r.wait())
	require.Equal(t, "prompt_input_exit\n", readFile(t, ended), "SessionEnd ran: the proxy outlived every deep line")
}
