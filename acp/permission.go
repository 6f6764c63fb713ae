package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/session"
)

// pickOption chooses an option by kind, in the order of preference given:
// option ids are the agent's own ("proceed_once", "allow-once", …), kinds
// are the protocol's.
func pickOption(options []acpmsg.PermissionOption, kinds ...string) *acpmsg.PermissionOption {
	for _, k := range kinds {
		for i := range options {
			if options[i].Kind == k {
				return &options[i]
			}
		}
	}
	return nil
}

// requestPermission runs PreToolUse where the agent waits for the client's
// permission. A deny answers the agent with its reject_once option and shows
// the editor the tool call as failed with the reason; an allow answers with
// allow_once; an ask, or no decision, passes the request to the editor,
// whose permission prompt is the ask.
func (p *Proxy) requestPermission(m *message) {
	params, err := p.permissionParams(m) // v2: its subject as the tool call (v2permission.go)
	if err != nil || params.ToolCall.ToolCallID == "" || params.SessionID == "" {
		p.refuseUnread(m, "it has no sessionId and toolCall.toolCallId the proxy can read")
		return
	}
	st := p.guardState(params.SessionID)
	if st == nil {
		p.refuseUnopened(m, params.SessionID)
		return
	}
	t := st.tool(params.ToolCall.ToolCallID)
	st.mu.Lock()
	t.merge(&params.ToolCall)
	name, input := t.describe()
	st.mu.Unlock()
	p.flushText(st)

	ctx := st.ctx()
	// The hook bridge ran PreToolUse for this call already (bridge.go), on
	// the input this request carries: its outcome is reused. On any other
	// input the hooks judge this request's.
	out, ok, bridged, other := st.bridgedOutcome(t, name, input, p.bridged())
	if other != nil {
		p.log.Warn("a permission request carries another input than the one the hook bridge judged: its hooks judge it again",
			"session", st.acpID, "tool call", t.id, "tool", name, "bridged", clipText(string(other), 300), "now", clipText(string(input), 300))
	}
	if !bridged {
		out, ok = p.fire(ctx, st, event.PreToolUse, name, func(ctx context.Context) (session.Outcome, error) {
			// "ask" is the editor's own prompt, which comes after the hooks (and
			// after the PermissionRequest hooks): the answer stays "ask" here,
			// and the user's answer is recorded when the editor gives it
			// (editorAnswered).
			pend, err := st.session().StartPreToolUse(ctx, t.id, name, input)
			if err != nil {
				return session.Outcome{}, err
			}
			return pend.Finish(pend.Facts(flow.AskedElsewhere))
		})
	}
	st.mu.Lock()
	t.recorded = t.recorded || ok
	st.mu.Unlock()
	d := flow.Decide(event.PreToolUse, name, input, ok, &out.Answer)
	// A PreToolUse "ask" is put to the user by the agent's own request,
	// which then carries the hook's reason: one question, with the why.
	askReason := ""
	if d.Verdict == flow.VerdictAsk {
		askReason = d.UserReason
	}
	note, next := p.answerPermission(m, st, t, event.PreToolUse, name, params.Options, ctx.Err() != nil, d, askReason)
	if !bridged {
		p.finish(st, event.PreToolUse, name, &out, note)
	}
	if next {
		p.permissionRequestHooks(ctx, m, st, t, name, input, params.Options, askReason)
	}
}

// permissionRequestHooks runs PermissionRequest, Claude Code's event for
// the moment a permission dialog would be shown, when PreToolUse did not
// decide: its allow or deny answers the agent as PreToolUse's would; with
// no decision the editor shows its dialog.
func (p *Proxy) permissionRequestHooks(ctx context.Context, m *message, st *sessState, t *toolState, name string,
	input json.RawMessage, options []acpmsg.PermissionOption, askReason string) {
	out, ok := p.fire(ctx, st, event.PermissionRequest, name, func(ctx context.Context) (session.Outcome, error) {
		return st.session().RunHooks(ctx, event.Input{Event: event.PermissionRequest, ToolName: name, ToolInput: input, ToolUseID: t.id}, nil)
	})
	d := flow.Decide(event.PermissionRequest, name, input, ok, &out.Answer)
	note, _ := p.answerPermission(m, st, t, event.PermissionRequest, name, options, ctx.Err() != nil, d, askReason)
	p.finish(st, event.PermissionRequest, name, &out, note)
}

