package session

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// begin saves pending changes (a file to recreate, say) so that the file is
// complete before the event's hooks read it. When the save fails (disk
// full, directory gone), the change is taken back: the editor gets an error
// for it, and a prompt whose UserPromptSubmit hooks never ran must not reach
// the model with the next save that succeeds.
func (s *Session) begin(change func()) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.catchUp()
	if change == nil {
		return s.save()
	}
	s.conv.startUndo()
	change()
	err := s.save()
	if err != nil {
		s.conv.undo()
	}
	s.conv.stopUndo()
	return err
}

// fire runs an event's hooks with the session's common stdin fields. It is
// called without s.mu: hooks may take long and may run in parallel.
func (s *Session) fire(ctx context.Context, in hooks.Input) hooks.Result {
	in = s.withClientInput(ctx, in)
	in.SessionID, in.TranscriptPath, in.Cwd = s.id, s.TranscriptPath(), s.store.root
	if cwd := s.workingDir(); cwd != "" {
		in.Cwd = cwd
	}
	if s.store.firer == nil {
		return hooks.Result{Event: in.Event, Continue: true}
	}
	return s.store.firer.Fire(hooks.WithReadGate(ctx, hookReaders{s}), in)
}

// hookReaders counts the session's running hook processes for save: a hook
// starts only between two writes, never during one.
type hookReaders struct{ s *Session }

func (r hookReaders) Enter() {
	r.s.mu.Lock()
	r.s.readers.Add(1)
	r.s.mu.Unlock()
}

func (r hookReaders) Leave() { r.s.readers.Add(-1) }

// notices applies what every event shares: warnings become warn blocks,
// errors error blocks, and continue:false stops the agent with an error
// block the user sees.
func (s *Session) notices(out *Outcome, res *hooks.Result) {
	s.deliver(out, res)
	for _, w := range res.Warnings {
		out.add(s.conv.addWarn(w))
	}
	for _, e := range res.Errors {
		out.add(s.conv.addError(e))
	}
	if !res.Continue {
		out.Continue, out.StopReason = false, res.StopReason
		out.add(s.conv.addError("stopped by hook: " + res.StopReason))
	}
}

// addContext gives the model each text of Result.Context as a user message
// (addUser, session/ops.go) and each additionalContext as a hook block.
func (s *Session) addContext(out *Outcome, ev hooks.Event, res *hooks.Result) {
	for _, c := range res.Context {
		b := Block{Type: BlockText, Content: c}
		s.conv.addUser(b)
		out.add(b)
	}
	out.add(s.conv.addHookBlocks(string(ev), res.AdditionalContext)...)
	out.AdditionalContext = append(append(out.AdditionalContext, res.Context...), res.AdditionalContext...)
}

// feedback blocks the event and gives the model its reason as a user
// message (addUser with the stderr, for PostToolUse and Stop).
func (s *Session) feedback(out *Outcome, reason string) {
	out.Blocked, out.Reason = true, reason
	b := Block{Type: BlockText, Content: reason}
	s.conv.addUser(b)
	out.add(b)
}

// finish saves the event's changes; the caller holds s.mu.
func (s *Session) finish(out Outcome) (Outcome, error) {
	return out, s.save()
}

// SessionStart runs the SessionStart hooks (source: startup, resume, clear or
// compact). What they print becomes context for the model, as hook blocks in
// one user message.
func (s *Session) SessionStart(ctx context.Context, source string) (Outcome, error) {
	if err := s.begin(nil); err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.SessionStart, Source: source})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	s.notices(&out, &res)
	if out.Continue {
		contexts := append(append([]string(nil), res.Context...), res.AdditionalContext...)
		out.add(s.conv.addHookBlocks(string(hooks.SessionStart), contexts)...)
		out.AdditionalContext = append(out.AdditionalContext, contexts...)
	}
	return s.finish(out)
}

