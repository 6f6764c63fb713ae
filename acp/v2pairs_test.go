//go:build linux

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// Issue #37 item 1: ACP v1 and the v2 draft from one binary. No v2 agent
// or editor ships yet, so the v2 side of these tests is the scripted agent
// speaking the vendored draft (schema 2.0.0-alpha.3: protocolVersion 2,
// "info", the prompt acknowledged and the turn ended by an idle
// state_update, messageIds, tool_call_update only, permission requests with
// a title and a subject) and the test editor below speaking it back.

// initializeV2 runs a v2 editor's initialize (schema/v2 InitializeRequest:
// protocolVersion 2, info, capabilities without fs or terminal) and
// returns the answer.
func (r *rig) initializeV2() *testMsg {
	r.t.Helper()
	return r.call("initialize", map[string]any{"protocolVersion": 2, "capabilities": map[string]any{},
		"info": map[string]string{"name": "wavehooks-test-v2", "version": "1"}})
}

// promptV2 sends a v2 prompt, checks that its answer is the acknowledgment
// ({}), and reads until the idle state_update that ends the session's turn:
// its stop reason.
func (r *rig) promptV2(sess, text string) string {
	r.t.Helper()
	ack := r.await(r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": text}}}))
	require.Nil(r.t, ack.Error, "session/prompt: %s", ack.Line)
	require.JSONEq(r.t, `{}`, string(ack.Result), "a v2 prompt's answer only acknowledges it")
	for {
		m := r.read()
		require.NotNil(r.t, m, "the proxy closed its output before the turn ended")
		if idle, reason := idleOf(m, sess); idle {
			return reason
		}
	}
}

// idleOf reports whether m is an idle state_update of the session, and its stop reason.
func idleOf(m *testMsg, sess string) (bool, string) {
	if m.Method != methodSessionUpdate {
		return false, ""
	}
	var n acpmsg.StateUpdateNotification
	if json.Unmarshal(m.Params, &n) != nil || n.SessionID != sess || n.Update.SessionUpdate != acpmsg.UpdateStateUpdate {
		return false, ""
	}
	return n.Update.State == acpmsg.StateIdle, n.Update.StopReason
}

// idles counts the idle state updates the editor got for a session.
func (r *rig) idles(sess string) int {
	n := 0
	for _, m := range r.noted(methodSessionUpdate) {
		if idle, _ := idleOf(m, sess); idle {
			n++
		}
	}
	return n
}

// v2Shell is a v2 turn in which the agent asks to run command (a tool_call
// subject), runs it itself when allowed, and says DONE-id.
func v2Shell(id, command string) string {
	return `[{"permission":{"toolCallId":"` + id + `","title":` + mustJSON(command) + `,"kind":"execute","status":"pending","rawInput":{"command":` + mustJSON(command) + `}},
	  "ifAllowed":[{"call":{"method":"terminal/create","params":{"command":"sh","args":["-c",` + mustJSON(command) + `]}},
	    "ifOK":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed","rawOutput":"$output"}}],
	    "ifError":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"failed"}}]}],
	  "ifRejected":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"failed",
	    "content":[{"type":"content","content":{"type":"text","text":"User refused permission to run tool"}}]}}]},
	 {"say":"DONE-` + id + `"},{"stop":"end_turn"}]`
}

// TestV2EditorAndV2Agent runs every behaviour of docs/acp.md's matrix with
// a v2 editor in front of a v2 agent: a deny (of a tool_call subject and of
// a command subject) stops the tool and says why once, in the tool card
// too, and the model reads the reason with the next prompt; an ask reaches
// the user once with the hook's reason in the v2 request's own title; a
// Stop block sends the follow-up and keeps the editor's turn open until the
// agent is idle for good; a blocked prompt never reaches the agent and ends
// as v2 ends a turn; the transcript and the run history have the tool.
func TestV2EditorAndV2Agent(t *testing.T) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	path := func(name string) string { return filepath.Join(project, name) }
	denied, cmdDenied, allowed, asked := path("build-dir"), path("cmd-dir"), path("allowed.txt"), path("ASKME.txt")
	require.NoError(t, os.MkdirAll(denied, 0o755))
	require.NoError(t, os.MkdirAll(cmdDenied, 0o755))
	commandTurn := `[{"permission":{},"title":"Run rm?","subject":{"type":"command","command":` + mustJSON("rm -rf "+cmdDenied) + `,"cwd":` + mustJSON(project) + `},
	    "ifAllowed":[{"call":{"method":"terminal/create","params":{"command":"sh","args":["-c",` + mustJSON("rm -rf "+cmdDenied) + `]}}}],
	    "ifRejected":[{"say":"REJECTED-cmd"}]},{"stop":"end_turn"}]`
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) { o.TrustWorkspace = true },
		script: `{"protocolVersion": 2, "ownOperations": true, "turns": [` + strings.Join([]string{
			v2Shell("deny", "rm -rf "+denied), `[{"say":"NOTED"},{"stop":"end_turn"}]`,
			commandTurn,
			v2Shell("allow", "echo OUT-allow && touch "+allowed),
			v2Shell("ask", "touch "+asked),
			`[{"say":"FIRST"},{"stop":"end_turn"}]`, `[{"say":"SECOND"},{"stop":"end_turn"}]`,
		}, ",") + `]}`})
	init := r.initializeV2()
	require.Nil(t, init.Error, "initialize: %s", init.Line)
	require.Equal(t, int32(2), protocolVersion(init.Result), "the agent's v2 answer reaches the v2 editor")
	require.True(t, r.proxy.editorV2() && r.proxy.agentV2())
	newSession := func() string { s, _ := r.newSession(); return s }

	t.Run("deny stops the tool, says why once, and the model reads why", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", r.promptV2(sess, "clean"))
		require.True(t, exists(denied), "the denied command did not run")
		require.Len(t, h.runs(t, "PreToolUse", denied), 1)
		require.Empty(t, h.runs(t, "PostToolUse", denied))
		require.Len(t, r.sessionMessages(sess, denyReason), 1)
		require.Contains(t, r.lastFailure(sess), denyReason, "the tool card keeps the reason")
		require.Empty(t, r.editorUpdates(sess, acpmsg.UpdateToolCall), "v2 has no tool_call update: the proxy's card is a tool_call_update")
		for _, u := range r.editorUpdates(sess, acpmsg.UpdateAgentMessageChunk) {
			require.Contains(t, u.line, `"messageId"`, "every v2 message chunk has a messageId: %s", u.line)
		}
		require.Equal(t, "end_turn", r.promptV2(sess, "why not?"))
		prompts := r.agentGot("session/prompt")
		texts := promptTexts(prompts[len(prompts)-1])
		require.Equal(t, "why not?", texts[len(texts)-1])
		require.Contains(t, strings.Join(texts[:len(texts)-1], "\n"), denyReason, "the model reads the hook's reason before the prompt")
	})
	t.Run("a command subject is judged as Bash and denied", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		sess := newSession()
		require.Equal(t, "end_turn", r.promptV2(sess, "clean the other"))
		require.True(t, exists(cmdDenied))
		pre := h.runs(t, "PreToolUse", cmdDenied)
		require.Len(t, pre, 1)
		require.Contains(t, r.agentTexts(), "REJECTED-cmd")
		require.Equal(t, before, r.countNoted(methodRequestPermission), "the editor never saw the denied request")
	})
	t.Run("allow lets it through; transcript and run history have it", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", r.promptV2(sess, "make it"))
		require.True(t, exists(allowed))
		post := h.runs(t, "PostToolUse", allowed)
		require.Len(t, post, 1)
		require.Contains(t, post[0].Response, "OUT-allow")
		tools := blocksOf(r.transcript(sess), "tool")
		require.Len(t, tools, 1, "the v2 agent's tool call (its first tool_call_update) is in the transcript")
		require.Contains(t, mustJSON(tools[0]), allowed)
		runs := r.call(methodHookRuns, map[string]any{"sessionId": sess, "event": "PreToolUse"})
		require.Nil(t, runs.Error, runs.Line)
		require.Contains(t, string(runs.Result), `"event":"PreToolUse"`, "the run history has the decision")
	})
	t.Run("ask reaches the user once, with the reason in the v2 title", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		require.Equal(t, "end_turn", r.promptV2(newSession(), "make it"))
		got := r.noted(methodRequestPermission)[before:]
		require.Len(t, got, 1)
		var req acpmsg.RequestPermissionRequestV2
		require.NoError(t, json.Unmarshal(got[0].Params, &req))
		require.Contains(t, req.Title, askReason, "the request's own title carries the why")
		require.NotNil(t, req.Subject)
		require.Equal(t, acpmsg.SubjectToolCall, req.Subject.Type)
		require.NotContains(t, *req.Subject.ToolCall.Title, askReason, "v2: the tool call's title is not the question")
		require.True(t, exists(asked), "the user allowed it")
		require.Len(t, h.runs(t, "PreToolUse", asked), 1)
	})
	t.Run("a blocked prompt never reaches the agent and ends as a v2 turn", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "refusal", r.promptV2(sess, "the key is "+secret))
		for _, m := range r.agentGot("session/prompt") {
			require.NotContains(t, strings.Join(promptTexts(m), " "), secret)
		}
	})
	t.Run("a Stop block continues the turn until the agent is idle for good", func(t *testing.T) {
		require.NoError(t, os.WriteFile(h.stopFlag, nil, 0o600))
		sess := newSession()
		require.Equal(t, "end_turn", r.promptV2(sess, "answer twice"))
		require.Contains(t, r.agentTexts(), "SECOND", "the follow-up reached the agent within the turn")
		require.Equal(t, 2, h.eventRuns(t, "Stop", sess))
		require.Len(t, r.sessionMessages(sess, stopReason77), 1)
		require.Equal(t, 1, r.idles(sess), "the editor's turn ended once: the idle before the follow-up was held back")
	})
}

