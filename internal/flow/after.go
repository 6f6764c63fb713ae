package flow

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// QuestionsFor is what After needs to know from the world about the
// hooks' answer res to the event in: the user's answer when PreToolUse
// hooks said "ask" (and did not stop the agent), and whether the path a
// WorktreeCreate hook printed is a directory.
func QuestionsFor(in event.Input, res hooks.Result) Questions {
	var q Questions
	switch {
	case in.Event == event.PreToolUse && res.Continue && res.Permission == hooks.PermissionAsk:
		q.Ask = &AskQuestion{ToolUseID: in.ToolUseID, ToolName: in.ToolName,
			ToolInput: rawjson.OrEmptyObject(effectiveInput(in, res)), Reason: res.Reason}
	case in.Event == event.WorktreeCreate && !res.Blocked && res.WorktreePath != "":
		q.Worktree = res.WorktreePath
	}
	return q
}

// After is what the hooks' combined answer res to the event in (as Before
// returned it) means: the answer for the agent and the changes to the
// conversation, given the session's state and the answers to QuestionsFor's
// questions. Every event shares the notices (warnings, errors, what async
// hooks said, continue:false); each then has its own rules, documented on
// the function that applies them.
func After(in event.Input, res hooks.Result, st State, f Facts) Effects {
	e := newEffects(res)
	switch in.Event {
	case event.PreToolUse:
		e.preToolUse(in, &res, f)
	case event.PostToolUse:
		e.postToolUse(in, &res)
	case event.SessionStart:
		e.notices(&res)
		e.sessionStart(in, &res)
		if e.Continue {
			e.context(event.SessionStart, append(append([]string(nil), res.Context...), res.AdditionalContext...))
		}
	case event.UserPromptSubmit:
		e.userPromptSubmit(&res)
	case event.Stop:
		e.stop(&res, st)
	case event.SessionEnd:
		// SessionEnd hooks cannot change the conversation, nor stop anything:
		// only what they say to the user is kept.
		e.deliver(&res)
		e.warningsAndErrors(&res)
	case event.PermissionRequest:
		e.notices(&res)
		e.permissionRequest(in, &res)
	case event.SubagentStart:
		e.notices(&res)
		e.AdditionalContext = append(append(e.AdditionalContext, res.Context...), res.AdditionalContext...)
	case event.SubagentStop:
		e.notices(&res)
		e.subagentStop(StringField(in.Extra, "agent_id"), &res, st)
	case event.PreCompact:
		e.notices(&res)
		if res.Blocked && e.Continue {
			e.Blocked, e.Reason = true, res.Reason
			e.change(Change{Kind: Error, Text: "compaction blocked by a PreCompact hook: " + res.Reason})
		}
		if e.Continue {
			e.contextOf(in.Event, &res)
		}
	case event.PostToolUseFailure, event.Notification, event.PostCompact:
		e.notices(&res)
		if e.Continue {
			if res.Blocked {
				e.feedback(res.Reason)
			}
			e.contextOf(in.Event, &res)
		}
	default:
		e.later(in, &res, f)
	}
	return e.Effects
}

// sessionStart passes on what SessionStart hooks ask of the agent host:
// the files FileChanged watches from the session's start on, a re-scan of
// skills, the session's title (not on clear or compact, where Claude Code
// ignores it), and, unless a hook stopped the session, its first user turn.
func (e *effects) sessionStart(in event.Input, res *hooks.Result) {
	e.WatchPaths, e.ReloadSkills = res.WatchPaths, res.ReloadSkills
	if in.Source != "clear" && in.Source != "compact" {
		e.SessionTitle = res.SessionTitle
	}
	if e.Continue {
		e.InitialUserMessage = res.InitialUserMessage
	}
}

// effects builds an Effects.
type effects struct{ Effects }

func newEffects(res hooks.Result) *effects {
	env := res.Env
	if env == nil {
		env = map[string]string{}
	}
	e := &effects{Effects{Answer: Answer{Result: res, Continue: true, AdditionalContext: []string{}, Env: env}}}
	e.TerminalSequences = res.TerminalSequences // every event's, for the host's terminal
	return e
}

