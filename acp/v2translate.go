package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// A v1 editor in front of an agent that speaks only the ACP v2 draft
// (issue #37 item 1). Every editor that ships speaks v1, so the proxy
// translates: the agent's v2 messages become v1 before the proxy's own
// logic sees them (fromV2Agent), and what goes to the agent becomes v2 on
// the way out (toV2Agent). In between the connection is v1 on both sides as
// far as the proxy's hooks are concerned, so every behaviour of the v1
// matrix (deny, ask, the reason reaching the model, Stop and prompt blocks,
// transcript, run history) holds as it is. What changes, and what the
// proxy does (docs/acp.md, "ACP v1 and v2", has the table):
//
//	initialize's answer    v2 "info"/"capabilities" → v1 "agentInfo"/"agentCapabilities" (initializeToV1)
//	session/prompt         the v2 acknowledgment is held; the idle state_update that ends the turn becomes
//	                       the prompt's v1 answer with its stopReason (promptAnswerToV1, stateUpdateToV1)
//	session/cancel         passed; a turn the agent does not end within cancelGrace is answered "cancelled"
//	request_permission     title + subject → v1 toolCall (permissionToV1)
//	tool_call_update       the first of an id → v1 tool_call; v2 diffs → a text block (toolUpdateToV1)
//	tool_call_content_chunk → a tool_call_update with the content so far (contentChunkToV1)
//	plan_update            "items" → v1 plan; other kinds dropped (planToV1)
//	agent_message/_thought whole messages → v1 chunks of the blocks not sent yet (messageToV1)
//	user_message           dropped, except while session/load replays (→ user_message_chunk)
//	terminal_*, running/requires_action state updates: dropped (v1 has none)
//	config options         v2 "configId" → v1 "id"; the "mode" option also as v1 modes (configOptionsToV1)
//	session/set_mode       → session/set_config_option of the mode option (setModeToV2)
//	session/set_config_option  v1's untyped value gets v2's "type":"id" (setConfigToV2)
//	session/load           → session/resume with replayFrom start (loadToV2)
//	authenticate, logout   → auth/login, auth/logout (same params)
//	fs/*, terminal/*       a v2 agent was offered none: refused with an error naming the method and version
//
// The reverse pair, a v2 editor in front of a v1-only agent, is not
// translated: ACP's own negotiation settles it (the agent answers 1, and
// the editor goes on in v1 or disconnects), and every v2 editor speaks v1
// too, since every agent that ships does.

// cancelGrace is how long after an editor's session/cancel a v2 agent has
// to end the cancelled turn with an idle state update before the proxy
// answers the v1 editor's prompt with stopReason "cancelled" itself: v1
// promises the editor that answer, and an agent that never sends its idle
// update would leave the editor waiting forever.
const cancelGrace = 5 * time.Second

// translator is what the translation remembers, per session: the v2 agent
// ends turns and reshapes calls in ways the single messages do not say.
type translator struct {
	mu sync.Mutex
	// calls are the requests sent to the agent whose answers are reshaped,
	// by id.
	calls map[string]*translatedCall
	// sessions by the agent's session id.
	sessions map[string]*v2Session
}

// translatedCall is a request sent to a v2 agent whose answer is reshaped.
type translatedCall struct {
	method    string // as the editor (or the proxy) sent it: v1's name
	sessionID string
	// acked: a prompt's acknowledgment came; answered: its turn was
	// answered (idle update, cancel grace). A prompt is forgotten once both.
	acked, answered bool
}

// v2Session is one session's translation state.
type v2Session struct {
	// prompts are the ids of the prompts whose turn has not ended, oldest first.
	prompts []json.RawMessage
	// shown are the tool calls the editor was shown (as v1's tool_call).
	shown map[string]bool
	// content is each tool call's content so far (tool_call_content_chunk).
	content map[string][]json.RawMessage
	// sent is how many blocks of each whole v2 message went out as chunks.
	sent map[string]int
	// modeOption is the configId of the session's "mode" config option.
	modeOption string
}

// session is a session's state, made on first use; t.mu is held.
func (t *translator) session(id string) *v2Session {
	if t.sessions == nil {
		t.sessions = map[string]*v2Session{}
		t.calls = map[string]*translatedCall{}
	}
	s := t.sessions[id]
	if s == nil {
		s = &v2Session{shown: map[string]bool{}, content: map[string][]json.RawMessage{}, sent: map[string]int{}}
		t.sessions[id] = s
	}
	return s
}