// TestV2EditorWithV1Agent: an editor that offers v2 to an agent that speaks
// only v1 gets the agent's answer, version 1, unchanged, and (as ACP's
// negotiation has it) goes on in v1, with every hook as before.
func TestV2EditorWithV1Agent(t *testing.T) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	denied := filepath.Join(project, "build-dir")
	require.NoError(t, os.MkdirAll(denied, 0o755))
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) { o.TrustWorkspace = true },
		script: `{"ownOperations": true, "turns": [` + v2Shell("deny", "rm -rf "+denied) + `]}`})
	init := r.initializeV2()
	require.Nil(t, init.Error, "initialize: %s", init.Line)
	require.Equal(t, int32(1), protocolVersion(init.Result), "the v1 agent's answer reaches the editor as it is")
	require.False(t, r.proxy.editorV2() || r.proxy.agentV2(), "the connection is v1 both sides")
	sess, _ := r.newSession()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean")), "v1: the answer ends the turn")
	require.True(t, exists(denied))
	require.Len(t, h.runs(t, "PreToolUse", denied), 1)
	require.Len(t, r.sessionMessages(sess, denyReason), 1)
}

// TestV1EditorWithV2Agent: a v1 editor in front of an agent that speaks v1
// and v2 gets v1 (the agent answers the version offered), untranslated.
func TestV1EditorWithV2Agent(t *testing.T) {
	t.Run("an agent that speaks both answers v1", func(t *testing.T) {
		r := startRig(t, rigOptions{opts: func(o *Options) { o.TrustWorkspace = true },
			script: `{"protocolVersion": 2, "turns": [[{"say":"HELLO-v1"},{"stop":"end_turn"}]]}`})
		require.Equal(t, float64(1), r.initialize(map[string]any{})["protocolVersion"])
		sess, _ := r.newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "hi")))
		require.Contains(t, r.agentTexts(), "HELLO-v1")
	})
}

