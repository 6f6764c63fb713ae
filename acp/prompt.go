package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/session"
)

// prompt runs UserPromptSubmit on an editor's session/prompt. A blocked
// prompt never reaches the agent: the editor gets the reason as a hook
// message and stopReason "refusal". Otherwise the prompt goes on with the
// context waiting for it (SessionStart's, PostToolUse's) before it and the
// hooks' context after it, each as a text block; a hook's updatedPrompt
// takes the place of the prompt's text (rewrittenPrompt).
func (p *Proxy) prompt(m *message) {
	var params acpmsg.PromptRequest
	if err := decode(m.Params, &params); err != nil {
		p.forwardCall(m, &editorCall{id: m.ID, method: m.Method}, m.line) // the agent answers bad params itself
		return
	}
	if params.SessionID == "" {
		// Its UserPromptSubmit hooks would have no session to run in.
		p.toEditor(m, errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: invalid params: session/prompt needs a sessionId", nil))
		return
	}
	st := p.guardState(params.SessionID)
	if st == nil {
		// Its UserPromptSubmit hooks would have no session to run in, and
		// no state is made for an id the editor never opened (guardState).
		p.toEditor(m, errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: session/prompt refused: "+unopenedReason(params.SessionID), nil))
		return
	}
	p.flushText(st)
	if !m.settingsRead {
		st.ws.reload() // settings changed since the last prompt apply from this one on
	}
	ctx := st.ctx()
	text := promptText(params.Prompt)
	out, ok := p.fire(ctx, st, event.UserPromptSubmit, "", func(ctx context.Context) (session.Outcome, error) {
		return st.session().UserPromptSubmit(ctx, text)
	})
	switch {
	case ctx.Err() != nil:
		// session/cancel came while the hooks ran: the prompt is not sent.
		p.record(st, "", &out, "cancelled by the editor; the prompt was not sent")
		p.answerPrompt(m, params.SessionID, acpmsg.StopCancelled)
		return
	case !ok:
		p.toEditor(m, errorLine(m.ID, rpcerr.InternalError,
			"wavehooks: the prompt could not be recorded, so its UserPromptSubmit hooks could not run; it was not sent to the agent", nil))
		return
	case out.Blocked || !out.Continue:
		p.finish(st, event.UserPromptSubmit, "", &out, "the prompt was not sent to the agent")
		p.answerPrompt(m, params.SessionID, acpmsg.StopRefusal)
		return
	}
	note, prompt := "", params.Prompt
	if out.UpdatedPrompt != "" {
		note, prompt = "a hook rewrote the prompt (updatedPrompt): the agent gets the rewritten text", rewrittenPrompt(prompt, out.UpdatedPrompt)
	}
	p.finish(st, event.UserPromptSubmit, "", &out, note)
	line := m.line
	before, after := st.takePending(), marked(event.UserPromptSubmit, out.AdditionalContext)
	if len(before)+len(after) > 0 || out.UpdatedPrompt != "" {
		line = withPrompt(m, textBlocks(before), prompt, textBlocks(after))
	}
	t := &turn{st: st, editorID: m.ID}
	st.setTurn(t)
	p.forwardCall(m, &editorCall{id: m.ID, method: m.Method, sessionID: params.SessionID, turn: t}, line)
}

// withPrompt is the session/prompt m with its prompt between the blocks
// before and after; every other member of its params is kept as it was.
func withPrompt(m *message, before []json.RawMessage, prompt []json.RawMessage, after []json.RawMessage) []byte {
	params, err := decodeObject(m.Params)
	if err != nil {
		return m.line
	}
	blocks := make([]json.RawMessage, 0, len(before)+len(prompt)+len(after))
	blocks = append(append(append(blocks, before...), prompt...), after...)
	params["prompt"] = rawArray(blocks) // each block as its bytes, its _meta too
	return withParams(m, params)
}

// rewrittenPrompt is the prompt with its text blocks (what the hooks read,
// promptText) replaced by one text block of the hook's updatedPrompt, where
// the first of them was; images, audio and resources stay as they were.
func rewrittenPrompt(blocks []json.RawMessage, text string) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(blocks)+1)
	put := false
	for _, b := range blocks {
		var c acpmsg.ContentBlock
		if decode(b, &c) == nil && c.Type == "text" {
			if !put {
				out, put = append(out, textBlocks([]string{text})...), true
			}
			continue
		}
		out = append(out, b)
	}
	if !put {
		out = append(textBlocks([]string{text}), out...)
	}
	return out
}

func textBlocks(texts []string) []json.RawMessage {
	out := make([]json.RawMessage, len(texts))
	for i, t := range texts {
		out[i] = mustRaw(acpmsg.NewText(t))
	}
	return out
}

