package acp

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/session"
)

// A decision binds what runs (issue #35 item 2). A PreToolUse decision —
// the hooks' allow, the user's answer to the permission prompt that carried
// it, the hook bridge's run — is kept with the exact tool and input it was
// made for, never with the tool call's id alone: an agent can send a
// tool_call_update that changes a decided call's input, or a permission
// request, file or terminal request for the same id with other content, and
// the decision on `ls` must not let `rm -rf ~` through. What the proxy
// compares is a binding, the tool's name and the SHA-256 of its input in
// canonical JSON; whatever differs is judged again.

// binding is a tool name and the hash of its input in canonical form.
type binding struct {
	tool string
	sum  [sha256.Size]byte
}

// bindingOf is the binding of a tool call: its name and the hash of its
// input's canonical JSON (rawjson.Canonical), so that two encodings of one
// input — key order, spacing, escapes — bind alike and any other
// difference does not.
func bindingOf(tool string, input json.RawMessage) binding {
	return binding{tool: tool, sum: sha256.Sum256(rawjson.Canonical(input))}
}

// judgment is what a PreToolUse decision on a tool call was made for.
type judgment struct {
	// view is the call as the proxy described it (toolState.describe)
	// when the decision was made; as is a copy of what it knew of the
	// call then, which a later file or terminal request is matched
	// against (decidedOwner), never the call as later updates left it.
	view binding
	as   toolState
	// hook is the agent's own hook input for a decision the hook bridge
	// made (bridge.go, the agent's integration in acp/agents): its tool name and tool_input, the
	// input the agent runs.
	hook *hookCall
}

// hookCall is a tool call as an agent's own hook system handed it to the
// bridge: the input the agent is about to run.
type hookCall struct {
	tool  string
	input json.RawMessage
}

// describedAs is a copy of the fields describe and owns read, taken when a
// decision is made; the caller holds the session's lock.
func (t *toolState) describedAs() toolState {
	return toolState{id: t.id, metaName: t.metaName, title: t.title, kind: t.kind,
		content: append([]json.RawMessage(nil), t.content...), locations: append([]acpmsg.ToolCallLocation(nil), t.locations...),
		rawInput: t.rawInput}
}

// judge records that a decision was made on the call as it is now (and,
// from the hook bridge, on the agent's hook input); the caller holds the
// session's lock.
func (t *toolState) judge(hook *hookCall) {
	name, input := t.describe()
	t.judged = &judgment{view: bindingOf(name, input), as: t.describedAs(), hook: hook}
}

// judgeNow records that a decision was made on the call as it is now,
// keeping the bridge's hook input when the call still agrees with it; the
// caller holds the session's lock.
func (t *toolState) judgeNow(ig agents.Integration) {
	var hook *hookCall
	if t.judged != nil && t.judged.hook != nil {
		name, input := t.describe()
		if t.judged.agrees(name, input, ig) {
			hook = t.judged.hook
		}
	}
	t.judge(hook)
}

// agrees says whether the call, as the proxy now describes it (name,
// input), is still what its decision was made for. A decision the bridge
// made is compared with the agent's hook input through the agent's own
// reading of it (sameAsHook): the agent describes a call to the editor in
// its own shape, which is not the shape its hooks get. The caller holds
// the session's lock.
func (j *judgment) agrees(name string, input json.RawMessage, ig agents.Integration) bool {
	if j.view == bindingOf(name, input) {
		return true
	}
	return j.hook != nil && ig != nil && ig.SameCall(agents.Call{Tool: j.hook.tool, Input: j.hook.input}, agents.Call{Tool: name, Input: input})
}

// describes says whether an update sets a field describe reads: only such
// an update can change what a decided call does.
func describes(u *acpmsg.ToolCallUpdate) bool {
	return u.Title != nil || u.Kind != nil || u.Content != nil || u.Locations != nil || !isNull(u.RawInput) ||
		u.Meta != nil && u.Meta.ClaudeCode != nil && u.Meta.ClaudeCode.ToolName != ""
}

// rejudge runs the PreToolUse hooks again for a decided tool call whose
// input an update changed, on the agent's reader, so that nothing the
// agent sends after the update (a terminal, a file write, a permission
// request) is handled before the new input is decided. The hooks decide as
// at a permission request; an ask, a rewritten input (which cannot reach a
// call the agent started), and no decision at all (nobody has allowed this
// input) are put to the user through a permission request of the proxy's
// own. Allowed, the decision is bound to the new input. Refused — by a
// hook, the user, hooks that could not run — the call is shown failed
// with the reason, the model is told, and the agent's turn is cancelled:
// an agent that runs the call itself would otherwise run it.
func (p *Proxy) rejudge(st *sessState, t *toolState, name string, input json.RawMessage) {
	st.mu.Lock()
	title := t.title
	var was json.RawMessage
	if t.judged != nil {
		_, was = t.judged.as.describe()
	}
	var agent map[string]json.RawMessage // a subagent's call stays its
	if t.bridged != nil {
		agent = t.bridged.agent
	}
	st.mu.Unlock()
	p.log.Warn("a decided tool call's input changed: its PreToolUse hooks judge it again", "session", st.acpID, "tool call", t.id,
		"tool", name, "was", clipText(string(was), 300), "now", clipText(string(input), 300))
	ctx := st.ctx()
	out, ok := p.fireBridged(ctx, st, t, name, input, agent)
	const changed = inputChanged
	d := flow.Decide(event.PreToolUse, name, input, ok, &out.Answer)
	act := p.decideAt(st, d, ctx.Err() != nil, changedInputPoint)
	reason, note, askWhy := act.refuse, act.note, act.askUser
	if act.allow {
		note = "allowed again: " + changed
	}
	if d.Verdict.Refuses() && ctx.Err() == nil {
		note = "denied: " + changed
	}
	if askWhy != "" {
		if p.askUser(ctx, st, t, session.AskRequest{Reason: askWhy, ToolInput: input}) {
			note = "the user allowed the new input when asked"
		} else {
			reason, note = "The user rejected it when asked: "+askWhy, "the user rejected the new input"
		}
	}
	ig := p.bridged()
	st.mu.Lock()
	if reason == "" {
		t.judgeNow(ig)
	} else {
		t.denied, t.denyReason, t.judged = true, reason, nil
	}
	st.mu.Unlock()
	p.finish(st, event.PreToolUse, name, &out, note)
	if reason == "" {
		return
	}
	st.addPending(deniedNote(name, title, reason))
	p.showToolFailed(st, t, reason)
	p.deniedMessage(st, t, event.PreToolUse, reason)
	p.stopTurn(st)
}