func TestV2Negotiate(t *testing.T) {
	for _, c := range []struct {
		offered, answered, editor, agent int32
		how                              pairing
	}{
		{1, 1, 1, 1, pairPass}, {2, 2, 2, 2, pairPass}, {2, 1, 1, 1, pairPass},
		{1, 2, 1, 1, pairTranslate}, {0, 1, 1, 1, pairPass}, {3, 3, 0, 0, pairPass},
	} {
		e, a, how := negotiate(c.offered, c.answered)
		require.Equal(t, []any{c.editor, c.agent, c.how}, []any{e, a, how}, "offered %d, answered %d", c.offered, c.answered)
	}
}

// v1EditorCapabilities is what a real v1 editor (Zed, JetBrains) offers at
// initialize: files and a terminal, which a v2 agent has no methods for.
var v1EditorCapabilities = map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true}

// TestV1EditorWithV2OnlyAgent runs every behaviour of docs/acp.md's matrix
// with a v1 editor, as every editor that ships is, in front of an agent that
// speaks only the v2 draft: the proxy translates, so the editor sees a v1
// agent (its initialize answer, a prompt answered with its stopReason when
// the turn ends, tool_call before tool_call_update, v1 permission requests
// with a toolCall), and the hooks hold as on v1: a deny (of a tool_call
// subject and of a command subject) stops the tool and says why once, and
// the model reads the reason; an ask reaches the user once with the reason;
// a blocked prompt never reaches the agent; a Stop block continues the turn
// and the editor gets one answer; the transcript and the run history have
// the tool. Nothing v2 reaches the editor, and the agent is offered neither
// the editor's files nor its terminal.
func TestV1EditorWithV2OnlyAgent(t *testing.T) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	path := func(name string) string { return filepath.Join(project, name) }
	denied, cmdDenied, allowed, asked := path("build-dir"), path("cmd-dir"), path("allowed.txt"), path("ASKME.txt")
	require.NoError(t, os.MkdirAll(denied, 0o755))
	require.NoError(t, os.MkdirAll(cmdDenied, 0o755))
	commandTurn := `[{"permission":{},"title":"Run rm?","subject":{"type":"command","command":` + mustJSON("rm -rf "+cmdDenied) + `,"cwd":` + mustJSON(project) + `},
	    "ifAllowed":[{"call":{"method":"terminal/create","params":{"command":"sh","args":["-c",` + mustJSON("rm -rf "+cmdDenied) + `]}}}],
	    "ifRejected":[{"say":"REJECTED-cmd"}]},{"stop":"end_turn"}]`
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) { o.TrustWorkspace = true },
		script: `{"protocolVersion": 2, "v2Only": true, "ownOperations": true, "turns": [` + strings.Join([]string{
			v2Shell("deny", "rm -rf "+denied), `[{"say":"NOTED"},{"stop":"end_turn"}]`,
			commandTurn,
			v2Shell("allow", "echo OUT-allow && touch "+allowed),
			v2Shell("ask", "touch "+asked),
			`[{"say":"FIRST"},{"stop":"end_turn"}]`, `[{"say":"SECOND"},{"stop":"end_turn"}]`,
		}, ",") + `]}`})
	init := r.initialize(v1EditorCapabilities)
	require.Equal(t, float64(1), init["protocolVersion"], "the v1 editor is answered in v1")
	require.Equal(t, "scriptagent", init["agentInfo"].(map[string]any)["name"], "v2's info is v1's agentInfo")
	require.NotContains(t, init, "info")
	require.NotContains(t, init, "capabilities")
	require.Contains(t, init, "agentCapabilities")
	require.True(t, r.proxy.translating())
	newSession := func() string { s, _ := r.newSession(); return s }

	t.Run("deny stops the tool, says why once, and the model reads why", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean")), "the idle state update became the prompt's v1 answer")
		require.True(t, exists(denied), "the denied command did not run")
		require.Len(t, h.runs(t, "PreToolUse", denied), 1)
		require.Empty(t, h.runs(t, "PostToolUse", denied))
		require.Len(t, r.sessionMessages(sess, denyReason), 1)
		require.Contains(t, r.lastFailure(sess), denyReason, "the tool card keeps the reason")
		require.NotEmpty(t, r.editorUpdates(sess, acpmsg.UpdateToolCall), "v1: the editor is shown the call as a tool_call")
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "why not?")))
		prompts := r.agentGot("session/prompt")
		texts := promptTexts(prompts[len(prompts)-1])
		require.Equal(t, "why not?", texts[len(texts)-1])
		require.Contains(t, strings.Join(texts[:len(texts)-1], "\n"), denyReason, "the model reads the hook's reason before the prompt")
	})
	t.Run("a command subject is judged as Bash and denied", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean the other")))
		require.True(t, exists(cmdDenied))
		require.Len(t, h.runs(t, "PreToolUse", cmdDenied), 1)
		require.Contains(t, r.agentTexts(), "REJECTED-cmd")
		require.Equal(t, before, r.countNoted(methodRequestPermission), "the editor never saw the denied request")
	})
	t.Run("allow lets it through; transcript and run history have it", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "make it")))
		require.True(t, exists(allowed))
		post := h.runs(t, "PostToolUse", allowed)
		require.Len(t, post, 1)
		require.Contains(t, post[0].Response, "OUT-allow")
		tools := blocksOf(r.transcript(sess), "tool")
		require.Len(t, tools, 1)
		require.Contains(t, mustJSON(tools[0]), allowed)
		runs := r.call(methodHookRuns, map[string]any{"sessionId": sess, "event": "PreToolUse"})
		require.Nil(t, runs.Error, runs.Line)
		require.Contains(t, string(runs.Result), `"event":"PreToolUse"`)
	})
	t.Run("ask reaches the user once, as a v1 request with the reason", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		require.Equal(t, "end_turn", stopReason(t, r.prompt(newSession(), "make it")))
		got := r.noted(methodRequestPermission)[before:]
		require.Len(t, got, 1)
		var req acpmsg.RequestPermissionRequest
		require.NoError(t, json.Unmarshal(got[0].Params, &req))
		require.NotNil(t, req.ToolCall.Title, "v1's toolCall: %s", got[0].Line)
		require.Contains(t, *req.ToolCall.Title, askReason)
		require.NotContains(t, got[0].Line, `"subject"`, "nothing v2 reaches the v1 editor")
		require.True(t, exists(asked), "the user allowed it")
		require.Len(t, h.runs(t, "PreToolUse", asked), 1)
	})
	t.Run("a blocked prompt never reaches the agent", func(t *testing.T) {
		require.Equal(t, "refusal", stopReason(t, r.prompt(newSession(), "the key is "+secret)))
		for _, m := range r.agentGot("session/prompt") {
			require.NotContains(t, strings.Join(promptTexts(m), " "), secret)
		}
	})
	t.Run("a Stop block continues the turn; the editor gets one answer", func(t *testing.T) {
		require.NoError(t, os.WriteFile(h.stopFlag, nil, 0o600))
		sess := newSession()
		id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "answer twice"}}})
		require.Equal(t, "end_turn", stopReason(t, r.await(id)))
		require.Contains(t, r.agentTexts(), "SECOND", "the follow-up reached the agent within the turn")
		require.Equal(t, 2, h.eventRuns(t, "Stop", sess))
		require.Len(t, r.sessionMessages(sess, stopReason77), 1)
	})
	for _, m := range r.noted(methodSessionUpdate) {
		require.NotContains(t, m.Line, `"state_update"`, "v1 has no state updates")
		require.NotContains(t, m.Line, `"user_message"`, "v1 has no whole messages")
	}
	for _, method := range []string{methodReadTextFile, methodWriteTextFile, methodTerminalCreate} {
		require.Empty(t, r.noted(method), "the editor got no %s", method)
	}
	init2 := r.agentGot("initialize")
	require.Len(t, init2, 1)
}

