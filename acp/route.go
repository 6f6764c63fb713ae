package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wavehooks/wavehooks/acp/agents"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// fromEditor handles one message from the editor.
func (p *Proxy) fromEditor(m *message) {
	switch {
	case m.isRequest():
		p.editorRequest(m)
	case m.isResponse():
		p.editorResponse(m)
	default:
		p.passAgent(m)
	}
}

// fromAgent handles one message from the agent: a v2-only agent's in v1's
// shape for a v1 editor (fromV2Agent), any other as it is (routeAgent).
func (p *Proxy) fromAgent(m *message) {
	if p.translating() {
		p.fromV2Agent(m)
		return
	}
	p.routeAgent(m)
}

// routeAgent handles one message from the agent, in the version the
// proxy's hook points see.
func (p *Proxy) routeAgent(m *message) {
	switch {
	case m.isResponse():
		p.agentResponse(m)
	case m.isRequest():
		p.agentRequest(m)
	case m.isNotification():
		p.agentNotification(m)
	default:
		p.passEditor(m)
	}
}

func (p *Proxy) sendEditor(line []byte) { p.editorOut.write(line) }

// sendAgent sends the agent a line, in v2's shape when the proxy translates
// for a v2-only agent (toV2Agent).
func (p *Proxy) sendAgent(line []byte) {
	if p.translating() {
		line = p.toV2Agent(line)
	}
	p.agentIn.write(line)
}

// toEditor and toAgent send what a message turned into: itself, a changed
// copy, or the proxy's answer to it; passEditor and passAgent pass it on
// unchanged. Each marks the message as dealt with (see safely).
func (p *Proxy) toEditor(m *message, line []byte) { m.passed = true; p.sendEditor(line) }
func (p *Proxy) toAgent(m *message, line []byte)  { m.passed = true; p.sendAgent(line) }
func (p *Proxy) passEditor(m *message)            { p.toEditor(m, m.line) }
func (p *Proxy) passAgent(m *message)             { p.toAgent(m, m.line) }

// editorRequest tracks a request of the editor's and routes it by method
// (methods); a method without an editorRequest handler goes to the agent.
func (p *Proxy) editorRequest(m *message) {
	if p.translating() && p.refuseForV2Agent(m) {
		return
	}
	if row := methodOf(m.Method); row != nil && row.editorRequest != nil {
		row.editorRequest(p, m)
		return
	}
	p.forwardCall(m, &editorCall{id: m.ID, method: m.Method}, m.line)
}

// openRequest forwards the editor's request that opens a session
// (session/new, load, resume, fork), with the hook bridge's hook added
// when the agent is bridged (withBridge).
func (p *Proxy) openRequest(m *message) {
	call := &editorCall{id: m.ID, method: m.Method}
	sessionRequestOf(m, call)
	line, ok := p.withBridge(m)
	if ok {
		p.forwardCall(m, call, line)
	}
}

// closeRequest forwards the editor's session/close, remembering the
// session, which ends when the agent says it closed.
func (p *Proxy) closeRequest(m *message) {
	call := &editorCall{id: m.ID, method: m.Method}
	sessionRequestOf(m, call)
	p.forwardCall(m, call, m.line)
}

// forwardCall passes an editor's request to the agent, remembering it so
// that its answer can be acted on, or answers it with an error when the
// agent is gone.
func (p *Proxy) forwardCall(m *message, call *editorCall, line []byte) {
	if m != nil {
		m.passed = true
	}
	p.mu.Lock()
	if p.agentGone {
		code := p.agentCode
		p.mu.Unlock()
		p.sendEditor(errorLine(call.id, rpcerr.InternalError, fmt.Sprintf("wavehooks: the agent exited (status %d)", code), nil))
		return
	}
	p.editorCalls[idKey(call.id)] = call
	if row := methodOf(call.method); row != nil && row.replays {
		p.loading[call.sessionID]++
	}
	p.mu.Unlock()
	p.sendAgent(line)
}

// answerOwnCall hands m to the proxy's own request that it answers, if it
// answers one, and then unlocks p.mu; otherwise p.mu stays locked. The
// caller holds p.mu. A response from the side the request was not sent to
// (the agent answering a question put to the user) is dropped and logged,
// and the request goes on waiting for its own side's answer.
func (p *Proxy) answerOwnCall(key string, m *message, fromEditor bool) bool {
	call, ok := p.ownCalls[key]
	if !ok {
		return false
	}
	if call.toEditor != fromEditor {
		p.mu.Unlock()
		m.passed = true
		p.log.Warn("dropped an answer to one of the proxy's own requests from the side it was not sent to",
			"id", safetext.Line(string(m.ID), 100), "from", sideName(fromEditor), "sent to", sideName(call.toEditor))
		return true
	}
	delete(p.ownCalls, key)
	p.mu.Unlock()
	m.passed = true
	call.answer <- m
	return true
}

// sideName names a peer for the log.
func sideName(editor bool) string {
	if editor {
		return "the editor"
	}
	return "the agent"
}