// permAction is what the proxy does with an agent's permission request
// once an event's hooks answered it.
type permAction int

const (
	permCancel       permAction = iota // the editor cancelled the turn: the agent is answered "cancelled"
	permDeny                           // the hooks could not run, or denied (deny, defer, continue:false)
	permAllow                          // the agent is answered allow_once
	permAskRewritten                   // a hook rewrote the input, which ACP cannot pass: the editor asks, with a warning
	permAskEditor                      // no decision: the editor's own prompt is the ask
	permNext                           // no decision yet: the PermissionRequest hooks come next
)

// permissionAction is what a permission request gets for the decision of
// one of its events (flow.Decide), for PreToolUse and PermissionRequest
// alike: a refusal (deny, defer, stop, hooks that could not run) denies; a
// rewritten input is never let through on an allow, since the agent would
// run the original; an allow allows; anything else asks, PreToolUse
// handing over to the PermissionRequest hooks first.
func permissionAction(ev event.Event, cancelled bool, d flow.Decision) permAction {
	switch {
	case cancelled:
		return permCancel
	case d.Verdict.Refuses():
		return permDeny
	case d.Rewritten != nil:
		return permAskRewritten
	case d.Verdict == flow.VerdictAllow:
		return permAllow
	case ev == event.PreToolUse:
		return permNext
	}
	return permAskEditor
}

// answerPermission acts on permissionAction's verdict: it answers the
// agent (or passes the request to the editor) and returns what it did, for
// the run history, and whether the PermissionRequest hooks come next.
// askReason is a PreToolUse hook's reason for asking ("" when none asked):
// the request the editor gets carries it.
func (p *Proxy) answerPermission(m *message, st *sessState, t *toolState, ev event.Event, name string,
	options []acpmsg.PermissionOption, cancelled bool, d flow.Decision, askReason string) (note string, next bool) {
	switch permissionAction(ev, cancelled, d) {
	case permCancel:
		p.toAgent(m, resultLine(m.ID, acpmsg.Cancelled()))
		return "cancelled by the editor: the agent was answered \"cancelled\"", false
	case permDeny:
		if d.HooksFailed {
			p.recordFailClosed(st, ev, d)
			p.denyPermission(m, st, t, ev, options, "Not allowed: its "+string(ev)+" hooks could not run (the proxy's log says why).", true)
			return "denied: the hooks could not run", false
		}
		return p.denyPermission(m, st, t, ev, options, "Denied by a "+string(ev)+" hook: "+d.ModelReason, d.Verdict != flow.VerdictStop), false
	case permAllow:
		return p.allowPermission(m, st, t, options), false
	case permAskRewritten:
		p.hookMessage(st, ev, levelWarning, name+": a hook rewrote the tool's input (updatedInput), "+
			"which ACP cannot pass to an agent that asks for permission; you are asked instead")
		p.askEditor(m, st, t, options, askReason)
		return "the editor asks the user", false
	case permNext:
		return "no decision: the PermissionRequest hooks come next", true
	}
	p.askEditor(m, st, t, options, askReason)
	if askReason != "" {
		return "the editor asks the user, with the hook's reason", false
	}
	return "the editor asks the user", false
}

// denyPermission answers a permission request with the agent's reject_once
// option (reject_always when it has no other; "cancelled" when it has
// neither) and shows the editor the tool call as failed with the reason,
// and the reason once more as a hook message in the agent's reply: some
// clients (CodeCompanion) never show a failed tool call's content.
func (p *Proxy) denyPermission(m *message, st *sessState, t *toolState, ev event.Event, options []acpmsg.PermissionOption, reason string, cont bool) string {
	st.mu.Lock()
	t.checked, t.denied, t.denyReason, t.judged = methodRequestPermission, true, reason, nil
	name, _ := t.describe()
	title := t.title
	st.mu.Unlock()
	// Before the agent is answered: the turn may end, and the editor send
	// its next prompt, as soon as it is.
	st.addPending(deniedNote(name, title, reason))
	var note string
	if opt := pickOption(options, "reject_once", "reject_always"); opt != nil {
		p.toAgent(m, resultLine(m.ID, acpmsg.Selected(opt.OptionID)))
		note = "the agent was answered " + opt.Kind
	} else {
		p.toAgent(m, resultLine(m.ID, acpmsg.Cancelled()))
		note = "the agent offered no reject option; it was answered \"cancelled\""
	}
	p.showToolFailed(st, t, reason)
	p.deniedMessage(st, t, ev, reason)
	if !cont {
		p.stopTurn(st)
	}
	return note
}

