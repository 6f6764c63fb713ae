package acp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/session"
)

// sessionOpened runs SessionStart when the agent answered session/new
// (source "startup"), session/load, session/resume or session/fork
// ("resume": a fork carries its parent's conversation on), then passes the
// answer on. Only these answers make a session's state (guardState). The hooks' context goes to the model with the next prompt;
// their warnings reach the editor after the answer, once it knows the session.
func (p *Proxy) sessionOpened(call *editorCall, m *message) {
	row := methodOf(call.method)
	acpID := call.sessionID
	if row.idInAnswer { // the new session's id is in the answer
		var res acpmsg.NewSessionResponse
		_ = decode(m.Result, &res)
		acpID = res.SessionID
	}
	if m.Error != nil || acpID == "" {
		p.passEditor(m)
		return
	}
	st, memErr := p.openSession(call.cwd, acpID)
	source := row.opens
	out, ok := p.fire(st.ctx(), st, event.SessionStart, source, func(ctx context.Context) (session.Outcome, error) {
		return st.session().SessionStart(ctx, source)
	})
	if ok && out.Continue {
		st.addPending(marked(event.SessionStart, out.AdditionalContext)...)
	}
	p.passEditor(m)
	if memErr != nil {
		p.notice(st, levelError, "this session's transcript cannot be kept ("+memErr.Error()+
			"): its hooks run all the same, on the session kept in memory (their transcript_path is empty), and nothing of it is saved")
	}
	if ok {
		p.finish(st, event.SessionStart, source, &out, "")
	}
	p.reportDrift(st)
	p.offerTrust(st)
}

// openSession finds or starts the state and transcript of an agent's
// session. A new session's hooks are those of its cwd when that is a
// directory and --project did not fix the project. When its file cannot be
// opened or created, the session lives in memory and inMemory says why: its
// hooks run all the same.
func (p *Proxy) openSession(cwd, acpID string) (st *sessState, inMemory error) {
	p.mu.Lock()
	st = p.sessions[acpID]
	p.mu.Unlock()
	if st != nil {
		return st, nil
	}
	root := p.opts.ProjectRoot
	if dir, ok := projectDir(cwd); ok && !p.opts.ProjectFixed {
		root = dir
	}
	ws := p.workspace(root)
	sess, memErr := ws.OpenSession(sessionID(acpID))
	if memErr != nil {
		p.log.Warn("the session's transcript cannot be kept; it is kept in memory", "session", acpID, "err", memErr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if existing := p.sessions[acpID]; existing != nil {
		return existing, nil
	}
	st = newSessState(p.ctx, acpID, ws, sess, memErr != nil)
	p.sessions[acpID] = st
	return st, memErr
}

// sessionState returns the state of an agent's session, nil when the proxy
// does not know it or it is replaying its history (session/load).
func (p *Proxy) sessionState(acpID string) *sessState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loading[acpID] > 0 {
		return nil
	}
	return p.sessions[acpID]
}

// guardState returns the state of the session a guarded message is about
// (a permission, file or terminal request, a prompt, the hook bridge's
// PreToolUse), opening it while the editor's session/load or
// session/resume of that id is in flight (its cwd picks the project; the
// agent may ask permission during a load). It is nil for any other id the
// proxy has not seen opened (issue #35 item 6): state, and with it an open
// transcript file, is only ever made for a session the editor opened, so an
// agent that names invented sessions cannot make the proxy hold a file per
// name. A caller refuses what it guards for a nil state (refuseUnopened):
// no session, no hooks to judge with. The replay of a load is still not
// recorded (sessionState).
func (p *Proxy) guardState(acpID string) *sessState {
	p.mu.Lock()
	st := p.sessions[acpID]
	cwd, opening := "", false
	for _, c := range p.editorCalls {
		if row := methodOf(c.method); row != nil && row.reopens && c.sessionID == acpID {
			cwd, opening = c.cwd, true
		}
	}
	p.mu.Unlock()
	if st != nil {
		return st
	}
	if !opening || acpID == "" {
		return nil
	}
	st, memErr := p.openSession(cwd, acpID)
	if memErr != nil {
		p.notice(st, levelError, "this session's transcript cannot be kept ("+memErr.Error()+
			"): its hooks run all the same, on the session kept in memory, and nothing of it is saved")
	}
	return st
}

// unopenedReason says why a guarded message about a session the proxy has
// not seen opened is refused (guardState).
func unopenedReason(acpID string) string {
	return fmt.Sprintf("session %q was not opened through wavehooks (no session/new, session/load, session/resume "+
		"or session/fork answer named it), so no hooks can judge it", clipText(acpID, 200))
}

// refusedUnopenedLogged bounds the warnings logged for requests about
// sessions nobody opened: an agent that invents ids by the thousand gets
// the first few at warning level, the rest at debug level.
const refusedUnopenedLogged = 10

// refuseUnopened answers an agent's guarded request about a session the
// proxy has not seen opened with an error: nothing of it reaches the editor,
// and no state is made for it (guardState).
func (p *Proxy) refuseUnopened(m *message, acpID string) {
	why := unopenedReason(acpID)
	if n := p.refusedUnopened.Add(1); n <= refusedUnopenedLogged {
		p.log.Warn("refused a request about a session that was never opened", "method", m.Method, "session", clipText(acpID, 200),
			"note", "after "+strconv.Itoa(refusedUnopenedLogged)+" such requests the rest are logged at debug level")
	} else {
		p.log.Debug("refused a request about a session that was never opened", "method", m.Method, "session", clipText(acpID, 200))
	}
	p.toAgent(m, errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: "+m.Method+" refused: "+why, nil))
}

// cancelSession stops the hooks running for a session at once (the editor
// sent session/cancel): a permission request they were deciding is then
// answered "cancelled", a prompt they were checking is not sent.
func (p *Proxy) cancelSession(m *message) {
	p.mu.Lock()
	st := p.sessions[sessionIDOf(m.Params)]
	p.mu.Unlock()
	if st != nil {
		st.cancel(p.ctx)
	}
}

// endSession runs SessionEnd for a session (reason: Claude Code's "other"
// for session/close and an agent that ended on its own, "prompt_input_exit"
// when the editor quit: closed the proxy's stdin or signalled it, in
// whatever order with the agent's end, runProxy) and forgets it.
func (p *Proxy) endSession(acpID, reason string) {
	p.mu.Lock()
	st := p.sessions[acpID]
	delete(p.sessions, acpID)
	p.mu.Unlock()
	if st == nil {
		return
	}
	st.mu.Lock()
	ended := st.ended
	st.ended = true
	st.mu.Unlock()
	if ended {
		return
	}
	p.flushText(st)
	// SessionEnd runs even when the proxy is stopping: it is the hooks' one
	// chance to clean up. Their own timeouts bound it.
	out, ok := p.fire(context.Background(), st, event.SessionEnd, reason, func(ctx context.Context) (session.Outcome, error) {
		return st.session().SessionEnd(ctx, reason)
	})
	if ok {
		p.finish(st, event.SessionEnd, reason, &out, "")
	}
}

// endSessions ends every session the proxy knows.
func (p *Proxy) endSessions(reason string) {
	p.mu.Lock()
	ids := make([]string, 0, len(p.sessions))
	for id := range p.sessions {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	for _, id := range ids {
		p.endSession(id, reason)
	}
}