// track remembers a request whose answer is reshaped; t.mu is held.
func (t *translator) track(id json.RawMessage, method, sessionID string) *translatedCall {
	t.session(sessionID) // makes the maps
	c := &translatedCall{method: method, sessionID: sessionID}
	t.calls[idKey(id)] = c
	return c
}

// translating reports whether this connection is a v1 editor in front of
// a v2-only agent.
func (p *Proxy) translating() bool { return p.versions.translate.Load() }

// ---- the agent's side: v2 in, v1 to the proxy ----

// fromV2Agent turns one message of a v2 agent into what a v1 agent would
// have sent, and routes that; a message v1 has no counterpart of is dropped
// (and logged when it matters).
func (p *Proxy) fromV2Agent(m *message) {
	switch {
	case m.isResponse():
		p.answerToV1(m)
	case m.isRequest():
		switch {
		case m.Method == methodRequestPermission:
			p.permissionToV1(m)
		case strings.HasPrefix(m.Method, "fs/") || strings.HasPrefix(m.Method, "terminal/"):
			p.refuseV1OnlyRequest(m)
		default:
			p.routeAgent(m)
		}
	case m.isNotification() && m.Method == methodSessionUpdate:
		p.updateToV1(m)
	default:
		p.routeAgent(m)
	}
}

// routeAgentLines routes the v1 lines a v2 message became: the first in m's
// place (so that safely sees it dealt with), the others after it.
func (p *Proxy) routeAgentLines(m *message, lines ...[]byte) {
	m.passed = true
	for i, line := range lines {
		n, err := parseMessage(line)
		if err != nil { // only lines the proxy built get here
			p.log.Error("internal error: a translated message does not parse", "err", err)
			continue
		}
		if i == 0 {
			*m = *n
			n = m
		}
		p.routeAgent(n)
	}
}

// drop takes a v2 message that has no v1 counterpart off the wire.
func (p *Proxy) drop(m *message, why string, args ...any) {
	m.passed = true
	if why != "" {
		p.log.Debug("a v2 message was not passed to the v1 editor: "+why, args...)
	}
}

// refuseV1OnlyRequest answers a v2 agent's file or terminal request: v2
// has no such methods, and the proxy offered the agent none of the v1
// editor's (its initialize names v2's capabilities, which have no fs or
// terminal), so the request is refused, not passed to the editor.
func (p *Proxy) refuseV1OnlyRequest(m *message) {
	p.log.Warn("the v2 agent sent a v1-only request; refused", "method", m.Method)
	p.toAgent(m, errorLine(m.ID, rpcerr.MethodNotFound, fmt.Sprintf("wavehooks: %s is not a method of ACP version %d "+
		"(schema %s): a v2 client has no file or terminal methods, and none was offered", m.Method, acpmsg.ProtocolV2, acpmsg.SchemaV2Release), nil))
}

// initializeToV1 is a v2 agent's initialize answer as v1's: version 1,
// "agentInfo" for "info", and "agentCapabilities" from "capabilities"
// (v2's session capabilities, whose list, resume and close every v2 agent
// has, with its prompt and MCP capabilities, which v1 keeps beside them;
// loadSession, since session/load becomes session/resume). Every other
// member keeps its bytes.
func initializeToV1(result json.RawMessage) json.RawMessage {
	res, err := decodeObject(result)
	if err != nil {
		return result
	}
	res["protocolVersion"] = json.RawMessage("1")
	if info, ok := res["info"]; ok {
		res["agentInfo"] = info
		delete(res, "info")
	}
	caps, _ := decodeObject(res["capabilities"])
	delete(res, "capabilities")
	session, _ := decodeObject(caps["session"])
	delete(caps, "session")
	present := func(raw json.RawMessage) bool { return !isNull(raw) }
	if prompt, err := decodeObject(session["prompt"]); err == nil && len(prompt) > 0 {
		caps["promptCapabilities"] = mustRaw(acpmsg.PromptCapabilities{Audio: present(prompt["audio"]),
			EmbeddedContext: present(prompt["embeddedContext"]), Image: present(prompt["image"])})
	}
	if mcp, err := decodeObject(session["mcp"]); err == nil && len(mcp) > 0 {
		caps["mcpCapabilities"] = mustRaw(acpmsg.McpCapabilities{HTTP: present(mcp["http"])})
	}
	delete(session, "prompt")
	delete(session, "mcp")
	for _, always := range []string{"list", "resume", "close"} {
		if _, ok := session[always]; !ok {
			session[always] = json.RawMessage("{}")
		}
	}
	caps["sessionCapabilities"] = rawObject(session)
	caps["loadSession"] = json.RawMessage("true")
	res["agentCapabilities"] = rawObject(caps)
	return rawObject(res)
}

