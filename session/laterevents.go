package session

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// laterEvents are the events Claude Code added after the first thirteen;
// runLater applies each as Claude Code documents it (docs/parity.md,
// "Claude Code's later events").
var laterEvents = map[hooks.Event]bool{
	hooks.Setup: true, hooks.UserPromptExpansion: true, hooks.PermissionDenied: true, hooks.PostToolBatch: true,
	hooks.MessageDisplay: true, hooks.TaskCreated: true, hooks.TaskCompleted: true, hooks.StopFailure: true,
	hooks.TeammateIdle: true, hooks.InstructionsLoaded: true, hooks.ConfigChange: true, hooks.CwdChanged: true,
	hooks.DirectoryAdded: true, hooks.FileChanged: true, hooks.WorktreeCreate: true, hooks.WorktreeRemove: true,
	hooks.Elicitation: true, hooks.ElicitationResult: true,
}

// workingDir is the agent's working directory as CwdChanged last reported
// it, or "" (the project root).
func (s *Session) workingDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// runLater fires one of Claude Code's later events and applies it:
//
//   - Setup: additionalContext becomes hook blocks.
//   - UserPromptExpansion: a block stops the expansion, its reason an error
//     block for the user only; otherwise context (plain stdout too) becomes
//     hook blocks. The prompt already in the session stays: the agent host
//     does not send the expansion.
//   - PermissionDenied: retry tells the model, in a hook block, that it may
//     retry the call; Retry returns it.
//   - PostToolBatch: a block stops the loop and its reason stays in the
//     conversation for the model (a user message); additionalContext
//     becomes hook blocks.
//   - MessageDisplay: display only, the conversation is not touched;
//     DisplayContent is the text to show.
//   - TaskCreated, TaskCompleted, TeammateIdle: a block is returned (Blocked,
//     Reason) for the agent host to give the model as the tool's error or
//     the teammate's feedback; it is not added here.
//   - ConfigChange: a block is returned, never shown; a policy_settings
//     change cannot be blocked.
//   - CwdChanged: new_cwd becomes the session's cwd for later events (the
//     hooks see it already); WatchPaths is returned, as for FileChanged.
//   - DirectoryAdded: systemMessage is context for the model when the user
//     added the directory (source slash_command), and dropped otherwise.
//   - WorktreeCreate: the path is resolved and checked (WorktreePath); a
//     failure is returned blocked, with an error block for the user.
//   - Elicitation, ElicitationResult: the answer in Action and Content; a
//     block declines.
//   - StopFailure, InstructionsLoaded, WorktreeRemove: nothing but notices.
func (s *Session) runLater(ctx context.Context, in hooks.Input) (Outcome, error) {
	if in.Event == hooks.CwdChanged {
		if err := s.cwdInput(&in); err != nil {
			return Outcome{}, err
		}
	}
	err := s.begin(func() {
		if in.Event == hooks.CwdChanged {
			if dir := stringField(in.Extra, "new_cwd"); dir != "" {
				s.cwd = filepath.Clean(dir)
			}
		}
	})
	if err != nil {
		return Outcome{}, err
	}
	res := s.fire(ctx, in)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newOutcome(res)
	if in.Event == hooks.MessageDisplay {
		text := stringField(in.Extra, "delta")
		if res.DisplayContent != nil {
			text = *res.DisplayContent
		}
		out.DisplayContent = &text
		return out, nil
	}
	s.notices(&out, &res)
	blocked := func() {
		out.Blocked, out.Reason = true, res.Reason
	}
	switch in.Event {
	case hooks.Setup:
		if out.Continue {
			s.addContext(&out, in.Event, &res)
		}
	case hooks.UserPromptExpansion:
		if res.Blocked {
			blocked()
			out.add(s.conv.addError(res.Reason))
		} else if out.Continue {
			s.addContext(&out, in.Event, &res)
		}
	case hooks.PermissionDenied:
		out.Retry = res.Retry
		if res.Retry && out.Continue {
			msg := fmt.Sprintf("The denied %s call (%s) may be retried.", in.ToolName, in.ToolUseID)
			out.add(s.conv.addHookBlocks(string(in.Event), []string{msg})...)
			out.AdditionalContext = append(out.AdditionalContext, msg)
		}
	case hooks.PostToolBatch:
		if res.Blocked && out.Continue {
			s.feedback(&out, res.Reason)
		}
		if out.Continue && !res.Blocked {
			s.addContext(&out, in.Event, &res)
		}
	case hooks.TaskCreated, hooks.TaskCompleted, hooks.TeammateIdle:
		if res.Blocked {
			blocked()
		}
	case hooks.ConfigChange:
		if res.Blocked && in.Source != "policy_settings" {
			blocked()
		}
	case hooks.CwdChanged, hooks.FileChanged:
		out.WatchPaths = res.WatchPaths
	case hooks.DirectoryAdded:
		if in.Source == "slash_command" && out.Continue {
			s.addContext(&out, in.Event, &res)
		}
	case hooks.WorktreeCreate:
		s.worktreeCreated(&out, &res)
	case hooks.Elicitation:
		out.Blocked, out.Reason = res.Blocked, res.Reason
		out.Action, out.Content = res.Action, res.Content
	case hooks.ElicitationResult:
		out.Blocked, out.Reason = res.Blocked, res.Reason
		out.Action, out.Content = stringField(in.Extra, "action"), in.Extra["content"]
		if res.Action != "" {
			out.Action, out.Content = res.Action, res.Content
		}
		if out.Action != "accept" {
			out.Content = nil
		}
	}
	return s.finish(out)
}