// editorResponse passes the editor's answer to the agent, after noting what
// it decided; answers to the proxy's own requests go to whoever waits for them.
func (p *Proxy) editorResponse(m *message) {
	key := idKey(m.ID)
	p.mu.Lock()
	if p.answerOwnCall(key, m, true) {
		return
	}
	call := p.agentCalls[key]
	delete(p.agentCalls, key)
	p.mu.Unlock()
	if call != nil {
		p.editorAnswered(call, m)
	}
	p.passAgent(m)
}

// agentResponse acts on the agent's answer to an editor's request (or to
// the proxy's own follow-up prompt) and passes it on.
func (p *Proxy) agentResponse(m *message) {
	key := idKey(m.ID)
	p.mu.Lock()
	if p.answerOwnCall(key, m, false) {
		return
	}
	call := p.editorCalls[key]
	delete(p.editorCalls, key)
	var row *acpMethod
	if call != nil {
		row = methodOf(call.method)
	}
	if row != nil && row.replays {
		if p.loading[call.sessionID]--; p.loading[call.sessionID] <= 0 {
			delete(p.loading, call.sessionID)
		}
	}
	p.mu.Unlock()
	if row != nil && row.agentResponse != nil {
		row.agentResponse(p, call, m)
		return
	}
	p.passEditor(m)
}

// closeAnswered ends the session the agent closed, before passing the
// answer on: the editor may end the proxy next.
func (p *Proxy) closeAnswered(call *editorCall, m *message) {
	if m.Error == nil {
		p.endSession(call.sessionID, "other")
	}
	p.passEditor(m)
}

// agentRequest decides or passes on a request of the agent's to the editor.
func (p *Proxy) agentRequest(m *message) {
	if row := methodOf(m.Method); row != nil && row.agentRequest != nil {
		row.agentRequest(p, m)
		return
	}
	p.passEditor(m)
}

// agentNotification handles or passes on a notification of the agent's.
func (p *Proxy) agentNotification(m *message) {
	if row := methodOf(m.Method); row != nil && row.agentNotification != nil {
		row.agentNotification(p, m)
		return
	}
	p.passEditor(m)
}

// initializeAnswered acts on the agent's initialize answer (initialized)
// and passes it on.
func (p *Proxy) initializeAnswered(_ *editorCall, m *message) {
	p.initialized(m)
	p.passEditor(m)
}

// initialized learns from the agent's initialize answer whether it runs
// Claude Code's hooks itself.
func (p *Proxy) initialized(m *message) {
	var res acpmsg.InitializeResponse
	_ = decode(m.Result, &res)
	if res.AgentInfo.Name == "" { // v2 names the agent in "info"
		var v2 acpmsg.InitializeResponseV2
		_ = decode(m.Result, &v2)
		res.AgentInfo = v2.Info
	}
	skip := agents.RunsClaudeHooks(res.AgentInfo.Name)
	p.mu.Lock()
	p.skipClaude = skip
	wss := make([]*workspace, 0, len(p.workspaces))
	for _, w := range p.workspaces {
		wss = append(wss, w)
	}
	p.mu.Unlock()
	for _, w := range wss {
		w.setSkipClaude(skip)
	}
	if skip {
		p.log.Info("the agent runs Claude Code's hooks itself; imported Claude Code hooks do not run here", "agent", res.AgentInfo.Name)
	}
	p.bridgeAgent(res.AgentInfo.Name)
}

// agentEnded answers every editor request still waiting for the agent with
// an error, and every prompt held for a Stop hook's follow-up.
func (p *Proxy) agentEnded(code int) {
	p.mu.Lock()
	if p.endReported {
		p.mu.Unlock()
		return
	}
	p.endReported = true
	p.agentGone, p.agentCode = true, code
	calls := p.editorCalls
	p.editorCalls = map[string]*editorCall{}
	own := p.ownCalls
	p.ownCalls = map[string]ownCall{}
	p.mu.Unlock()
	p.log.Warn("the agent exited", "status", code)
	for _, call := range own {
		close(call.answer)
	}
	for _, call := range calls {
		id := call.id
		if call.turn != nil {
			id = call.turn.editorID
		}
		p.sendEditor(errorLine(id, rpcerr.InternalError,
			fmt.Sprintf("wavehooks: the agent exited (status %d) before answering %s", code, call.method), nil))
	}
	p.flush()
}

// call sends a request of the proxy's own, with the id made by p.ownID, to
// one side and waits for that side's answer; nil when ctx ends or that side
// goes away first.
func (p *Proxy) call(ctx context.Context, toEditor bool, id json.RawMessage, method string, params any) *message {
	ch := make(chan *message, 1)
	p.mu.Lock()
	p.ownCalls[idKey(id)] = ownCall{answer: ch, toEditor: toEditor}
	p.mu.Unlock()
	line := requestLine(id, method, p.forEditor(method, params)) // the editor's version (v2permission.go)
	if toEditor {
		p.sendEditor(line)
	} else {
		p.sendAgent(line)
	}
	p.flush()
	select {
	case m := <-ch:
		return m
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.ownCalls, idKey(id))
		p.mu.Unlock()
		return nil
	}
}