// answerToV1 routes a v2 agent's answer as v1's: a prompt's acknowledgment
// is held (the turn ends with the idle state update); session/new's,
// resume's and load's get v1's config options and modes; set_mode's is
// v1's empty answer. An error is the same in both versions.
func (p *Proxy) answerToV1(m *message) {
	tr := &p.translator
	tr.mu.Lock()
	c := tr.calls[idKey(m.ID)]
	if c == nil {
		tr.mu.Unlock()
		p.routeAgent(m)
		return
	}
	if c.method == methodSessionPrompt {
		switch {
		case m.Error != nil:
			delete(tr.calls, idKey(m.ID))
			s := tr.session(c.sessionID)
			s.prompts = withoutID(s.prompts, m.ID)
			tr.mu.Unlock()
			p.routeAgent(m) // refused: no turn began
		case c.answered:
			delete(tr.calls, idKey(m.ID))
			tr.mu.Unlock()
			p.drop(m, "") // the turn was answered already
		default:
			c.acked = true
			tr.mu.Unlock()
			p.drop(m, "") // accepted: the turn ends with the idle state update
		}
		return
	}
	delete(tr.calls, idKey(m.ID))
	tr.mu.Unlock()
	if m.Error != nil {
		p.routeAgent(m)
		return
	}
	switch c.method {
	case methodSessionSetMode:
		p.routeAgentLines(m, rawResultLine(m.ID, json.RawMessage("{}"))) // v1: SetSessionModeResponse
	default: // session/new, resume, load, set_config_option
		result, changed := p.configOptionsToV1(m.Result, c.sessionID, c.method != methodSessionSetConfig)
		if !changed {
			p.routeAgent(m)
			return
		}
		p.routeAgentLines(m, rawResultLine(m.ID, result))
	}
}

// rawResultLine answers id with a result whose bytes are kept as they are
// (keepbytes.go): encoding/json would compact them and escape "<".
func rawResultLine(id, result json.RawMessage) []byte {
	return rawLine(rawMember{`"jsonrpc"`, []byte(`"2.0"`)}, rawMember{`"id"`, id}, rawMember{`"result"`, result})
}

// updateLine is a session/update of the session m is about (its sessionId
// as the agent wrote it) with update, each member's bytes kept.
func updateLine(m *message, update acpmsg.Object) []byte {
	params, _ := decodeObject(m.Params)
	return rawRequestLine(nil, methodSessionUpdate, rawObject(acpmsg.Object{"sessionId": params["sessionId"], "update": rawObject(update)}))
}

// withoutID is ids without id.
func withoutID(ids []json.RawMessage, id json.RawMessage) []json.RawMessage {
	out := ids[:0]
	for _, x := range ids {
		if idKey(x) != idKey(id) {
			out = append(out, x)
		}
	}
	return out
}

// configOptionsToV1 is a result (or update) with config options in v1's
// shape: each option's "configId" becomes "id"; with modes, the option of
// category "mode" is also v1's "modes" (currentModeId, availableModes),
// which v1 editors show and set with session/set_mode. The session's mode
// option is remembered for that. sessionID "" takes the result's own.
func (p *Proxy) configOptionsToV1(raw json.RawMessage, sessionID string, modes bool) (json.RawMessage, bool) {
	obj, err := decodeObject(raw)
	if err != nil || isNull(obj["configOptions"]) {
		return raw, false
	}
	if sessionID == "" {
		var head acpmsg.NewSessionResponse
		_ = decode(raw, &head)
		sessionID = head.SessionID
	}
	var options []json.RawMessage
	if decode(obj["configOptions"], &options) != nil {
		return raw, false
	}
	var mode *acpmsg.ConfigOptionV2
	for i, o := range options {
		opt, err := decodeObject(o)
		if err != nil {
			continue
		}
		var head acpmsg.ConfigOptionV2
		_ = decode(o, &head)
		if head.Category == acpmsg.ConfigCategoryMode && mode == nil {
			mode = &head
		}
		if id, ok := opt["configId"]; ok {
			opt["id"] = id
			delete(opt, "configId")
		}
		options[i] = rawObject(opt)
	}
	obj["configOptions"] = rawArray(options)
	if mode != nil {
		p.translator.mu.Lock()
		p.translator.session(sessionID).modeOption = mode.ConfigID
		p.translator.mu.Unlock()
		if modes {
			obj["modes"] = mustRaw(acpmsg.SessionModeState{CurrentModeID: mode.CurrentValue, AvailableModes: modesOf(mode.Options)})
		}
	}
	return rawObject(obj), true
}