// cwdInput checks CwdChanged's new_cwd (an absolute path, if given) and
// fills in old_cwd, when the caller left it out, with the session's cwd.
func (s *Session) cwdInput(in *hooks.Input) error {
	if dir := stringField(in.Extra, "new_cwd"); dir != "" && !filepath.IsAbs(dir) {
		return invalid("input.new_cwd", "must be an absolute path, not %q", dir)
	}
	if stringField(in.Extra, "old_cwd") != "" {
		return nil
	}
	old := s.workingDir()
	if old == "" {
		old = s.store.root
	}
	extra := make(map[string]json.RawMessage, len(in.Extra)+1)
	for k, v := range in.Extra {
		extra[k] = v
	}
	extra["old_cwd"], _ = json.Marshal(old)
	in.Extra = extra
	return nil
}

// worktreeCreated resolves the path WorktreeCreate's hooks printed; a hook
// that failed, or a path that is refused, fails the creation. The caller
// holds s.mu.
func (s *Session) worktreeCreated(out *Outcome, res *hooks.Result) {
	reason := res.Reason
	if !res.Blocked && res.WorktreePath != "" {
		p, err := hooks.ResolveWorktreePath(s.store.root, res.WorktreePath)
		if err == nil {
			out.WorktreePath = p
			return
		}
		reason = err.Error()
	}
	if !res.Blocked && reason == "" {
		return // no hook ran: the agent host creates the worktree as usual
	}
	out.Blocked, out.Reason = true, reason
	out.add(s.conv.addError("worktree creation failed: " + reason))
}

// PostToolBatch fires PostToolBatch once for a batch of parallel tool calls
// the session has recorded (by preToolUse and postToolUse), named by their
// tool use ids: each call's tool_name, tool_input, tool_use_id and, as
// tool_response, the result the model sees.
func (s *Session) PostToolBatch(ctx context.Context, toolUseIDs []string) (Outcome, error) {
	if len(toolUseIDs) == 0 {
		return Outcome{}, invalid("toolUseIds", "a batch needs at least one tool use id")
	}
	type call struct {
		ToolName     string          `json:"tool_name"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolUseID    string          `json:"tool_use_id"`
		ToolResponse string          `json:"tool_response"`
	}
	calls := make([]call, 0, len(toolUseIDs))
	s.mu.Lock()
	for _, id := range toolUseIDs {
		mi, bi, ok := s.conv.findTool(id)
		if !ok {
			s.mu.Unlock()
			return Outcome{}, invalid("toolUseIds", "the session has no tool call %q", id)
		}
		b := s.conv.msgs[mi].Blocks[bi]
		resp := b.Result
		if resp == "" {
			resp = b.Error
		}
		calls = append(calls, call{ToolName: b.Name, ToolInput: rawjson.OrEmptyObject(b.Input), ToolUseID: b.ID, ToolResponse: resp})
	}
	s.mu.Unlock()
	raw, err := json.Marshal(calls)
	if err != nil {
		return Outcome{}, err
	}
	return s.RunHooks(ctx, hooks.Input{Event: hooks.PostToolBatch, Extra: map[string]json.RawMessage{"tool_calls": raw}}, nil)
}

// stringField is a string field of an event's stdin, "" when absent.
func stringField(extra map[string]json.RawMessage, key string) string {
	var v string
	if raw, ok := extra[key]; ok {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

// ToolCall returns the tool block of a call the session recorded.
func (s *Session) ToolCall(id string) (Block, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mi, bi, ok := s.conv.findTool(id)
	if !ok {
		return Block{}, false
	}
	return s.conv.msgs[mi].Blocks[bi], true
}
