package acp

import (
	"context"
	"encoding/json"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/session"
)

// sessionUpdate passes a session/update to the editor first (hooks here only
// observe; a tool call's update after the proxy denied it may carry the
// hook's reason added, keepDenyReason), then records it: the agent's text,
// gathered per message, and its tool calls; a finished tool call runs
// PostToolUse or PostToolUseFailure.
func (p *Proxy) sessionUpdate(m *message) {
	// The part every kind of update shares, read in one pass: text chunks,
	// the most frequent message, need nothing more than this and their content.
	params := &p.agentHead
	*params = acpmsg.SessionUpdateHead{}
	if decodeTransient(m.Params, params) != nil {
		p.passEditor(m)
		return
	}
	st := p.sessionState(params.SessionID)
	head := &params.Update
	isTool := head.SessionUpdate == acpmsg.UpdateToolCall || head.SessionUpdate == acpmsg.UpdateToolCallUpdate
	if st == nil || !isTool {
		p.passEditor(m)
	}
	if st == nil {
		return
	}
	switch head.SessionUpdate {
	case acpmsg.UpdateAgentMessageChunk:
		c := &p.agentContent
		*c = acpmsg.ContentBlock{}
		if decodeTransient(head.Content, c) != nil || c.Type != "text" {
			return
		}
		p.recordText(st, head.MessageID, c.Text)
	case acpmsg.UpdateToolCall, acpmsg.UpdateToolCallUpdate:
		var tool acpmsg.ToolCallNotification
		if decode(m.Params, &tool) != nil || tool.Update.ToolCallID == "" {
			p.passEditor(m)
			return
		}
		u := &tool.Update
		isNew := p.toolIsNew(st, head.SessionUpdate, u.ToolCallID) // v2 has no tool_call (v2permission.go)
		p.toEditor(m, p.keepDenyReason(st, m, u))
		p.flushEditorIfIdle()
		p.toolUpdate(st, u, isNew)
	}
}

// toolUpdate merges a tool call's update into what the session knows of it;
// a new call goes into the transcript with the text before it, a finished
// one runs its Post hooks.
func (p *Proxy) toolUpdate(st *sessState, u *acpmsg.ToolCallUpdate, isNew bool) {
	t := st.tool(u.ToolCallID)
	st.mu.Lock()
	t.merge(u)
	t.announced = t.announced || isNew
	record := isNew && !t.recorded && !t.finished
	t.recorded = t.recorded || record
	done := t.status == "completed" || t.status == "failed"
	if t.judged != nil && !t.denied && !done && describes(u) {
		// An update of a call that was decided: if it changed what the
		// call does, the decision does not cover it, and the hooks judge
		// it again before the agent's next message is handled.
		name, input := t.describe()
		if !t.judged.agrees(name, input, p.bridged()) { // bridged takes no lock
			st.mu.Unlock()
			p.rejudge(st, t, name, input)
			st.mu.Lock()
		}
	}
	if !record && !done {
		// An update in between (in progress, more output): nothing to
		// record, so the tool's name and input are not worked out.
		st.mu.Unlock()
		return
	}
	name, input := t.describe()
	st.mu.Unlock()
	if record {
		blocks := []session.Block{}
		if text := st.takeText(); text != "" {
			blocks = append(blocks, session.Block{Type: session.BlockText, Content: text})
		}
		blocks = append(blocks, session.ToolBlock(session.Tool{ID: t.id, Name: name, Input: input}))
		if err := st.session().AddAssistantMessage(blocks); err != nil {
			p.log.Warn("a tool call could not be recorded", "session", st.acpID, "tool", name, "err", err)
		}
	}
	if done && st.finish(t) {
		p.toolFinished(st, t, name, input)
	}
}