// deniedMessage tells the user, in the agent's reply, that a tool call was
// refused and why: the one "[wavehooks] …" message of a deny, whatever the
// client shows of the failed tool call.
func (p *Proxy) deniedMessage(st *sessState, t *toolState, ev event.Event, reason string) {
	st.mu.Lock()
	what := t.title
	if what == "" {
		what, _ = t.describe()
	}
	st.mu.Unlock()
	p.hookMessage(st, ev, levelInfo, what+" was not run. "+reason)
}

// deniedNote is what the agent's model reads, with the session's next
// prompt, of a tool call the proxy refused (issue #26 item 6): behind an
// agent without the hook bridge the model itself reads only the agent's own
// "refused" or "cancelled" text, which blames the user. reason is the text
// the editor shows ("Denied by a PreToolUse hook: …"); the title is the
// agent's, kept to one line.
func deniedNote(tool, title, reason string) string {
	what := tool
	if title = safetext.Line(title, 200); title != "" {
		what += " (" + title + ")"
	}
	return "[wavehooks] The tool call " + what + " was not run: " + strings.TrimSpace(reason)
}

// allowPermission answers a permission request with the agent's allow_once
// option, or passes it to the editor when the agent offers none (an
// allow_always answer would outlast the hook's decision).
func (p *Proxy) allowPermission(m *message, st *sessState, t *toolState, options []acpmsg.PermissionOption) string {
	opt := pickOption(options, "allow_once")
	if opt == nil {
		p.askEditor(m, st, t, options, "")
		return "the agent offered no allow_once option; the editor asks the user"
	}
	ig := p.bridged()
	st.mu.Lock()
	t.checked = methodRequestPermission
	t.judgeNow(ig)
	st.mu.Unlock()
	p.toAgent(m, resultLine(m.ID, acpmsg.Selected(opt.OptionID)))
	return "the agent was answered allow_once"
}

// askEditor passes a permission request to the editor, remembering it so
// that the user's answer is recorded. With a hook's reason for asking, the
// request's tool call title says it (askTitle); every other byte is the
// agent's.
func (p *Proxy) askEditor(m *message, st *sessState, t *toolState, options []acpmsg.PermissionOption, askReason string) {
	ig := p.bridged()
	st.mu.Lock()
	if t.checked == "" {
		t.checked = methodRequestPermission
	}
	t.judgeNow(ig) // the user decides on this input
	st.mu.Unlock()
	p.mu.Lock()
	p.agentCalls[idKey(m.ID)] = &agentCall{method: methodRequestPermission, st: st, tool: t, options: options, asked: time.Now()}
	p.mu.Unlock()
	line := m.line
	if askReason != "" {
		line = p.askTitleLine(m.line, askReason)
	}
	p.toEditor(m, line)
}

// askTitle is a permission prompt's title with the reason a hook gave for
// asking, escaped to one line as every text a prompt shows.
func askTitle(title, reason string) string {
	why := "wavehooks: a hook asks you to decide: " + safetext.Line(reason, 0)
	if title == "" {
		return why
	}
	return title + " — " + why
}

// showToolFailed shows the editor a tool call the proxy refused, as failed
// with the reason: as an update of the call when the editor saw it, else as
// a new call (the agent's permission request, which would have shown it,
// never reached the editor).
func (p *Proxy) showToolFailed(st *sessState, t *toolState, reason string) {
	st.mu.Lock()
	update := acpmsg.ToolCallNotice{
		SessionUpdate: acpmsg.UpdateToolCallUpdate,
		ToolCallID:    t.id,
		Status:        "failed",
		Content:       []acpmsg.ToolCallContent{denyContent(reason)},
		Meta:          &acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{HookEvent: string(event.PreToolUse), Decision: "deny"}},
	}
	if !t.announced {
		title := t.title
		update.SessionUpdate, update.Title = p.newToolCallKind(), &title
		update.Kind, update.Locations = t.kind, t.locations
		t.announced = true
	}
	st.mu.Unlock()
	p.sendEditor(notificationLine(methodSessionUpdate, acpmsg.SessionNotification{SessionID: st.acpID, Update: update}))
}

// denyContent is the tool call content that shows why the proxy denied it.
func denyContent(reason string) acpmsg.ToolCallContent {
	return acpmsg.ToolCallContent{Type: "content", Content: acpmsg.NewText(reason)}
}