// promptText is the prompt as UserPromptSubmit hooks read it: its text
// blocks, joined by blank lines. Images, audio and resources are not text a
// hook reads; docs/acp.md says so.
func promptText(blocks []json.RawMessage) string {
	var parts []string
	for _, b := range blocks {
		var c acpmsg.ContentBlock
		if decode(b, &c) == nil && c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// promptAnswered runs Stop when the agent ends a turn with end_turn. A Stop
// hook that blocks keeps the editor's prompt open: the proxy sends the agent
// a follow-up prompt with the hook's reason and answers the editor when the
// agent stops for good (at most 8 blocks in a row, as in `wavehooks serve`).
func (p *Proxy) promptAnswered(t *turn, m *message) {
	if t == nil { // a prompt the proxy did not follow (bad params, unknown session)
		p.passEditor(m)
		return
	}
	st := t.st
	p.flushText(st)
	var res acpmsg.PromptResponse
	_ = decode(m.Result, &res)
	cancelled, stopped := t.state()
	if m.Error != nil || res.StopReason != acpmsg.StopEndTurn || cancelled || stopped {
		p.answerTurn(t, m)
		return
	}
	out, ok := p.fire(st.ctx(), st, event.Stop, "", func(ctx context.Context) (session.Outcome, error) { return st.session().Stop(ctx) })
	if !ok {
		p.answerTurn(t, m)
		return
	}
	if cancelled, _ = t.state(); out.Blocked && out.Continue && !cancelled {
		p.finish(st, event.Stop, "", &out, "the agent goes on with a follow-up prompt")
		p.hookMessage(st, event.Stop, levelInfo, "the agent goes on: "+out.Reason)
		m.passed = true // held: the editor gets the answer to the follow-up instead
		p.followUp(t, out.Reason)
		return
	}
	p.finish(st, event.Stop, "", &out, "")
	p.answerTurn(t, m)
}

// followUp sends the agent a prompt of the proxy's own that carries a Stop
// hook's reason (and any context waiting for the next prompt); its answer
// comes back to promptAnswered for the same turn.
func (p *Proxy) followUp(t *turn, reason string) {
	st := t.st
	texts := append(st.takePending(), marked(event.Stop, []string{reason})...)
	id := p.ownID("stop")
	st.mu.Lock()
	t.followUps++
	st.mu.Unlock()
	p.forwardCall(nil, &editorCall{id: id, method: methodSessionPrompt, sessionID: st.acpID, turn: t},
		requestLine(id, methodSessionPrompt, acpmsg.PromptRequest{SessionID: st.acpID, Prompt: textBlocks(texts)}))
}

// answerTurn answers the editor's prompt with the agent's last answer.
func (p *Proxy) answerTurn(t *turn, m *message) {
	m.passed = true
	t.st.mu.Lock()
	if t.st.turn == t {
		t.st.turn = nil
	}
	t.st.mu.Unlock()
	switch {
	case idKey(m.ID) == idKey(t.editorID):
		p.passEditor(m)
	case m.Error != nil:
		p.sendEditor(rawErrorLine(t.editorID, m.Error))
	default:
		p.sendEditor(resultLine(t.editorID, m.Result))
	}
	p.flushTranscript(t.st)
}

// flushTranscript sends the editor the turn's answer and has the session's
// transcript write what it has not written yet (host.Config.SaveBeforeHooks
// keeps a turn's messages until a hook may read them) once the session has
// been idle for transcriptIdle: the file is whole whenever the agent is
// idle, and neither the answer nor the editor's next message waits on the
// write (an event whose hooks may read the file writes it first anyway).
func (p *Proxy) flushTranscript(st *sessState) {
	defer p.editorOut.flush() // once the write is scheduled: tests wait on p.flushes after the answer
	st.mu.Lock()
	due := st.flushDue
	st.flushDue = true
	st.mu.Unlock()
	if due {
		return // the write already scheduled takes this turn too
	}
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	if p.flushesClosed {
		return
	}
	p.flushes.Add(1)
	time.AfterFunc(transcriptIdle, func() {
		defer p.flushes.Done()
		st.mu.Lock()
		st.flushDue = false
		st.mu.Unlock()
		if err := st.session().Flush(); err != nil && !errors.Is(err, session.ErrClosed) {
			p.log.Warn("the session's transcript could not be written", "session", st.acpID, "err", err)
		}
	})
}

// transcriptIdle is how long after a turn's answer its transcript is
// written (flushTranscript): long enough that the editor's next message, or
// a client's request right after the answer, does not share the CPU with
// the write; short enough that the file is current before anyone looks.
const transcriptIdle = 50 * time.Millisecond

// stopTurn carries out a hook's continue:false in the middle of a turn: the
// agent is told to cancel the turn, as an editor's stop button would, and
// no Stop hooks run when it ends.
func (p *Proxy) stopTurn(st *sessState) {
	st.mu.Lock()
	t := st.turn
	if t != nil {
		t.stopped = true
	}
	st.mu.Unlock()
	p.sendAgent(notificationLine(methodSessionCancel, acpmsg.CancelNotification{SessionID: st.acpID}))
}