// toolFinished runs PostToolUse (completed) or PostToolUseFailure (failed).
// Their context and block reasons reach the model with the next prompt. A
// tool that ran without any point where PreToolUse hooks could stop it is
// recorded as such, in the transcript and the run history, when a
// PreToolUse hook matches it.
func (p *Proxy) toolFinished(st *sessState, t *toolState, name string, input json.RawMessage) {
	p.flushText(st)
	st.mu.Lock()
	denied, checked, status := t.denied, t.checked, t.status
	var agent map[string]json.RawMessage // the subagent that made the call, as its bridged hook named it
	if t.bridged != nil {
		agent = t.bridged.agent
	}
	response := t.toolResponse()
	failure := t.texts()
	if failure == "" && !isNull(t.rawOutput) {
		failure = string(t.rawOutput)
	}
	st.mu.Unlock()
	if denied {
		return // refused by a hook or the user: recorded as such, and it never ran
	}
	if checked == "" && st.ws.matchingPreToolHooks(name) {
		p.uncheckedTool(st, name)
	}
	ctx := st.ctx()
	ev := event.PostToolUse
	var out session.Outcome
	var ok bool
	if status == "completed" {
		out, ok = p.fire(ctx, st, ev, name, func(ctx context.Context) (session.Outcome, error) {
			// A subagent's call names the subagent to its Post hooks too,
			// as Claude Code names it (agent_id, agent_type).
			return st.session().Report(ctx, session.Report{Input: event.Input{Event: ev, ToolName: name, ToolInput: input,
				ToolUseID: t.id, ToolResponse: response}, Client: event.Input{Extra: agent}})
		})
	} else {
		ev = event.PostToolUseFailure
		p.saveTool(st, session.ToolBlock(session.Tool{ID: t.id, Name: name, Input: input, Result: failure, Success: boolPtr(false)}))
		out, ok = p.fire(ctx, st, ev, name, func(ctx context.Context) (session.Outcome, error) {
			extra := map[string]json.RawMessage{"error": mustRaw(failure)}
			for k, v := range agent {
				extra[k] = v
			}
			return st.session().RunHooks(ctx, event.Input{Event: ev, ToolName: name, ToolInput: input, ToolUseID: t.id,
				Extra: extra}, nil)
		})
	}
	if !ok {
		return
	}
	p.record(st, name, &out, "")
	if out.Continue {
		var texts []string
		if out.Blocked {
			texts = append(texts, out.Reason)
		}
		st.addPending(marked(ev, append(texts, out.AdditionalContext...))...)
	} else {
		p.stopTurn(st)
	}
	p.surface(st, ev, host.Notices(out.Blocks))
}

// uncheckedTool records a tool call that ran without a permission request,
// file or terminal request for PreToolUse hooks to decide on (an agent's
// own reads, an auto-approve mode): nothing was blocked, and nothing could
// have been.
func (p *Proxy) uncheckedTool(st *sessState, name string) {
	text := name + " ran without a permission request: the agent did not ask, so its PreToolUse hooks could not decide on it"
	if _, err := st.session().AddWarning(text); err != nil {
		p.log.Warn("a tool call could not be recorded", "session", st.acpID, "tool", name, "err", err)
	}
	p.recordNote(st, event.PreToolUse, name, "not enforced: ran without a permission request")
	p.tellUnseen(st, name)
}

// keepDenyReason is the line of an agent's update of a tool call: as it
// came, unless the proxy denied the call and the update brings content of
// its own (claude-agent-acp's "User refused permission to run tool", 6–11 ms
// after the proxy's failed update). An update's content replaces what the
// editor showed, so the hook's reason would be lost from the tool card; it
// goes first in the update's content instead, every other byte kept.
func (p *Proxy) keepDenyReason(st *sessState, m *message, u *acpmsg.ToolCallUpdate) []byte {
	if u.Content == nil {
		return m.line
	}
	st.mu.Lock()
	t := st.tools[u.ToolCallID]
	reason := ""
	if t != nil {
		reason = t.denyReason
	}
	st.mu.Unlock()
	if reason == "" {
		return m.line
	}
	line := m.line
	pStart, pEnd, ok := memberValue(line, "params")
	if !ok {
		return line
	}
	uStart, uEnd, ok := memberValue(line[pStart:pEnd], "update")
	if !ok {
		return line
	}
	at := pStart + uStart
	cStart, _, ok := memberValue(line[at:pStart+uEnd], "content")
	if !ok || line[at+cStart] != '[' {
		return line
	}
	open := at + cStart + 1
	item := mustRaw(denyContent(reason))
	if rest := rawjson.SkipSpace(line, open); rest < len(line) && line[rest] != ']' {
		item = append(item, ',')
	}
	return spliced(line, open, open, item)
}