func (e *effects) change(cs ...Change) { e.Changes = append(e.Changes, cs...) }

// notices applies what every event shares: what async hooks said since the
// last event, warnings as warn blocks, errors as error blocks, and
// continue:false, which stops the agent with an error block the user sees.
func (e *effects) notices(res *hooks.Result) {
	e.deliver(res)
	e.warningsAndErrors(res)
	if !res.Continue {
		e.Continue, e.StopReason = false, res.StopReason
		e.change(Change{Kind: Error, Text: "stopped by hook: " + res.StopReason})
	}
}

// deliver gives the model what async hooks said since the session's last
// event: Claude Code gives an async hook's additionalContext and
// systemMessage to the model on the next turn.
func (e *effects) deliver(res *hooks.Result) {
	if len(res.Delivered) == 0 {
		return
	}
	e.change(Change{Kind: Deliver, Delivered: res.Delivered})
	for _, d := range res.Delivered {
		e.AdditionalContext = append(e.AdditionalContext, d.Content)
	}
}

func (e *effects) warningsAndErrors(res *hooks.Result) {
	for _, w := range res.Warnings {
		e.change(Change{Kind: Warn, Text: w})
	}
	for _, msg := range res.Errors {
		e.change(Change{Kind: Error, Text: msg})
	}
}

// context gives the model texts as hook blocks of ev.
func (e *effects) context(ev event.Event, texts []string) {
	if len(texts) > 0 {
		e.change(Change{Kind: Context, Event: ev, Texts: texts})
	}
	e.AdditionalContext = append(e.AdditionalContext, texts...)
}

// contextOf gives the model each plain-text context of res as a user
// message and each additionalContext as a hook block.
func (e *effects) contextOf(ev event.Event, res *hooks.Result) {
	for _, c := range res.Context {
		e.change(Change{Kind: UserText, Text: c})
	}
	e.AdditionalContext = append(e.AdditionalContext, res.Context...)
	e.context(ev, res.AdditionalContext)
}

// feedback blocks the event and gives the model its reason as a user message.
func (e *effects) feedback(reason string) {
	e.Blocked, e.Reason = true, reason
	e.change(Change{Kind: UserText, Text: reason})
}

// effectiveInput is the input a tool runs with: a hook's updatedInput, or
// the call's own.
func effectiveInput(in event.Input, res hooks.Result) json.RawMessage {
	if res.UpdatedInput != nil {
		return res.UpdatedInput
	}
	return in.ToolInput
}

// preToolUse decides whether a tool call may run. A deny (or a user's deny)
// puts the reason in the tool block as its failed result, and a user's deny
// also ends the turn (docs/hooks.md, "JSON output":
// shouldContinueRecursion=false). An "ask" nobody could answer is a deny.
func (e *effects) preToolUse(in event.Input, res *hooks.Result, f Facts) {
	perm, reason, refusal := res.Permission, res.Reason, HookBlockedTool
	userDenied := false
	switch {
	case !res.Continue:
		perm = hooks.PermissionDeny
		if reason == "" || res.Permission != hooks.PermissionDeny {
			reason = "stopped by hook: " + res.StopReason
		}
	case perm == hooks.PermissionAsk && f.Ask == NoOneAsked:
		perm, reason = hooks.PermissionDeny, "permission to run "+in.ToolName+" was needed and no one could be asked"
		if res.Reason != "" {
			reason += ": " + res.Reason
		}
	case perm == hooks.PermissionAsk && f.Ask == UserAllowed:
		perm, e.Asked = hooks.PermissionAllow, true
	case perm == hooks.PermissionAsk && f.Ask == AskedElsewhere:
		// stays "ask": the call waits for a prompt outside the session
	case perm == hooks.PermissionAsk:
		perm, e.Asked, userDenied, refusal = hooks.PermissionDeny, true, true, UserDeniedTool
		reason = "The user denied permission to run " + in.ToolName + "."
	}
	e.Decision = decision(res)
	e.PermissionDisplay = res.PermissionDisplay
	if perm == hooks.PermissionDefer {
		e.deferTool(in, res)
		return
	}
	e.ToolInput = rawjson.OrEmptyObject(effectiveInput(in, *res))
	tool := ToolCall{ID: in.ToolUseID}
	if perm == hooks.PermissionDeny {
		e.Permission, e.Reason = string(hooks.PermissionDeny), reason
		e.change(Change{Kind: SetToolResult, Tool: tool, Text: reason, Success: false, Refusal: refusal})
		if userDenied {
			e.Continue, e.StopReason = false, reason
		}
	} else {
		e.Permission, e.Reason = string(hooks.PermissionAllow), res.Reason
		if perm == hooks.PermissionAsk {
			e.Permission = string(hooks.PermissionAsk) // asked elsewhere; the input it would run with is applied
		}
		if res.UpdatedInput != nil {
			tool.Input = res.UpdatedInput
			e.change(Change{Kind: SetToolInput, Tool: tool})
		}
	}
	e.notices(res)
	if e.Continue {
		e.context(event.PreToolUse, res.AdditionalContext)
	}
}