// editorAnswered records what the editor answered to an agent's request
// the proxy passed on: the user's choice on a permission request, the
// outcome of a file or terminal operation.
func (p *Proxy) editorAnswered(call *agentCall, m *message) {
	st, t := call.st, call.tool
	st.mu.Lock()
	name, input := t.describe()
	st.mu.Unlock()
	switch call.method {
	case methodRequestPermission:
		var res acpmsg.RequestPermissionResponse
		_ = decode(m.Result, &res)
		kind := ""
		for _, o := range call.options {
			if o.OptionID == res.Outcome.OptionID {
				kind = o.Kind
			}
		}
		p.audit.RecordAnswer(audit.Answer{Session: st.acpID, Event: methodRequestPermission, Tool: name, Input: input,
			Answer: permissionAnswer(m.Error != nil || res.Outcome.Outcome == acpmsg.OutcomeCancelled, kind),
			By:     "user in the editor: " + methodRequestPermission, Duration: time.Since(call.asked)})
		var result string
		switch {
		case m.Error != nil || res.Outcome.Outcome == acpmsg.OutcomeCancelled:
			result = "The permission request was cancelled before the user decided."
		case kind == "reject_once" || kind == "reject_always":
			result = "The user denied permission to run " + name + "."
		default:
			st.mu.Lock()
			t.userAllowed = true // for this input (askEditor judged it): a change is put to the user again
			st.mu.Unlock()
			return
		}
		st.mu.Lock()
		t.denied, t.judged = true, nil
		st.mu.Unlock()
		p.saveTool(st, session.ToolBlock(session.Tool{ID: t.id, Name: name, Input: input, Result: result, Success: boolPtr(false), Error: "User denied tool execution"}))
	default: // a file or terminal operation
		if m.Error != nil {
			var e acpmsg.Error
			_ = decode(m.Error, &e)
			p.saveTool(st, session.ToolBlock(session.Tool{ID: t.id, Name: name, Input: input, Result: "the editor answered " + call.method + " with an error: " + e.Message, Success: boolPtr(false)}))
			return
		}
		p.saveTool(st, session.ToolBlock(session.Tool{ID: t.id, Name: name, Input: input, Result: "the editor carried out " + call.method, Success: boolPtr(true)}))
	}
}

// saveTool records a tool block's new state in the transcript.
func (p *Proxy) saveTool(st *sessState, b session.Block) {
	if err := st.session().AddAssistantMessage([]session.Block{b}); err != nil {
		p.log.Warn("a tool call could not be recorded", "session", st.acpID, "tool", b.Tool().Name, "err", err)
	}
}

func boolPtr(b bool) *bool { return &b }