// modesOf is a select option's values as v1 session modes, groups flattened.
func modesOf(raw json.RawMessage) []acpmsg.SessionMode {
	var choices []acpmsg.ConfigSelectChoice
	_ = decode(raw, &choices)
	modes := []acpmsg.SessionMode{}
	var add func([]acpmsg.ConfigSelectChoice)
	add = func(cs []acpmsg.ConfigSelectChoice) {
		for _, c := range cs {
			if c.Value != nil {
				modes = append(modes, acpmsg.SessionMode{ID: c.Value, Name: c.Name})
			}
			add(c.Options)
		}
	}
	add(choices)
	return modes
}

// permissionToV1 is a v2 permission request as v1's: its subject becomes
// the toolCall (a tool_call subject's call as its bytes, titled with the
// request's title when it has none, its v2 diffs as text; a command, or a subject of a kind the
// proxy does not know, as v2ToolCall makes it), and its other members keep
// their bytes. The answer has the same shape in both versions.
func (p *Proxy) permissionToV1(m *message) {
	params, err := decodeObject(m.Params)
	var req acpmsg.RequestPermissionRequestV2
	if err != nil || decode(m.Params, &req) != nil {
		p.routeAgent(m) // judged as the malformed request it is (permission.go refuses it)
		return
	}
	var toolCall json.RawMessage
	if s := req.Subject; s != nil && s.Type == acpmsg.SubjectToolCall && s.ToolCall != nil {
		subject, _ := decodeObject(params["subject"])
		tc, err := decodeObject(subject["toolCall"])
		if err == nil {
			if _, ok := tc["title"]; !ok {
				tc["title"] = mustRaw(req.Title)
			}
			if content, ok := contentToV1(s.ToolCall.Content); ok {
				tc["content"] = rawArray(content) // v2 diffs as text (diffToV1)
			}
			toolCall = rawObject(tc)
		}
	}
	if toolCall == nil {
		toolCall = mustRaw(p.v2ToolCall(&req))
	}
	delete(params, "title")
	delete(params, "subject")
	params["toolCall"] = toolCall
	p.routeAgentLines(m, withParams(m, params))
}

// updateToV1 is a v2 session/update as v1's, by kind.
func (p *Proxy) updateToV1(m *message) {
	var head acpmsg.SessionUpdateHead
	if decode(m.Params, &head) != nil {
		p.routeAgent(m)
		return
	}
	switch head.Update.SessionUpdate {
	case acpmsg.UpdateStateUpdate:
		p.stateUpdateToV1(m, head.SessionID)
	case acpmsg.UpdateToolCallUpdate:
		p.toolUpdateToV1(m, head.SessionID)
	case acpmsg.UpdateToolCallContentChunk:
		p.contentChunkToV1(m, head.SessionID)
	case acpmsg.UpdatePlanUpdate:
		p.planToV1(m)
	case acpmsg.UpdateAgentMessage, acpmsg.UpdateAgentThought, acpmsg.UpdateUserMessage:
		p.messageToV1(m, head.SessionID, head.Update.SessionUpdate)
	case acpmsg.UpdateConfigOptionUpdate:
		p.configUpdateToV1(m, head.SessionID)
	case acpmsg.UpdateTerminalUpdate, acpmsg.UpdateTerminalOutputChunk:
		p.drop(m, "v1 has no agent-side terminal updates", "kind", head.Update.SessionUpdate)
	default: // text chunks, commands, usage, session info: the same in both
		p.routeAgent(m)
	}
}