// TestV1EditorWithV2OnlyAgentHostile holds the translation against a v2
// agent that misbehaves, one case per translated message: a state update
// that does not read as one does not end the turn (the real idle does); a
// prompt acknowledged and never ended is answered "cancelled" when the
// editor cancels; a file or terminal request, which v2 does not have, is
// refused with an error naming the method and the version and never
// reaches the editor; a tool call first seen in a tool_call_update is shown
// as v1's tool_call, and a v2 diff and a content chunk as v1 content;
// session/set_mode becomes v2's set_config_option of the mode option, and
// is refused with a clear error where the agent has none; session/load
// becomes session/resume with a replay from the start.
func TestV1EditorWithV2OnlyAgentHostile(t *testing.T) {
	turns := []string{
		`[{"update":{"sessionUpdate":"state_update","state":"idle","stopReason":7}},{"say":"AFTER-BAD-IDLE"},{"stop":"end_turn"}]`,
		`[{"say":"WAITING"},{"hang":true}]`,
		`[{"call":{"method":"terminal/output","params":{"terminalId":"t1"}},"ifError":[{"say":"REFUSED: $error"}]},{"stop":"end_turn"}]`,
		`[{"stdout":` + mustJSON(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"tool_call_update",`+
			`"toolCallId":"d1","kind":"edit","status":"completed","_meta":{"k": "<b>"},`+
			`"content":[{"type":"diff","changes":[{"operation":"modify","path":"/p/a.go"}],"patch":{"format":"unified","text":"@@ -1 +1 @@\n-a\n+b\n"}}]}}}`) + `},
		  {"update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"content","content":{"type":"text","text":"PART-1"}}}},
		  {"update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"content","content":{"type":"text","text":"PART-2"}}}},
		  {"update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"STEP-1","priority":"high","status":"pending"}]}}},
		  {"update":{"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"p2","text":"# no"}}},
		  {"update":{"sessionUpdate":"agent_message","messageId":"m1","content":[{"type":"text","text":"WHOLE-1"}]}},
		  {"stdout":` + mustJSON(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message",`+
			`"messageId":"m1","content":[{"type":"text","text":"WHOLE-1"},{"type":"text", "text":"WHOLE-2 <i>"}]}}}`) + `},
		  {"update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":"aGk="}},
		  {"stop":"overloaded"}]`,
		`[{"permission":{},"title":"DENYME teleport","subject":{"type":"teleport","to":"mars"},
		   "ifAllowed":[{"say":"ALLOWED-teleport"}],"ifRejected":[{"say":"REJECTED-teleport"}]},{"stop":"end_turn"}]`,
		`[{"permission":{"toolCallId":"e1","title":"Edit ASKME.go","kind":"edit","locations":[{"path":"/p/ASKME.go"}],"content":[{"type":"diff","changes":[{"operation":"add","path":"/p/b.go"}],
		   "patch":{"format":"unified","text":"+NEW-LINE\n"}}]},"ifAllowed":[{"say":"ALLOWED-edit"}],"ifRejected":[]},{"stop":"end_turn"}]`,
	}
	project := t.TempDir()
	writeMatrixHooks(t, project)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) { o.TrustWorkspace = true; o.cancelGrace = 200 * time.Millisecond },
		script: `{"protocolVersion": 2, "v2Only": true, "v2Modes": ["ask", "code"], "replay": ["REPLAY-user", "REPLAY-agent"],
		  "turns": [` + strings.Join(turns, ",") + `]}`})
	r.initialize(v1EditorCapabilities)
	sess, opened := r.newSession()

	t.Run("a malformed idle update does not end the turn", func(t *testing.T) {
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "one")))
		require.Contains(t, r.agentTexts(), "AFTER-BAD-IDLE", "the turn went on to the real idle update")
	})
	t.Run("an acknowledged prompt the agent never ends is answered cancelled on cancel", func(t *testing.T) {
		id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "two"}}})
		for !slices.Contains(r.agentTexts(), "WAITING") {
			require.NotNil(t, r.read())
		}
		r.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sess}})
		require.Equal(t, "cancelled", stopReason(t, r.await(id)))
	})
	t.Run("a file or terminal request is refused with the method and version", func(t *testing.T) {
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "three")))
		var refused string
		for _, s := range r.agentTexts() {
			if strings.HasPrefix(s, "REFUSED: ") {
				refused = s
			}
		}
		require.Contains(t, refused, "terminal/output is not a method of ACP version 2")
		require.Contains(t, refused, acpmsg.SchemaV2Release)
		require.Empty(t, r.noted("terminal/output"))
	})
	t.Run("tool calls, diffs, content chunks, plans and whole messages in v1's shapes", func(t *testing.T) {
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "four")), "a stop reason v1 lacks reads as end_turn")
		calls := r.editorUpdates(sess, acpmsg.UpdateToolCall)
		require.Len(t, calls, 2, "each call is shown once as a tool_call")
		require.Contains(t, calls[0].line, `"title":"d1"`, "v1 requires a title")
		require.Contains(t, calls[0].line, "modify /p/a.go")
		require.Contains(t, calls[0].line, `+b`)
		require.NotContains(t, calls[0].line, `"changes"`)
		require.Contains(t, calls[0].line, `"_meta":{"k": "<b>"}`, "what is not translated keeps its bytes")
		updates := r.editorUpdates(sess, acpmsg.UpdateToolCallUpdate)
		require.NotEmpty(t, updates)
		last := updates[len(updates)-1].line
		require.Contains(t, last, "PART-1")
		require.Contains(t, last, "PART-2", "the content so far: v1 replaces, v2 appended")
		plans := r.editorUpdates(sess, "plan")
		require.Len(t, plans, 1, "an items plan is v1's plan; a markdown one has no v1 shape")
		require.Contains(t, plans[0].line, "STEP-1")
		texts := strings.Join(r.agentTexts(), "|")
		require.Equal(t, 1, strings.Count(texts, "WHOLE-1"), "a block of a whole message goes once")
		require.Contains(t, texts, "WHOLE-2 <i>")
		for _, u := range r.editorUpdates(sess, acpmsg.UpdateAgentMessageChunk) {
			if strings.Contains(u.line, "WHOLE-2") {
				require.Contains(t, u.line, `{"type":"text", "text":"WHOLE-2 <i>"}`, "a block keeps its bytes")
			}
		}
		for _, m := range r.noted(methodSessionUpdate) {
			for _, v2 := range []string{"tool_call_content_chunk", "plan_update", `"agent_message"`, "terminal_output_chunk", "state_update"} {
				require.NotContains(t, m.Line, v2)
			}
		}
	})
	t.Run("a permission subject of a kind v1 lacks is judged by its title", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "five")))
		require.Contains(t, r.agentTexts(), "REJECTED-teleport", "the hook's deny holds")
		require.NotContains(t, r.agentTexts(), "ALLOWED-teleport")
		require.Equal(t, before, r.countNoted(methodRequestPermission), "the editor never saw the denied request")
	})
	t.Run("a permission request's v2 diff reaches the editor as v1 content", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "six")))
		got := r.noted(methodRequestPermission)[before:]
		require.Len(t, got, 1)
		require.Contains(t, got[0].Line, "add /p/b.go")
		require.Contains(t, got[0].Line, "+NEW-LINE")
		require.NotContains(t, got[0].Line, `"changes"`)
		require.Contains(t, r.agentTexts(), "ALLOWED-edit")
	})
	t.Run("modes are the mode config option; set_mode sets it", func(t *testing.T) {
		modes, _ := opened["modes"].(map[string]any)
		require.NotNil(t, modes, "session/new's answer has v1 modes: %v", opened)
		require.Equal(t, "ask", modes["currentModeId"])
		require.Len(t, modes["availableModes"], 2)
		set := r.call("session/set_mode", map[string]any{"sessionId": sess, "modeId": "code"})
		require.Nil(t, set.Error, set.Line)
		require.JSONEq(t, `{}`, string(set.Result), "v1's set_mode answer")
		got := r.agentGot("session/set_config_option")
		require.Len(t, got, 1)
		require.Equal(t, map[string]any{"sessionId": sess, "configId": "mode", "type": "id", "value": "code"}, got[0]["params"])
		for r.countNoted(methodSessionUpdate) == 0 || len(r.editorUpdates(sess, "current_mode_update")) == 0 {
			require.NotNil(t, r.read())
		}
		require.Contains(t, r.editorUpdates(sess, "current_mode_update")[0].line, `"currentModeId":"code"`)
	})
	t.Run("set_mode without a mode option is refused with the reason", func(t *testing.T) {
		res := r.call("session/set_mode", map[string]any{"sessionId": "sess-unknown", "modeId": "code"})
		require.NotNil(t, res.Error)
		require.Equal(t, rpcerr.MethodNotFound, res.Error.Code)
		require.Contains(t, res.Error.Message, "session/set_mode")
		require.Contains(t, res.Error.Message, "ACP version 2")
	})
	t.Run("session/load replays through session/resume", func(t *testing.T) {
		res := r.call("session/load", map[string]any{"sessionId": sess, "cwd": r.project, "mcpServers": []any{}})
		require.Nil(t, res.Error, res.Line)
		got := r.agentGot("session/resume")
		require.Len(t, got, 1)
		require.Equal(t, map[string]any{"type": "start"}, got[0]["params"].(map[string]any)["replayFrom"])
		var user []string
		for _, u := range r.editorUpdates(sess, "user_message_chunk") {
			user = append(user, u.text())
		}
		require.Equal(t, []string{"REPLAY-user"}, user, "the replay's user message is v1's user_message_chunk")
		require.Contains(t, r.agentTexts(), "REPLAY-agent")
	})
}

// TestV1EditorWithV2OnlyAgentExitsMidTurn: a v2 agent that acknowledged
// the prompt and exits before its idle update leaves no v1 editor waiting:
// the prompt is answered with an error that says the agent exited.
func TestV1EditorWithV2OnlyAgentExitsMidTurn(t *testing.T) {
	r := startRig(t, rigOptions{opts: func(o *Options) { o.TrustWorkspace = true },
		script: `{"protocolVersion": 2, "v2Only": true, "turns": [[{"say":"BYE"},{"crash":3}]]}`})
	r.initialize(v1EditorCapabilities)
	sess, _ := r.newSession()
	res := r.prompt(sess, "go")
	require.NotNil(t, res.Error, "the prompt is answered: %s", res.Line)
	require.Contains(t, res.Error.Message, "the agent exited")
	require.Equal(t, 3, r.wait())
}