// UserPromptSubmit adds the user's prompt, saves it (the hooks read it in
// the transcript) and runs the hooks. A blocked prompt is erased and the
// reason shown to the user only; otherwise the hooks' context follows the
// prompt. A new prompt ends a run of blocked Stop events.
func (s *Session) UserPromptSubmit(ctx context.Context, prompt string) (Outcome, error) {
	var seq uint64
	err := s.begin(func() {
		seq = s.conv.addUser(Block{Type: BlockText, Content: prompt})
		s.stopBlocks = 0
	})
	if err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	if res.Blocked {
		s.conv.remove(seq)
		out.Blocked, out.Reason = true, res.Reason
		out.add(s.conv.addError(res.Reason))
	}
	s.notices(&out, &res)
	if out.Continue && !res.Blocked {
		s.addContext(&out, hooks.UserPromptSubmit, &res)
	}
	return s.finish(out)
}

// Stop runs the Stop hooks when the agent wants to end its turn. A block
// sends the reason to the model and the agent goes on, at most maxStopBlocks
// times in a row; the next block is not honoured and a warn block says so.
func (s *Session) Stop(ctx context.Context) (Outcome, error) {
	var active bool
	var last string
	if err := s.begin(func() { active, last = s.stopBlocks > 0, s.conv.lastAssistantText() }); err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.Stop, StopHookActive: active, LastAssistantMessage: last})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	s.notices(&out, &res)
	// additionalContext keeps the agent going too, as non-error feedback,
	// under the same cap as a block (Claude Code's Stop decision control).
	goOn := res.Blocked || len(res.AdditionalContext) > 0
	switch {
	case !goOn || !out.Continue:
		s.stopBlocks = 0
	case s.stopBlocks >= maxStopBlocks:
		s.stopBlocks = 0
		out.add(s.conv.addWarn(fmt.Sprintf(
			"Stop hooks blocked stopping %d times in a row; this block was not honoured and the agent stops: %s",
			maxStopBlocks, cmp.Or(res.Reason, strings.Join(res.AdditionalContext, "\n")))))
	default:
		s.stopBlocks++
		if res.Blocked {
			s.feedback(&out, res.Reason)
		} else {
			out.Blocked, out.Reason = true, strings.Join(res.AdditionalContext, "\n")
		}
		out.add(s.conv.addHookBlocks(string(hooks.Stop), res.AdditionalContext)...)
		out.AdditionalContext = append(out.AdditionalContext, res.AdditionalContext...)
	}
	return s.finish(out)
}

// SessionEnd runs the SessionEnd hooks; they cannot change the conversation,
// only report errors and warnings to the user.
func (s *Session) SessionEnd(ctx context.Context, reason string) (Outcome, error) {
	if err := s.begin(nil); err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, hooks.Input{Event: hooks.SessionEnd, Reason: reason})
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	s.deliver(&out, &res)
	for _, w := range res.Warnings {
		out.add(s.conv.addWarn(w))
	}
	for _, e := range res.Errors {
		out.add(s.conv.addError(e))
	}
	return s.finish(out)
}