// stateUpdateToV1 ends a turn: a v2 agent's idle state update answers the
// session's oldest open prompt with its stop reason, as a v1 agent's answer
// would (the proxy's Stop hooks run there, promptAnswered). Other states
// (running, requires_action) and an update that does not read as a state
// update are dropped: v1 has none, and a malformed one cannot end a turn
// (the editor's cancel still can, cancelGrace).
func (p *Proxy) stateUpdateToV1(m *message, sessionID string) {
	var n acpmsg.StateUpdateNotification
	if err := decode(m.Params, &n); err != nil || sessionID == "" {
		p.log.Warn("the v2 agent sent a state update that does not read as one; dropped", "err", err)
		p.drop(m, "")
		return
	}
	if n.Update.State != acpmsg.StateIdle {
		p.drop(m, "a state update other than idle", "state", n.Update.State)
		return
	}
	id, ok := p.takePrompt(sessionID, nil)
	if !ok {
		p.drop(m, "an idle state update outside a turn", "session", sessionID)
		return
	}
	p.routeAgentLines(m, promptAnswerToV1(id, n.Update.StopReason))
}

// takePrompt takes an open prompt of the session, whose turn ends now: id,
// if it is still open, or (id nil) the oldest.
func (p *Proxy) takePrompt(sessionID string, id json.RawMessage) (json.RawMessage, bool) {
	tr := &p.translator
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := tr.session(sessionID)
	switch {
	case len(s.prompts) == 0:
		return nil, false
	case id == nil:
		id = s.prompts[0]
		s.prompts = s.prompts[1:]
	default:
		n := len(s.prompts)
		if s.prompts = withoutID(s.prompts, id); len(s.prompts) == n {
			return nil, false // ended already
		}
	}
	if c := tr.calls[idKey(id)]; c != nil {
		if c.acked {
			delete(tr.calls, idKey(id))
		} else {
			c.answered = true // its acknowledgment, when it comes, is dropped
		}
	}
	if len(s.prompts) == 0 {
		clear(s.content) // the turn's tool content and messages are done
		clear(s.sent)
	}
	return id, true
}

// promptAnswerToV1 is the v1 answer to prompt id that ends its turn with a
// v2 stop reason: v1's five as they are; none (null) as end_turn, the agent
// being idle; one v1 does not have (v2 lets agents add their own) as
// end_turn too, which a v1 editor reads.
func promptAnswerToV1(id json.RawMessage, reason string) []byte {
	switch reason {
	case acpmsg.StopEndTurn, acpmsg.StopCancelled, acpmsg.StopRefusal, "max_tokens", "max_turn_requests":
	default:
		reason = acpmsg.StopEndTurn
	}
	return resultLine(id, acpmsg.PromptResponse{StopReason: reason})
}

// toolUpdateToV1 is a v2 tool_call_update as v1's: the first of an id
// becomes a tool_call (with a title, which v1 requires: the update's, else
// its id), and a v2 diff in its content a text block (diffToV1). An update
// that needs neither goes on as its bytes.
func (p *Proxy) toolUpdateToV1(m *message, sessionID string) {
	params, err := decodeObject(m.Params)
	update, err2 := decodeObject(params["update"])
	var tc acpmsg.ToolCallUpdate
	if err != nil || err2 != nil || decode(params["update"], &tc) != nil || tc.ToolCallID == "" {
		p.routeAgent(m)
		return
	}
	changed := false
	if content, ok := contentToV1(tc.Content); ok {
		update["content"], changed = rawArray(content), true
	}
	tr := &p.translator
	tr.mu.Lock()
	s := tr.session(sessionID)
	if tc.Content != nil {
		s.content[tc.ToolCallID] = nil // v1 and v2 alike: content replaces what was
	}
	if !s.shown[tc.ToolCallID] {
		s.shown[tc.ToolCallID] = true
		update["sessionUpdate"], changed = mustRaw(acpmsg.UpdateToolCall), true
		if tc.Title == nil {
			update["title"] = mustRaw(tc.ToolCallID)
		}
	}
	tr.mu.Unlock()
	if !changed {
		p.routeAgent(m)
		return
	}
	params["update"] = rawObject(update)
	p.routeAgentLines(m, withParams(m, params))
}

