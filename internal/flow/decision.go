package flow

import (
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// Verdict is what the hooks of a tool call's event decided, in the terms
// every host acts on (issue #36 item 1): serve's wave/preToolUse, `wavehooks
// run`, and each of the ACP proxy's decision points (a permission request,
// a file or terminal request, both hook bridges, a call whose input
// changed) read one Verdict instead of the answer's raw fields.
type Verdict uint8

const (
	// VerdictNone: no hook decided. The host's own permission flow decides
	// (an editor's prompt, the agent's mode); serve and `run` allow, as
	// Claude Code runs a tool no hook objected to.
	VerdictNone Verdict = iota
	// VerdictAllow: a hook allowed the call, or the user did when a hook
	// asked.
	VerdictAllow
	// VerdictAsk: a hook asked, and the user is asked outside the session
	// (flow.AskedElsewhere): the host puts the question with the reason.
	VerdictAsk
	// VerdictDeny: a hook or the user refused the call, or its hooks could
	// not run (every guarded path fails closed).
	VerdictDeny
	// VerdictDefer: a hook deferred the call: it does not run now.
	VerdictDefer
	// VerdictStop: a hook's continue:false, or the user's deny of an ask:
	// the call does not run and the agent's turn ends.
	VerdictStop
)

var verdictNames = [...]string{"none", "allow", "ask", "deny", "defer", "stop"}

// String is the verdict's name, as the run history and tests write it.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "unknown"
}

// Refuses says whether the call must not run: deny, defer or stop.
func (v Verdict) Refuses() bool { return v == VerdictDeny || v == VerdictDefer || v == VerdictStop }

// Decision is one typed decision on a tool call: what was decided, why (for
// the user and for the model), the input a hook rewrote, and the tool and
// input it was made for, so that a host can bind it to exactly that input
// (acp/binding.go).
type Decision struct {
	Verdict Verdict
	// UserReason is what the user is told: a deny's or an ask's reason, a
	// stop's stopReason. ModelReason is what the model reads of a refusal.
	UserReason  string
	ModelReason string
	// Rewritten is a hook's updatedInput; nil when none rewrote it (never
	// set on a refusal: nothing runs).
	Rewritten json.RawMessage
	// Tool and Input are the call the hooks judged.
	Tool  string
	Input json.RawMessage
	// HooksFailed: the hooks could not run at all, which denies; a host
	// words that refusal its own way (its log says why).
	HooksFailed bool
}

// CouldNotRun is the model's and the user's reason for a call whose hooks
// could not run at all.
const CouldNotRun = "Not allowed: its hooks could not run (the log says why)."

// Decide turns a PreToolUse or PermissionRequest answer into the one
// decision every host acts on. ran is false when the hooks could not run
// at all (the call is then denied). For PreToolUse, an "ask" the session
// resolved (the user's allow or deny) has become allow or stop; one asked
// elsewhere (AskedElsewhere) is VerdictAsk. For PermissionRequest, no
// decision means the host asks as usual.
func Decide(ev event.Event, tool string, input json.RawMessage, ran bool, a *Answer) Decision {
	d := Decision{Tool: tool, Input: input}
	switch {
	case !ran:
		d.Verdict, d.UserReason, d.ModelReason, d.HooksFailed = VerdictDeny, CouldNotRun, CouldNotRun, true
		return d
	case !a.Continue:
		d.Verdict, d.UserReason, d.ModelReason = VerdictStop, a.StopReason, a.Reason
		if d.ModelReason == "" {
			d.ModelReason = "stopped by hook: " + a.StopReason
		}
		return d
	}
	perm := hooks.Permission(a.Permission)
	if ev == event.PreToolUse && a.Decision == string(hooks.PermissionDefer) {
		perm = hooks.PermissionDefer
	}
	switch perm {
	case hooks.PermissionDeny:
		d.Verdict = VerdictDeny
	case hooks.PermissionDefer:
		d.Verdict = VerdictDefer
	case hooks.PermissionAsk:
		d.Verdict = VerdictAsk
	case hooks.PermissionAllow:
		d.Verdict = VerdictAllow
		if ev == event.PreToolUse && a.Decision == "none" && !a.Asked {
			d.Verdict = VerdictNone // flow allows what no hook decided on
		}
	}
	if d.Verdict.Refuses() {
		d.UserReason, d.ModelReason = a.Reason, a.Reason
		return d
	}
	d.UserReason = a.Reason
	d.Rewritten = a.Result.UpdatedInput
	return d
}
