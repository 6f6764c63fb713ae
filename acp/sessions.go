package acp

import (
	"context"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// sessionOpened runs SessionStart when the agent answered session/new
// (source "startup"), session/load or session/resume ("resume"), then passes
// the answer on. The hooks' context goes to the model with the next prompt;
// their warnings reach the editor after the answer, once it knows the session.
func (p *Proxy) sessionOpened(call *editorCall, m *message) {
	acpID := call.sessionID
	if call.method == methodSessionNew {
		var res struct {
			SessionID string `json:"sessionId"`
		}
		_ = decode(m.Result, &res)
		acpID = res.SessionID
	}
	if m.Error != nil || acpID == "" {
		p.passEditor(m)
		return
	}
	st, err := p.openSession(call, acpID)
	if err != nil {
		p.log.Warn("no hooks for this session: its transcript cannot be opened", "session", acpID, "err", err)
		p.passEditor(m)
		return
	}
	source := "startup"
	if call.method != methodSessionNew {
		source = "resume"
	}
	out, ok := p.fire(st.ctx(), st, hooks.SessionStart, source, func(ctx context.Context) (session.Outcome, error) {
		return st.sess.SessionStart(ctx, source)
	})
	if ok && out.Continue {
		st.addPending(marked(hooks.SessionStart, out.AdditionalContext)...)
	}
	p.passEditor(m)
	if ok {
		p.record(st, source, &out, "")
		p.surface(st, hooks.SessionStart, out.Blocks)
	}
}

// openSession finds or starts the state and transcript of an agent's
// session. A new session's hooks are those of its cwd when that is a
// directory and --project did not fix the project.
func (p *Proxy) openSession(call *editorCall, acpID string) (*sessState, error) {
	p.mu.Lock()
	st := p.sessions[acpID]
	p.mu.Unlock()
	if st != nil {
		return st, nil
	}
	root := p.opts.ProjectRoot
	if dir, ok := projectDir(call.cwd); ok && !p.opts.ProjectFixed {
		root = dir
	}
	ws, err := p.workspace(root)
	if err != nil {
		return nil, err
	}
	sess, _, err := ws.store.OpenOrCreate(sessionID(acpID))
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if existing := p.sessions[acpID]; existing != nil {
		return existing, nil
	}
	st = newSessState(p.ctx, acpID, ws, sess)
	p.sessions[acpID] = st
	return st, nil
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
// for session/close and the agent's exit, "prompt_input_exit" when the
// editor went away) and forgets it.
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
	out, ok := p.fire(context.Background(), st, hooks.SessionEnd, reason, func(ctx context.Context) (session.Outcome, error) {
		return st.sess.SessionEnd(ctx, reason)
	})
	if ok {
		p.record(st, reason, &out, "")
		p.surface(st, hooks.SessionEnd, out.Blocks)
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