// contentToV1 is a tool call's content with each v2 diff as a text block
// (diffToV1); false when there is none.
func contentToV1(content []json.RawMessage) ([]json.RawMessage, bool) {
	changed := false
	out := make([]json.RawMessage, len(content))
	for i, c := range content {
		out[i] = c
		var d struct {
			acpmsg.DiffV2
			Type string `json:"type"`
		}
		if decode(c, &d) == nil && d.Type == "diff" && d.Changes != nil {
			out[i], changed = diffToV1(&d.DiffV2), true
		}
	}
	return out, changed
}

// diffToV1 is a v2 diff as v1 tool call content. v1's diff is one file's
// old and new text, which a v2 diff (changed paths and a patch) does not
// carry, so it becomes a text block that says what changed and holds the
// patch.
func diffToV1(d *acpmsg.DiffV2) json.RawMessage {
	var b strings.Builder
	for _, c := range d.Changes {
		b.WriteString(c.Operation + " " + c.Path)
		if c.OldPath != "" {
			b.WriteString(" (from " + c.OldPath + ")")
		}
		b.WriteByte('\n')
	}
	if d.Patch != nil {
		b.WriteString(d.Patch.Text)
	}
	return mustRaw(acpmsg.ToolCallContent{Type: "content", Content: acpmsg.NewText(b.String())})
}

// contentChunkToV1 is a v2 tool_call_content_chunk as v1's
// tool_call_update with the call's content so far (v1 replaces a call's
// content; v2 adds to it), or its tool_call when the editor has not been
// shown the call.
func (p *Proxy) contentChunkToV1(m *message, sessionID string) {
	var n struct {
		Update acpmsg.ToolCallContentChunkV2 `json:"update"`
	}
	if decode(m.Params, &n) != nil || n.Update.ToolCallID == "" || isNull(n.Update.Content) {
		p.drop(m, "a malformed tool_call_content_chunk")
		return
	}
	chunk := n.Update.Content
	if c, ok := contentToV1([]json.RawMessage{chunk}); ok {
		chunk = c[0]
	}
	tr := &p.translator
	tr.mu.Lock()
	s := tr.session(sessionID)
	id := n.Update.ToolCallID
	s.content[id] = append(s.content[id], append(json.RawMessage(nil), chunk...))
	update := acpmsg.Object{"sessionUpdate": mustRaw(acpmsg.UpdateToolCallUpdate), "toolCallId": mustRaw(id), "content": rawArray(s.content[id])}
	if !s.shown[id] {
		s.shown[id] = true
		update["sessionUpdate"], update["title"] = mustRaw(acpmsg.UpdateToolCall), mustRaw(id)
	}
	tr.mu.Unlock()
	p.routeAgentLines(m, updateLine(m, update))
}

// planToV1 is a v2 plan_update of kind "items" as v1's plan (its entries
// have the same shape); a plan of another kind (a file, markdown) has no v1
// counterpart and is dropped.
func (p *Proxy) planToV1(m *message) {
	params, err := decodeObject(m.Params)
	var n struct {
		Update acpmsg.PlanUpdateV2 `json:"update"`
	}
	if err != nil || decode(m.Params, &n) != nil || n.Update.Plan.Type != "items" || isNull(n.Update.Plan.Entries) {
		p.drop(m, "a plan v1 cannot show", "type", n.Update.Plan.Type)
		return
	}
	params["update"] = rawObject(acpmsg.Object{"sessionUpdate": mustRaw("plan"), "entries": n.Update.Plan.Entries})
	p.routeAgentLines(m, withParams(m, params))
}

