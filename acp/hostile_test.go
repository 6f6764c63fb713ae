package acp

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile agents (issue #37 item 4): what a guard must see whatever the
// agent sends, and what must pass through it untouched.

// oddMeta is a _meta value written as no encoder writes it: members out of
// order, spaces, escapes, a number too big for a float64 and HTML characters.
const oddMeta = `{ "z" : 1 ,"a":"\u00e9\u2028<b>&" , "big":123456789012345678901234567890,"f":1.50E+300,"k":[ null ,true ]}`

// Extension messages (_-prefixed) in both directions arrive byte for byte,
// however they are written, and their answers route back to the asker, byte
// for byte too.
func TestHostileExtensionMessagesPassByteForByte(t *testing.T) {
	agentAsk := `{"params":{"q":"\u00e9?","n":123456789012345678901234567890,"_meta":` + oddMeta + `} ,"method":"_acme/ask","id":"agent-ask-1","jsonrpc":"2.0"}`
	agentNote := `{"jsonrpc":"2.0","method":"_acme/progress",   "params":{"sessionId":"sess-1","pct":1e2,"_meta":` + oddMeta + `}}`
	// The agent answers the editor's _acme/ping (sent before the prompt).
	agentAnswer := `{"result":{"pong":true,"n":1.0e400,"s":"\ud83d\ude00"},"id":"editor-ping","jsonrpc":"2.0"}`
	r := startRig(t, rigOptions{script: script(`[{"stdout":` + string(mustRaw(agentAsk)) + `},{"stdout":` + string(mustRaw(agentNote)) + `},` +
		`{"stdout":` + string(mustRaw(agentAnswer)) + `},{"say":"done"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	r.answer = nil // the test answers _acme/ask itself, in its own format

	editorNote := `{"method":"_acme/hello","jsonrpc":"2.0","params":{"_meta":` + oddMeta + `,"x":"\u003c"}}`
	editorPing := `{ "jsonrpc":"2.0", "id":"editor-ping", "method":"_acme/ping", "params":{"big":98765432109876543210987654321}}`
	editorAnswer := `{"id":"agent-ask-1","jsonrpc":"2.0","result":{"ok":"\u00e9","_meta":` + oddMeta + `}}`
	r.send(editorNote)
	r.send(editorPing)
	prompt := r.request(methodSessionPrompt, map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	var pong, promptAnswer *testMsg
	for pong == nil || promptAnswer == nil {
		m := r.read()
		require.NotNil(t, m, "the proxy closed its output")
		switch {
		case m.Method == "_acme/ask":
			r.send(editorAnswer)
		case m.Method == "" && string(m.ID) == `"editor-ping"`:
			pong = m
		case m.Method == "" && string(m.ID) == string(prompt):
			promptAnswer = m
		}
	}
	require.Equal(t, "end_turn", stopReason(t, promptAnswer))

	// Agent → editor: the request, the notification and the answer, as written.
	var asks, notes []string
	for _, m := range r.noted("_acme/ask") {
		asks = append(asks, m.Line)
	}
	for _, m := range r.noted("_acme/progress") {
		notes = append(notes, m.Line)
	}
	require.Equal(t, []string{agentAsk}, asks)
	require.Equal(t, []string{agentNote}, notes)
	require.Equal(t, agentAnswer, pong.Line, "the agent's answer to the editor's extension request, as written")

	// Editor → agent: the notification, the request and the answer to the agent's request, as written.
	log := readFile(t, r.agentLog)
	require.Contains(t, log, "\n"+editorNote+"\n")
	require.Contains(t, log, "\n"+editorPing+"\n")
	require.Eventually(t, func() bool { return strings.Contains(readFile(t, r.agentLog), "\n"+editorAnswer+"\n") }, waitFor, tick,
		"the editor's answer reached the agent that asked, as written")
	require.Equal(t, 0, r.wait())
}

// _meta keeps its bytes on the messages the proxy edits: a prompt it adds a
// hook's context to, and a permission request it forwards with a hook's
// "ask" reason in its title.
func TestHostileMetaKeepsItsBytesOnEditedMessages(t *testing.T) {
	dir := t.TempDir()
	ctx := hook(t, dir, "ctx.sh", `echo "branch is main"`)
	ask := hook(t, dir, "ask.sh", `jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check this"}}'`)
	// The agent writes its request itself: its own encoder would rewrite the _meta.
	permission := `{"jsonrpc":"2.0","id":"perm-1","method":"session/request_permission","params":{"sessionId":"sess-1",` +
		`"toolCall":{"toolCallId":"exec-1","title":"make","kind":"execute","rawInput":{"command":"make"},"_meta":` + oddMeta + `},` +
		`"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}],"_meta":` + oddMeta + `}}`
	r := startRig(t, rigOptions{
		settings: settings([3]string{"UserPromptSubmit", "", ctx}, [3]string{"PreToolUse", "", ask}),
		script:   script(`[{"stdout":` + string(mustRaw(permission)) + `},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	promptLine := `{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"sessionId":"` + sess + `","_meta":` + oddMeta +
		`,"prompt":[{"type":"text","text":"go","_meta":` + oddMeta + `}]}}`
	r.send(promptLine)
	require.Equal(t, "end_turn", stopReason(t, r.await(json.RawMessage(`"p1"`))))

	// The agent got the prompt with the hook's context, and the editor's _meta as written.
	got := r.agentGot(methodSessionPrompt)
	require.Len(t, got, 1)
	require.Contains(t, strings.Join(promptTexts(got[0]), "\n"), "branch is main", "the prompt was edited")
	promptSeen := agentLineOf(t, r, methodSessionPrompt)
	require.Equal(t, 2, strings.Count(promptSeen, `"_meta":`+oddMeta), "both _meta, the request's and the block's, as written: %s", promptSeen)

	// The editor got the permission request with the ask in its title, and the agent's _meta as written.
	asked := r.noted(methodRequestPermission)
	require.Len(t, asked, 1)
	require.Contains(t, asked[0].Line, "check this", "the request was edited")
	require.Equal(t, 2, strings.Count(asked[0].Line, `"_meta":`+oddMeta), "both _meta, the request's and the tool call's, as written: %s", asked[0].Line)
	require.Eventually(t, func() bool {
		return strings.Contains(readFile(t, r.agentLog), `{"id":"perm-1","jsonrpc":"2.0","result":{"outcome":{"optionId":"ok","outcome":"selected"}}}`)
	}, waitFor, tick, "the editor's answer reached the agent")
}

// agentLineOf is the line of the first message of a method the agent received.
func agentLineOf(t *testing.T, r *rig, method string) string {
	t.Helper()
	for _, line := range bytes.Split([]byte(readFile(t, r.agentLog)), []byte("\n")) {
		var m struct{ Method string }
		if json.Unmarshal(line, &m) == nil && m.Method == method {
			return string(line)
		}
	}
	t.Fatalf("the agent got no %s", method)
	return ""
}

// A permission request for a tool call no update announced is judged on its
// own content: an rm -rf in its rawInput under an innocent title, or in its
// title alone, is denied by the deny rule; and a request naming a tool call
// announced as harmless is judged on what it asks now.
func TestHostilePermissionForAnUnannouncedToolCall(t *testing.T) {
	dir := t.TempDir()
	judged := filepath.Join(dir, "judged.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Bash", denyRm(t, dir, judged)}),
		script: script(`[
		  {"permission":{"toolCallId":"ghost-1","title":"Tidy up","kind":"execute","rawInput":{"command":"rm -rf ~"}},
		   "ifAllowed":[{"say":"ran ghost-1"}],"ifRejected":[{"say":"refused ghost-1"}]},
		  {"permission":{"toolCallId":"ghost-2","title":"rm -rf /","kind":"execute"},
		   "ifAllowed":[{"say":"ran ghost-2"}],"ifRejected":[{"say":"refused ghost-2"}]},
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"swap-1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls"}}},
		  {"permission":{"toolCallId":"swap-1","title":"ls","kind":"execute","rawInput":{"command":"rm -rf ."}},
		   "ifAllowed":[{"say":"ran swap-1"}],"ifRejected":[{"say":"refused swap-1"}]},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean")))
	var outcomes []string
	for _, text := range r.chunkTexts() {
		if strings.HasPrefix(text, "ran ") || strings.HasPrefix(text, "refused ") {
			outcomes = append(outcomes, text)
		}
	}
	require.Equal(t, []string{"refused ghost-1", "refused ghost-2", "refused swap-1"}, outcomes)
	require.Equal(t, "rm -rf ~\nrm -rf /\nrm -rf .\n", readFile(t, judged), "each judged on the command it asks to run")
	require.Empty(t, r.noted(methodRequestPermission), "no denied request reached the editor")
}

// A tool whose output streams in several tool_call_updates — its content
// growing with each, its rawOutput sent before the update that completes it
// — reaches PostToolUse with all of its output, and the transcript too; the
// completing update without output does not wipe it.
func TestHostileStreamedToolOutput(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.jsonl")
	post := hook(t, dir, "post.sh", `jq -c '{tool_use_id, tool_response}' >> `+seen)
	text := func(s ...string) string {
		var items []string
		for _, x := range s {
			items = append(items, `{"type":"content","content":{"type":"text","text":`+string(mustRaw(x))+`}}`)
		}
		return `[` + strings.Join(items, ",") + `]`
	}
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PostToolUse", "", post}),
		script: script(`[
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"make test","kind":"execute","status":"pending","rawInput":{"command":"make test"}}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress","content":` + text("ok  pkg/a") + `}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","content":` + text("ok  pkg/a", "FAIL pkg/b") + `}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","content":` + text("ok  pkg/a", "FAIL pkg/b", "ok  pkg/c") + `}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}},
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"t2","title":"go vet","kind":"execute","status":"in_progress","rawInput":{"command":"go vet"}}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t2","rawOutput":{"stdout":"vet: a.go:1\nvet: b.go:2\n","exit_code":1}}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"t2","status":"completed"}},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "test")))
	require.Eventually(t, func() bool { return strings.Count(readFile(t, seen), "\n") == 2 }, waitFor, tick)
	require.Equal(t, `{"tool_use_id":"t1","tool_response":"ok  pkg/a\nFAIL pkg/b\nok  pkg/c"}`+"\n"+
		`{"tool_use_id":"t2","tool_response":{"exit_code":1,"stdout":"vet: a.go:1\nvet: b.go:2\n"}}`+"\n", readFile(t, seen))
	tools := blocksOf(r.transcript(sess), "tool")
	require.Len(t, tools, 2)
	require.Contains(t, mustJSON(tools[0]), "FAIL pkg/b")
	require.Contains(t, mustJSON(tools[0]), "ok  pkg/c")
	require.Contains(t, mustJSON(tools[1]), "vet: b.go:2")
}
