package acp

import (
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// The proxy's part in the audit log (internal/audit): the runs reach it
// through the run history; what is recorded here is what the proxy or the
// user decided after the hooks — the user's answer in the editor
// (editorAnswered, askUser) and the proxy's own refusal of a call whose
// hooks could not run.

// failClosedBy is who refused a call whose hooks could not run.
const failClosedBy = "proxy: fail closed, the hooks could not run"

// decideAt is actionFor, recording in the audit log the refusal of a call
// whose hooks could not run: the proxy, not a hook, answered it.
func (p *Proxy) decideAt(st *sessState, d flow.Decision, cancelled bool, at decisionPoint) toolAction {
	if d.HooksFailed && !cancelled {
		p.recordFailClosed(st, event.PreToolUse, d)
	}
	return actionFor(d, cancelled, at)
}

// recordFailClosed records that the proxy denied d's call because its
// hooks of ev could not run.
func (p *Proxy) recordFailClosed(st *sessState, ev event.Event, d flow.Decision) {
	p.audit.RecordAnswer(audit.Answer{Session: st.acpID, Event: string(ev), Tool: d.Tool, Input: d.Input,
		Answer: audit.Deny, By: failClosedBy, Reason: d.UserReason})
}

// askAnswer is a yes or no as the audit log words it.
func askAnswer(allow bool) string {
	if allow {
		return audit.Allow
	}
	return audit.Deny
}

// permissionAnswer is the user's answer to a permission request as the
// audit log words it: the kind of the option chosen, or a cancel.
func permissionAnswer(cancelled bool, kind string) string {
	switch {
	case cancelled:
		return audit.Cancelled
	case kind == "allow_once" || kind == "allow_always":
		return audit.Allow
	}
	return audit.Deny
}