// DeferReason is the reason of a PreToolUse answer a hook deferred.
const DeferReason = "deferred by a PreToolUse hook: the tool does not run until the agent host resumes the call"

// deferTool applies a PreToolUse "defer" (deny > defer > ask > allow): the
// tool does not run now, and its block stays pending in the transcript,
// with no result, as Claude Code keeps a deferred call. The host is told
// (Decision "defer"; Permission "deny", so that a caller that knows only
// allow and deny does not run it) and pauses the agent at the call; it
// resumes by sending wave/preToolUse for the same call again, whose hooks
// decide anew. updatedInput, the reason and additionalContext are ignored,
// as Claude Code ignores them for defer.
func (e *effects) deferTool(in event.Input, res *hooks.Result) {
	e.Permission, e.Reason = string(hooks.PermissionDeny), DeferReason
	e.ToolInput = rawjson.OrEmptyObject(in.ToolInput)
	e.notices(res)
}

// decision is what PreToolUse hooks decided, before anyone was asked:
// "allow", "deny", "ask", or "none" when no hook had an opinion (the editor
// then applies its own permission rules). continue:false counts as deny.
func decision(res *hooks.Result) string {
	switch {
	case !res.Continue:
		return string(hooks.PermissionDeny)
	case res.Permission == hooks.PermissionNone:
		return "none"
	}
	return string(res.Permission)
}

// postToolUse applies a tool's hooks after it ran: a hook may replace what
// the model sees (updatedToolOutput: a redaction, say), and then the tool
// block keeps only the replacement, so the model never sees the original;
// a block sends the reason to the model as a user message.
func (e *effects) postToolUse(in event.Input, res *hooks.Result) {
	e.ToolResponse = in.ToolResponse
	if len(e.ToolResponse) == 0 {
		e.ToolResponse = json.RawMessage("null")
	}
	e.ClassifierContext = res.ClassifierContext
	if res.UpdatedToolOutput != nil {
		e.ToolResponse = res.UpdatedToolOutput
		result, success := DescribeResponse(res.UpdatedToolOutput)
		e.change(Change{Kind: SetToolResult, Tool: ToolCall{ID: in.ToolUseID}, Text: result, Success: success})
	}
	e.notices(res)
	if e.Continue {
		if res.Blocked {
			e.feedback(res.Reason)
		}
		e.context(event.PostToolUse, res.AdditionalContext)
	}
}

// userPromptSubmit erases a blocked prompt and shows the reason to the user
// only; otherwise the hooks' context follows the prompt.
//
// A blocked prompt's answer says whether a hook asked to leave the prompt's
// text out of what the user is shown (SuppressOriginalPrompt); a prompt
// that goes ahead carries the session title a hook gave (SessionTitle) and
// the prompt a hook rewrote (UpdatedPrompt), which replaces the user's text
// in the transcript. A block beats a rewrite.
func (e *effects) userPromptSubmit(res *hooks.Result) {
	if res.Blocked {
		e.Blocked, e.Reason = true, res.Reason
		e.SuppressOriginalPrompt = res.SuppressOriginalPrompt
		e.change(Change{Kind: ErasePrompt}, Change{Kind: Error, Text: res.Reason})
	} else {
		e.SessionTitle = res.SessionTitle
		if res.UpdatedPrompt != "" {
			// What the model sees: the transcript holds the rewritten prompt.
			e.UpdatedPrompt = res.UpdatedPrompt
			e.change(Change{Kind: RewritePrompt, Text: res.UpdatedPrompt})
		}
	}
	e.notices(res)
	if e.Continue && !res.Blocked {
		e.contextOf(event.UserPromptSubmit, res)
	}
}