// messageToV1 is a v2 whole message (agent_message, agent_thought, and
// user_message while a session/load replays) as v1 chunks: one per block
// not sent yet for its messageId, so that an agent that sends a message
// again with more blocks adds only those (a block it changes is not sent
// again). A user_message outside a replay is dropped: a v1 agent does not
// echo the prompt the editor shows already.
func (p *Proxy) messageToV1(m *message, sessionID, kind string) {
	var n struct {
		Update acpmsg.MessageV2 `json:"update"`
	}
	if decode(m.Params, &n) != nil {
		p.drop(m, "a malformed whole message")
		return
	}
	chunk := map[string]string{acpmsg.UpdateAgentMessage: acpmsg.UpdateAgentMessageChunk,
		acpmsg.UpdateAgentThought: "agent_thought_chunk", acpmsg.UpdateUserMessage: "user_message_chunk"}[kind]
	if kind == acpmsg.UpdateUserMessage {
		p.mu.Lock()
		replaying := p.loading[sessionID] > 0
		p.mu.Unlock()
		if !replaying {
			p.drop(m, "")
			return
		}
	}
	tr := &p.translator
	tr.mu.Lock()
	s := tr.session(sessionID)
	key := kind + "\x00" + n.Update.MessageID
	from := s.sent[key]
	if from < len(n.Update.Content) {
		s.sent[key] = len(n.Update.Content)
	}
	tr.mu.Unlock()
	var lines [][]byte
	for i := from; i < len(n.Update.Content); i++ {
		update := acpmsg.Object{"sessionUpdate": mustRaw(chunk), "content": n.Update.Content[i]}
		if n.Update.MessageID != "" {
			update["messageId"] = mustRaw(n.Update.MessageID)
		}
		lines = append(lines, updateLine(m, update))
	}
	if len(lines) == 0 {
		p.drop(m, "")
		return
	}
	p.routeAgentLines(m, lines...)
}

// configUpdateToV1 is a v2 config_option_update as v1's, and, when it has
// the session's mode option, v1's current_mode_update too.
func (p *Proxy) configUpdateToV1(m *message, sessionID string) {
	params, err := decodeObject(m.Params)
	if err != nil {
		p.routeAgent(m)
		return
	}
	update, changed := p.configOptionsToV1(params["update"], sessionID, false)
	if !changed {
		p.routeAgent(m)
		return
	}
	params["update"] = update
	lines := [][]byte{withParams(m, params)}
	var n struct {
		Update struct {
			ConfigOptions []acpmsg.ConfigOptionV2 `json:"configOptions"`
		} `json:"update"`
	}
	_ = decode(m.Params, &n)
	for _, o := range n.Update.ConfigOptions {
		if o.Category == acpmsg.ConfigCategoryMode && o.CurrentValue != nil {
			lines = append(lines, updateLine(m, acpmsg.Object{"sessionUpdate": mustRaw("current_mode_update"), "currentModeId": o.CurrentValue}))
			break
		}
	}
	p.routeAgentLines(m, lines...)
}

// ---- the editor's side: v1 out, v2 to the agent ----

// toV2Agent is a line for a v2 agent: the editor's (or the proxy's own) v1
// request in v2's shape, remembered when its answer is reshaped. Answers
// (to the agent's permission requests) have the same shape in both
// versions and go as they are, as does everything the versions share.
func (p *Proxy) toV2Agent(line []byte) []byte {
	m, err := parseMessage(line)
	if err != nil || m.Method == "" {
		return line
	}
	tr := &p.translator
	switch m.Method {
	case methodSessionPrompt:
		if m.ID != nil {
			sess := sessionIDOf(m.Params)
			tr.mu.Lock()
			tr.track(m.ID, m.Method, sess)
			s := tr.session(sess)
			s.prompts = append(s.prompts, m.ID)
			tr.mu.Unlock()
		}
	case methodSessionCancel:
		p.armCancel(sessionIDOf(m.Params))
	case methodSessionClose:
		p.forgetV2Session(sessionIDOf(m.Params))
	case methodSessionNew, methodSessionResume, methodSessionSetConfig:
		if m.ID != nil {
			tr.mu.Lock()
			tr.track(m.ID, m.Method, sessionIDOf(m.Params))
			tr.mu.Unlock()
		}
		if m.Method == methodSessionSetConfig {
			return setConfigToV2(m)
		}
	case methodSessionLoad:
		tr.mu.Lock()
		tr.track(m.ID, m.Method, sessionIDOf(m.Params))
		tr.mu.Unlock()
		return loadToV2(m)
	case methodSessionSetMode:
		tr.mu.Lock()
		tr.track(m.ID, m.Method, sessionIDOf(m.Params))
		tr.mu.Unlock()
		return p.setModeToV2(m)
	case "authenticate":
		return rawRequestLine(m.ID, "auth/login", m.Params)
	case "logout":
		return rawRequestLine(m.ID, "auth/logout", m.Params)
	}
	return line
}