// clientOperation runs PreToolUse on an agent's fs/write_text_file,
// fs/read_text_file or terminal/create before the editor carries it out,
// as the Write, Read and Bash tools (docs/acp.md). A deny answers the agent
// with an error that carries the reason; updatedInput changes the path, the
// content or the command; an ask is put to the user through a permission
// request of the proxy's own.
func (p *Proxy) clientOperation(m *message) {
	params, err := decodeObject(m.Params)
	var op operation
	if err == nil {
		if op, err = operationOf(m.Method, m.Params); err != nil {
			p.refuseUnread(m, "its params are not what ACP says ("+err.Error()+")")
			return
		}
	}
	if op.sessionID == "" {
		p.refuseUnread(m, "its params are not an object with a sessionId")
		return
	}
	st := p.guardState(op.sessionID)
	if st == nil {
		p.refuseUnopened(m, op.sessionID)
		return
	}
	if owner := st.decidedOwner(&op, p.bridged()); owner != nil {
		// One logical tool call, one decision: its permission request was
		// judged (and asked) already.
		p.log.Debug("not hooked again: part of a tool call already decided", "method", m.Method, "tool call", owner.id,
			"session", st.acpID)
		p.passEditor(m)
		return
	}
	p.mu.Lock()
	p.seq++
	// metaName is the tool its hooks are told, so that the transcript
	// names it the same (describe).
	t := &toolState{id: fmt.Sprintf("%s%s-%d", ownIDPrefix, op.short, p.seq), kind: op.kind, title: op.title,
		locations: op.locations, rawInput: op.input, metaName: op.tool}
	p.mu.Unlock()
	name, input := op.tool, op.input
	p.flushText(st)
	st.markChecked(m.Method, op.kind)

	ctx := st.ctx()
	out, ok := p.fire(ctx, st, event.PreToolUse, name, func(ctx context.Context) (session.Outcome, error) {
		return st.session().PreToolUse(ctx, t.id, name, input, func(ctx context.Context, req session.AskRequest) bool {
			return p.askUser(ctx, st, t, req)
		})
	})
	var note string
	deny := func(reason string) {
		st.addPending(deniedNote(name, op.title, reason)) // before the agent can end its turn
		p.toAgent(m, errorLine(m.ID, rpcerr.HookDenied, reason,
			&acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{HookEvent: string(event.PreToolUse), Tool: name, Decision: "deny"}}))
		p.hookMessage(st, event.PreToolUse, levelInfo, op.title+" was not carried out. "+reason)
	}
	d := flow.Decide(event.PreToolUse, name, input, ok, &out.Answer)
	act := p.decideAt(st, d, false, operationPoint)
	switch {
	case ctx.Err() != nil:
		p.toAgent(m, errorLine(m.ID, rpcerr.RequestCancelled, "cancelled: the editor cancelled the turn", nil))
		note = "cancelled by the editor"
	case act.refuse != "":
		deny(act.refuse)
		note = act.note
		if act.stop {
			p.stopTurn(st)
		}
	default: // the session asked the user itself, so what is not refused goes on
		line := m.line
		if d.Rewritten != nil {
			changed, err := op.apply(params, out.ToolInput)
			if err != nil {
				deny("A PreToolUse hook's updatedInput cannot be used: " + err.Error())
				note = "denied: unusable updatedInput"
				break
			}
			line = withParams(m, changed)
			note = "passed to the editor with the hook's updatedInput"
		}
		p.mu.Lock()
		p.agentCalls[idKey(m.ID)] = &agentCall{method: m.Method, st: st, tool: t}
		p.mu.Unlock()
		p.toEditor(m, line)
	}
	p.finish(st, event.PreToolUse, name, &out, note)
}

// refuseUnread answers a guarded request of the agent's whose params the
// proxy cannot read with an error, instead of passing it on unchecked: its
// hooks could not have judged it.
func (p *Proxy) refuseUnread(m *message, why string) {
	p.log.Warn("refused a request the hooks cannot judge", "method", m.Method, "why", why)
	p.toAgent(m, errorLine(m.ID, rpcerr.InvalidParams, "wavehooks: "+m.Method+" refused: "+why+
		", so its hooks cannot judge it", nil))
}

// askUser puts a hook's "ask" about a file or terminal operation to the
// user: the proxy sends the editor a session/request_permission of its own,
// its title carrying the hook's reason, and waits for the answer (a cancel
// or the editor going away denies).
func (p *Proxy) askUser(ctx context.Context, st *sessState, t *toolState, req session.AskRequest) bool {
	title := t.title
	if req.Reason != "" {
		title = askTitle(title, req.Reason) // the question carries the why
	}
	kind, status := t.kind, "pending"
	asked := time.Now()
	answer := p.call(ctx, true, p.ownID("ask"), methodRequestPermission, acpmsg.RequestPermissionRequest{
		SessionID: st.acpID,
		ToolCall: acpmsg.ToolCallUpdate{ToolCallID: t.id, Title: &title, Kind: &kind, Status: &status,
			RawInput: req.ToolInput, Locations: t.locations},
		Options: []acpmsg.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: "allow_once"},
			{OptionID: "reject", Name: "Reject", Kind: "reject_once"},
		},
	})
	st.mu.Lock()
	name, _ := t.describe()
	st.mu.Unlock()
	allow, by := false, "user in the editor: the proxy's own "+methodRequestPermission
	if answer == nil || answer.Error != nil {
		by = "nobody: the editor gave no answer (a cancel, or it went away): denied"
	} else {
		var res acpmsg.RequestPermissionResponse
		_ = decode(answer.Result, &res)
		allow = res.Outcome.Outcome == acpmsg.OutcomeSelected && res.Outcome.OptionID == "allow"
	}
	p.audit.RecordAnswer(audit.Answer{Session: st.acpID, Event: string(event.PreToolUse), Tool: name, Input: req.ToolInput,
		Answer: askAnswer(allow), By: by,
		Reason: req.Reason, Duration: time.Since(asked)})
	return allow
}