// stop lets a block (or additionalContext, as non-error feedback) send the
// agent on, at most MaxStopStreak times in a row; the next block is not
// honoured and a warn block says so.
func (e *effects) stop(res *hooks.Result, st State) {
	e.notices(res)
	goOn := res.Blocked || len(res.AdditionalContext) > 0
	switch {
	case !goOn || !e.Continue:
		e.change(Change{Kind: SetStopStreak, N: 0})
	case st.StopStreak() >= MaxStopStreak:
		e.change(Change{Kind: SetStopStreak, N: 0}, Change{Kind: Warn, Text: fmt.Sprintf(
			"Stop hooks blocked stopping %d times in a row; this block was not honoured and the agent stops: %s",
			MaxStopStreak, cmp.Or(res.Reason, strings.Join(res.AdditionalContext, "\n")))})
	default:
		e.change(Change{Kind: SetStopStreak, N: st.StopStreak() + 1})
		if res.Blocked {
			e.feedback(res.Reason)
		} else {
			e.Blocked, e.Reason = true, strings.Join(res.AdditionalContext, "\n")
		}
		e.context(event.Stop, res.AdditionalContext)
	}
}

// permissionRequest: the decision is in Permission ("allow", "deny", or ""
// when no hook decided and the host asks the user as usual), the effective
// tool input in ToolInput; a deny is recorded in the tool block of
// in.ToolUseID when the session has one.
func (e *effects) permissionRequest(in event.Input, res *hooks.Result) {
	perm, reason := res.Permission, res.Reason
	if !res.Continue {
		perm = hooks.PermissionDeny
		if reason == "" {
			reason = "stopped by hook: " + res.StopReason
		}
	}
	tool := ToolCall{ID: in.ToolUseID}
	switch perm {
	case hooks.PermissionAllow:
		e.Permission, e.Reason = string(perm), reason
		e.ToolInput = rawjson.OrEmptyObject(in.ToolInput)
		if res.UpdatedInput != nil {
			e.ToolInput = res.UpdatedInput
			if in.ToolUseID != "" {
				tool.Input = res.UpdatedInput
				e.change(Change{Kind: SetToolInput, Tool: tool})
			}
		}
	case hooks.PermissionDeny:
		e.Permission, e.Reason = string(perm), reason
		if in.ToolUseID != "" {
			e.change(Change{Kind: SetToolResult, Tool: tool, Text: reason, Success: false, Refusal: HookBlockedTool})
		}
	}
	if e.Continue {
		e.contextOf(event.PermissionRequest, res)
	}
}

// subagentStop returns what the hooks say for the subagent (it is not
// added to this conversation): a block at most MaxStopStreak times in a row
// per agent.
func (e *effects) subagentStop(agent string, res *hooks.Result, st State) {
	e.AdditionalContext = append(append(e.AdditionalContext, res.Context...), res.AdditionalContext...)
	switch {
	case !res.Blocked || !e.Continue:
		e.change(Change{Kind: SetSubagentStopStreak, Agent: agent, N: 0})
	case st.SubagentStopStreak(agent) >= MaxStopStreak:
		e.change(Change{Kind: SetSubagentStopStreak, Agent: agent, N: 0}, Change{Kind: Warn, Text: fmt.Sprintf(
			"SubagentStop hooks blocked subagent %q from stopping %d times in a row; this block was not honoured and it stops: %s",
			agent, MaxStopStreak, res.Reason)})
	default:
		e.change(Change{Kind: SetSubagentStopStreak, Agent: agent, N: st.SubagentStopStreak(agent) + 1})
		e.Blocked, e.Reason = true, res.Reason
	}
}