// RunHooks fires any event for wave/runHooks. The typed events go through
// their own methods (fields of in that they do not use are ignored). The
// others get the effects every event shares (warn and error blocks,
// continue:false), and each its own, as Claude Code documents them:
//
//   - PostToolUseFailure: a block's reason is feedback for the model (a user
//     message); additionalContext becomes hook blocks.
//   - PermissionRequest: the decision is in Permission ("allow", "deny", or
//     "" when no hook decided and the editor asks the user as usual), the
//     effective tool input in ToolInput; a deny is recorded in the tool
//     block of in.ToolUseID when the session has one.
//   - PreCompact: a block stops the compaction; its reason is for the user.
//   - SubagentStart, SubagentStop: what the hooks say is for the subagent,
//     not for this conversation: it is returned (AdditionalContext, Blocked
//     and Reason), not added. stop_hook_active is set when the same agent's
//     previous stop was blocked, and at most maxStopBlocks stops in a row are.
//   - Notification, PostCompact: additionalContext becomes hook blocks.
func (s *Session) RunHooks(ctx context.Context, in hooks.Input, ask AskFunc) (Outcome, error) {
	ctx = WithClientInput(ctx, in) // what the typed methods below do not take reaches the hooks all the same
	switch in.Event {
	case hooks.SessionStart:
		return s.SessionStart(ctx, in.Source)
	case hooks.UserPromptSubmit:
		return s.UserPromptSubmit(ctx, in.Prompt)
	case hooks.PreToolUse, hooks.PostToolUse:
		input, err := CheckToolCall(StdinToolCall, in.ToolUseID, in.ToolName, in.ToolInput)
		if err != nil {
			return Outcome{}, err
		}
		if in.Event == hooks.PreToolUse {
			return s.PreToolUse(ctx, in.ToolUseID, in.ToolName, input, ask)
		}
		return s.PostToolUse(ctx, in.ToolUseID, in.ToolName, input, in.ToolResponse)
	case hooks.Stop:
		return s.Stop(ctx)
	case hooks.SessionEnd:
		return s.SessionEnd(ctx, in.Reason)
	}
	if _, ok := hooks.Spec(in.Event); !ok {
		return Outcome{}, fmt.Errorf("unknown hook event %q", in.Event)
	}
	if laterEvents[in.Event] {
		return s.runLater(ctx, in)
	}
	agent := ""
	if raw, ok := in.Extra["agent_id"]; ok {
		_ = json.Unmarshal(raw, &agent)
	}
	if err := s.begin(func() {
		if in.Event == hooks.SubagentStop && s.subagentStopBlocks[agent] > 0 {
			in.StopHookActive = true
		}
	}); err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, in)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	s.notices(&out, &res)
	switch in.Event {
	case hooks.PermissionRequest:
		s.permissionRequest(&out, in, &res)
	case hooks.SubagentStart:
		out.AdditionalContext = append(append(out.AdditionalContext, res.Context...), res.AdditionalContext...)
	case hooks.SubagentStop:
		s.subagentStop(&out, agent, &res)
	case hooks.PreCompact:
		if res.Blocked && out.Continue {
			out.Blocked, out.Reason = true, res.Reason
			out.add(s.conv.addError("compaction blocked by a PreCompact hook: " + res.Reason))
		}
		if out.Continue {
			s.addContext(&out, in.Event, &res)
		}
	default: // PostToolUseFailure, Notification, PostCompact
		if !out.Continue {
			break
		}
		if res.Blocked {
			s.feedback(&out, res.Reason)
		}
		s.addContext(&out, in.Event, &res)
	}
	return s.finish(out)
}

// permissionRequest applies a PermissionRequest decision; the caller holds s.mu.
func (s *Session) permissionRequest(out *Outcome, in hooks.Input, res *hooks.Result) {
	perm, reason := res.Permission, res.Reason
	if !res.Continue {
		perm = hooks.PermissionDeny
		if reason == "" {
			reason = "stopped by hook: " + res.StopReason
		}
	}
	switch perm {
	case hooks.PermissionAllow:
		out.Permission, out.Reason = string(perm), reason
		out.ToolInput = rawjson.OrEmptyObject(in.ToolInput)
		if res.UpdatedInput != nil {
			out.ToolInput = res.UpdatedInput
			if in.ToolUseID != "" {
				if b, ok := s.conv.updateTool(in.ToolUseID, func(b *Block) { b.Input = res.UpdatedInput }); ok {
					out.add(b)
				}
			}
		}
	case hooks.PermissionDeny:
		out.Permission, out.Reason = string(perm), reason
		if in.ToolUseID != "" {
			if b, ok := s.conv.updateTool(in.ToolUseID, func(b *Block) {
				b.Result, b.Success, b.Error = reason, boolPtr(false), hookBlockedTool
			}); ok {
				out.add(b)
			}
		}
	}
	if out.Continue {
		s.addContext(out, hooks.PermissionRequest, res)
	}
}

// subagentStop returns a block to the caller, for the subagent, at most
// maxStopBlocks times in a row per agent; the caller holds s.mu.
func (s *Session) subagentStop(out *Outcome, agent string, res *hooks.Result) {
	if s.subagentStopBlocks == nil {
		s.subagentStopBlocks = map[string]int{}
	}
	out.AdditionalContext = append(append(out.AdditionalContext, res.Context...), res.AdditionalContext...)
	switch {
	case !res.Blocked || !out.Continue:
		delete(s.subagentStopBlocks, agent)
	case s.subagentStopBlocks[agent] >= maxStopBlocks:
		delete(s.subagentStopBlocks, agent)
		out.add(s.conv.addWarn(fmt.Sprintf(
			"SubagentStop hooks blocked subagent %q from stopping %d times in a row; this block was not honoured and it stops: %s",
			agent, maxStopBlocks, res.Reason)))
	default:
		s.subagentStopBlocks[agent]++
		out.Blocked, out.Reason = true, res.Reason
	}
}
