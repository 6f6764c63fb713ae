package acp

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// The v2 turn. In ACP v2 the agent answers session/prompt as soon as it
// accepts the prompt ({}: an acknowledgment), and the turn ends with a
// session/update of kind state_update, state "idle", carrying the stop
// reason v1 put in the prompt's answer (schema/v2: PromptResponse,
// StateUpdate, IdleStateUpdate). So on v2 the proxy runs Stop at that idle
// update, and a Stop hook's block holds it back: the follow-up prompt goes
// to the agent (its acknowledgment is the proxy's, not passed on) and the
// editor's turn stays open until the agent is idle for good.

// promptAnsweredAny acts on the agent's answer to a session/prompt: on v1
// the answer ends the turn (promptAnswered); on v2 it acknowledges the
// prompt, and the turn goes on until the idle state update (stateUpdate).
func (p *Proxy) promptAnsweredAny(call *editorCall, m *message) {
	t := call.turn
	if !p.agentV2() || t == nil {
		p.promptAnswered(t, m)
		return
	}
	editors := idKey(m.ID) == idKey(t.editorID)
	switch {
	case editors && m.Error != nil:
		p.answerTurn(t, m) // the prompt was refused: no turn began
	case editors:
		p.passEditor(m) // accepted: the turn ends with the idle state update
	case m.Error != nil:
		// The follow-up of a Stop block was refused. The editor's prompt
		// was acknowledged already, so its turn ends as v2 ends one.
		p.log.Warn("the agent refused the follow-up prompt of a Stop hook's block; the turn ends", "session", t.st.acpID)
		m.passed = true
		p.endTurnV2(t, p.idleLine(t.st.acpID, acpmsg.StopEndTurn))
	default:
		m.passed = true // the follow-up's acknowledgment is the proxy's own
	}
}

// sessionUpdateAny handles a session/update: a v2 agent's state update in
// stateUpdate, everything else in sessionUpdate. A text chunk costs one
// bytes.Contains more on v2 and nothing on v1.
func (p *Proxy) sessionUpdateAny(m *message) {
	if p.agentV2() && bytes.Contains(m.Params, []byte(`"`+acpmsg.UpdateStateUpdate+`"`)) {
		var n acpmsg.StateUpdateNotification
		if decode(m.Params, &n) == nil && n.Update.SessionUpdate == acpmsg.UpdateStateUpdate {
			p.stateUpdate(m, &n)
			return
		}
	}
	p.sessionUpdate(m)
}

// stateUpdate runs Stop when a v2 agent's idle state update ends the
// editor's turn with end_turn, as promptAnswered does at v1's answer. A Stop
// hook that blocks holds the update back and sends the agent a follow-up
// prompt with the reason (followUp); the editor gets the idle update that
// ends the last part of the turn. Any other state update (running,
// requires_action, an idle one outside a turn the proxy follows) goes on.
func (p *Proxy) stateUpdate(m *message, n *acpmsg.StateUpdateNotification) {
	st := p.sessionState(n.SessionID)
	if st == nil || n.Update.State != acpmsg.StateIdle {
		p.passEditor(m)
		return
	}
	st.mu.Lock()
	t := st.turn
	st.mu.Unlock()
	if t == nil {
		p.passEditor(m)
		return
	}
	p.flushText(st)
	cancelled, stopped := t.state()
	if n.Update.StopReason != acpmsg.StopEndTurn || cancelled || stopped {
		m.passed = true
		p.endTurnV2(t, m.line)
		return
	}
	out, ok := p.fire(st.ctx(), st, event.Stop, "", func(ctx context.Context) (session.Outcome, error) { return st.session().Stop(ctx) })
	if !ok {
		m.passed = true
		p.endTurnV2(t, m.line)
		return
	}
	if cancelled, _ = t.state(); out.Blocked && out.Continue && !cancelled {
		p.finish(st, event.Stop, "", &out, "the agent goes on with a follow-up prompt")
		p.hookMessage(st, event.Stop, levelInfo, "the agent goes on: "+out.Reason)
		m.passed = true // held: the idle update after the follow-up ends the editor's turn
		p.followUp(t, out.Reason)
		return
	}
	p.finish(st, event.Stop, "", &out, "")
	m.passed = true
	p.endTurnV2(t, m.line)
}

// endTurnV2 ends a v2 turn: the session has no turn any more, the editor
// gets the idle state update line, and the transcript is written.
func (p *Proxy) endTurnV2(t *turn, line []byte) {
	t.st.mu.Lock()
	if t.st.turn == t {
		t.st.turn = nil
	}
	t.st.mu.Unlock()
	p.sendEditor(line)
	p.flushTranscript(t.st)
}

// idleLine is a v2 state update that ends a session's turn with reason.
func (p *Proxy) idleLine(sessionID, reason string) []byte {
	return notificationLine(methodSessionUpdate, acpmsg.SessionNotification{SessionID: sessionID,
		Update: acpmsg.StateUpdate{SessionUpdate: acpmsg.UpdateStateUpdate, State: acpmsg.StateIdle, StopReason: reason}})
}

// answerPrompt answers an editor's prompt the proxy ends itself (a hook
// blocked it, or the editor cancelled it while its hooks ran): a v1 editor
// gets the stop reason in the answer; a v2 editor gets the acknowledgment
// and then the idle state update with the stop reason, as a v2 agent ends a
// turn.
func (p *Proxy) answerPrompt(m *message, sessionID, reason string) {
	if !p.editorV2() {
		p.toEditor(m, resultLine(m.ID, acpmsg.PromptResponse{StopReason: reason}))
		return
	}
	p.toEditor(m, resultLine(m.ID, acpmsg.PromptAck{}))
	p.sendEditor(p.idleLine(sessionID, reason))
}

// messageID is the messageId of a message the proxy adds to the agent's
// reply (a hook message, a notice): none on v1, where it is optional; on v2,
// where every message chunk carries one, an id of the proxy's own, new for
// each message.
func (p *Proxy) messageID() string {
	if !p.editorV2() {
		return ""
	}
	return fmt.Sprintf("%smsg-%d", ownIDPrefix, p.versions.seq.Add(1))
}
