package acp

import (
	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// One decision (issue #36 item 1). Every point where the proxy decides a
// tool call reads the same flow.Decision (flow.Decide); what differs
// between them is only what the agent can take at that point, which a
// decisionPoint says. permissionAction does the same for a permission
// request, whose answers are the agent's options.

// decisionPoint is what the agent can take where the proxy decides a tool
// call that is not a permission request.
type decisionPoint struct {
	// agentAsks: the agent asks the user itself when told "ask" (Claude
	// Code's hook answer); otherwise the proxy asks through the editor.
	agentAsks bool
	// takesRewrite: the agent runs a hook's updatedInput with an allow
	// (Claude Code's hook answer); otherwise a rewritten input is put to
	// the user as it is.
	takesRewrite bool
	// undecidedAsks: no decision is put to the user (a call whose input
	// changed after it was allowed: nobody allowed the new one); otherwise
	// the agent's own permission flow or mode decides.
	undecidedAsks bool
	// rewriteWhy is the question put to the user about a rewritten input.
	rewriteWhy string
	// undecidedWhy is the question put to the user when undecidedAsks.
	undecidedWhy string
}

// The decision points other than a permission request.
var (
	// operationPoint: an agent's file or terminal request, which the
	// session asks the user about itself (never VerdictAsk here) and whose
	// params take a hook's updatedInput (operations.go).
	operationPoint = decisionPoint{takesRewrite: true}
	// changedInputPoint: a decided call whose input an update changed
	// (rejudge): nobody allowed the new input, so no decision asks.
	changedInputPoint = decisionPoint{undecidedAsks: true,
		rewriteWhy:   inputChanged + "; a PreToolUse hook rewrote the new input (updatedInput), which cannot reach a call the agent started: allow or reject it as it is",
		undecidedWhy: inputChanged + "; no hook decided on the new input"}
)

// bridgePoint is the decision point of a bridged agent's own hook: what
// its answer can carry (agents.Caps).
func bridgePoint(ig agents.Integration) decisionPoint {
	c := ig.Caps()
	return decisionPoint{agentAsks: c.AsksUser, takesRewrite: c.TakesRewrite,
		rewriteWhy: "a PreToolUse hook rewrote this tool's input (updatedInput), which " + ig.Name() +
			" cannot take from a hook: allow or reject it as it is"}
}

// inputChanged says why a decided call is judged again (rejudge).
const inputChanged = "the agent changed this tool call's input after it was decided"

// toolAction is what the proxy does with a decision at a decisionPoint.
type toolAction struct {
	// refuse is the reason the call is refused with ("" when it goes on);
	// stop: the agent's turn ends as well.
	refuse string
	stop   bool
	// askAgent is the reason the agent is told to ask the user with, and
	// askUser the question the proxy puts to the user itself.
	askAgent, askUser string
	// allow: the agent is told the hooks allowed the call; rewrite: with
	// the hook's updatedInput.
	allow, rewrite bool
	// note says what was done, for the run history.
	note string
}

// actionFor is the one mapping from a decision to what the proxy does at
// a decision point.
func actionFor(d flow.Decision, cancelled bool, at decisionPoint) toolAction {
	switch {
	case cancelled:
		return toolAction{refuse: "the editor cancelled the turn", note: "cancelled by the editor: denied"}
	case d.HooksFailed:
		return toolAction{refuse: "Not allowed: its PreToolUse hooks could not run (the proxy's log says why).", note: "denied: the hooks could not run"}
	case d.Verdict.Refuses():
		return toolAction{refuse: "Denied by a PreToolUse hook: " + d.ModelReason, stop: d.Verdict == flow.VerdictStop,
			note: "denied in the agent, before it ran"}
	case d.Verdict == flow.VerdictAsk && at.agentAsks:
		return toolAction{askAgent: d.UserReason, note: "the agent asks the user"}
	case d.Verdict == flow.VerdictAsk:
		return toolAction{askUser: d.UserReason}
	case d.Rewritten != nil && !at.takesRewrite:
		return toolAction{askUser: at.rewriteWhy}
	case d.Verdict == flow.VerdictAllow && at.takesRewrite:
		return toolAction{allow: true, rewrite: d.Rewritten != nil, note: "allowed in the agent"}
	case d.Verdict == flow.VerdictAllow:
		return toolAction{allow: true, note: "allowed: the agent's own mode decides"}
	case at.undecidedAsks:
		return toolAction{askUser: at.undecidedWhy}
	}
	return toolAction{note: "no decision: the agent's own permission flow decides"}
}