// loadToV2 is v1's session/load as v2's session/resume with replayFrom
// start: v2 removed load, and a resume that replays from the start is what
// load did (the conversation as session/updates, then the answer).
func loadToV2(m *message) []byte {
	params, err := decodeObject(m.Params)
	if err != nil {
		return m.line
	}
	params["replayFrom"] = json.RawMessage(`{"type":"start"}`)
	return rawRequestLine(m.ID, methodSessionResume, rawObject(params))
}

// setConfigToV2 is v1's session/set_config_option as v2's: v1's value of
// an id has no "type", v2's says "id".
func setConfigToV2(m *message) []byte {
	params, err := decodeObject(m.Params)
	if err != nil {
		return m.line
	}
	if _, ok := params["type"]; ok {
		return m.line
	}
	params["type"] = mustRaw("id")
	return rawRequestLine(m.ID, m.Method, rawObject(params))
}

// setModeToV2 is v1's session/set_mode as v2's session/set_config_option
// of the session's mode option (refuseForV2Agent refused it when the
// session has none).
func (p *Proxy) setModeToV2(m *message) []byte {
	var req acpmsg.SetSessionModeRequest
	params, err := decodeObject(m.Params)
	if err != nil || decode(m.Params, &req) != nil {
		return m.line
	}
	p.translator.mu.Lock()
	option := p.translator.session(req.SessionID).modeOption
	p.translator.mu.Unlock()
	delete(params, "modeId")
	params["configId"], params["type"], params["value"] = mustRaw(option), mustRaw("id"), mustRaw(req.ModeID)
	return rawRequestLine(m.ID, methodSessionSetConfig, rawObject(params))
}

// refuseForV2Agent answers an editor's v1 request that has no v2
// counterpart with an error that names it and the version, instead of
// sending it to the agent: session/set_mode for a session whose agent
// offers no config option of category "mode".
func (p *Proxy) refuseForV2Agent(m *message) bool {
	if m.Method != methodSessionSetMode {
		return false
	}
	p.translator.mu.Lock()
	option := p.translator.session(sessionIDOf(m.Params)).modeOption
	p.translator.mu.Unlock()
	if option != "" {
		return false
	}
	p.toEditor(m, errorLine(m.ID, rpcerr.MethodNotFound, fmt.Sprintf("wavehooks: session/set_mode has no counterpart for this agent: "+
		"it speaks ACP version %d (schema %s), where session modes are config options, and it offers none of category %q",
		acpmsg.ProtocolV2, acpmsg.SchemaV2Release, acpmsg.ConfigCategoryMode), nil))
	return true
}

// forgetV2Session drops a closed session's translation state.
func (p *Proxy) forgetV2Session(sessionID string) {
	tr := &p.translator
	tr.mu.Lock()
	defer tr.mu.Unlock()
	delete(tr.sessions, sessionID)
}

// armCancel starts the wait for a cancelled turn's end (cancelGrace): the
// prompts open when the editor cancelled that the agent has not ended by
// then are answered with stopReason "cancelled", as v1 promises the editor
// (prompts sent after the cancel are not the cancel's).
func (p *Proxy) armCancel(sessionID string) {
	tr := &p.translator
	tr.mu.Lock()
	open := append([]json.RawMessage(nil), tr.session(sessionID).prompts...)
	tr.mu.Unlock()
	if len(open) == 0 {
		return
	}
	grace := p.opts.cancelGrace
	if grace <= 0 {
		grace = cancelGrace
	}
	time.AfterFunc(grace, func() { p.cancelledTurnsEnd(sessionID, open) })
}

// cancelledTurnsEnd answers the cancelled prompts still open with
// stopReason "cancelled"; the agent's idle update for one, if it ever
// comes, is dropped (it ends the next open prompt of the session only if
// the agent sends two, which it must not).
func (p *Proxy) cancelledTurnsEnd(sessionID string, cancelled []json.RawMessage) {
	p.mu.Lock()
	gone := p.agentGone
	p.mu.Unlock()
	if gone || p.ctx.Err() != nil {
		return // agentEnded answered the editor's prompts
	}
	for _, want := range cancelled {
		id, ok := p.takePrompt(sessionID, want)
		if !ok {
			continue
		}
		p.log.Warn("the v2 agent did not end a cancelled turn; the proxy answered the editor's prompt", "session", sessionID)
		m, err := parseMessage(promptAnswerToV1(id, acpmsg.StopCancelled))
		if err != nil {
			return
		}
		p.safely(m, p.routeAgent, false)
		p.flush()
	}
}
