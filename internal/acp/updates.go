package acp

import (
	"context"
	"encoding/json"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/session"
)

// updateParams is the part of a session/update's params every kind of
// update shares, read in one pass: text chunks, the most frequent message,
// need nothing more than this and their content.
type updateParams struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string          `json:"sessionUpdate"`
		Content       json.RawMessage `json:"content"`
		MessageID     *string         `json:"messageId"`
	} `json:"update"`
}

// sessionUpdate passes a session/update to the editor first (hooks here only
// observe), then records it: the agent's text, gathered per message, and its
// tool calls; a finished tool call runs PostToolUse or PostToolUseFailure.
func (p *Proxy) sessionUpdate(m *message) {
	p.passEditor(m)
	var params updateParams
	if decodeTransient(m.Params, &params) != nil {
		return
	}
	st := p.sessionState(params.SessionID)
	if st == nil {
		return
	}
	head := &params.Update
	switch head.SessionUpdate {
	case "agent_message_chunk":
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if decodeTransient(head.Content, &c) != nil || c.Type != "text" {
			return
		}
		msgID := ""
		if head.MessageID != nil {
			msgID = *head.MessageID
		}
		p.saveText(st, st.addText(msgID, c.Text))
	case "tool_call", "tool_call_update":
		var tool struct {
			Update toolCallUpdate `json:"update"`
		}
		if decode(m.Params, &tool) != nil || tool.Update.ToolCallID == "" {
			return
		}
		u := &tool.Update
		p.toolUpdate(st, u, head.SessionUpdate == "tool_call")
	}
}

// toolUpdate merges a tool call's update into what the session knows of it;
// a new call goes into the transcript with the text before it, a finished
// one runs its Post hooks.
func (p *Proxy) toolUpdate(st *sessState, u *toolCallUpdate, isNew bool) {
	t := st.tool(u.ToolCallID)
	st.mu.Lock()
	t.merge(u)
	t.announced = t.announced || isNew
	record := isNew && !t.recorded && !t.finished
	t.recorded = t.recorded || record
	done := t.status == "completed" || t.status == "failed"
	name, input := t.describe()
	st.mu.Unlock()
	if record {
		blocks := []session.Block{}
		if text := st.takeText(); text != "" {
			blocks = append(blocks, session.Block{Type: session.BlockText, Content: text})
		}
		blocks = append(blocks, session.Block{Type: session.BlockTool, ID: t.id, Name: name, Input: input})
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
			return st.session().PostToolUse(ctx, t.id, name, input, response)
		})
	} else {
		ev = event.PostToolUseFailure
		p.saveTool(st, session.Block{Type: session.BlockTool, ID: t.id, Name: name, Input: input,
			Result: failure, Success: boolPtr(false)})
		out, ok = p.fire(ctx, st, ev, name, func(ctx context.Context) (session.Outcome, error) {
			return st.session().RunHooks(ctx, event.Input{Event: ev, ToolName: name, ToolInput: input, ToolUseID: t.id,
				Extra: map[string]json.RawMessage{"error": mustRaw(failure)}}, nil)
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
}
