package flow

import (
	"fmt"

	"github.com/wavehooks/wavehooks/hooks"
)

// later applies one of Claude Code's later events (docs/parity.md,
// "Claude Code's later events"):
//
//   - Setup: additionalContext becomes hook blocks.
//   - UserPromptExpansion: a block stops the expansion, its reason an error
//     block for the user only; otherwise context (plain stdout too) becomes
//     hook blocks. The prompt already in the session stays: the agent host
//     does not send the expansion.
//   - PermissionDenied: retry tells the model, in a hook block, that it may
//     make the call again only if the user asked for what it does (Claude
//     Code's meaning since 2.1.331, retryText); Retry returns it.
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
//   - CwdChanged, FileChanged: WatchPaths is returned (Before made new_cwd
//     the session's cwd).
//   - DirectoryAdded: systemMessage is context for the model when the user
//     added the directory (source slash_command), and dropped otherwise.
//   - WorktreeCreate: the path is resolved and checked (WorktreePath); a
//     failure is returned blocked, with an error block for the user.
//   - Elicitation, ElicitationResult: the answer in Action and Content; a
//     block declines.
//   - StopFailure, InstructionsLoaded, WorktreeRemove: nothing but notices.
func (e *effects) later(in hooks.Input, res *hooks.Result, f Facts) {
	if in.Event == hooks.MessageDisplay {
		text := StringField(in.Extra, "delta")
		if res.DisplayContent != nil {
			text = *res.DisplayContent
		}
		e.DisplayContent = &text
		return
	}
	e.notices(res)
	blocked := func() { e.Blocked, e.Reason = true, res.Reason }
	switch in.Event {
	case hooks.Setup:
		if e.Continue {
			e.contextOf(in.Event, res)
		}
	case hooks.UserPromptExpansion:
		if res.Blocked {
			blocked()
			e.change(Change{Kind: Error, Text: res.Reason})
		} else if e.Continue {
			e.contextOf(in.Event, res)
		}
	case hooks.PermissionDenied:
		e.Retry = res.Retry
		if res.Retry && e.Continue {
			e.context(in.Event, []string{fmt.Sprintf(retryText, in.ToolName, in.ToolUseID)})
		}
	case hooks.PostToolBatch:
		if res.Blocked && e.Continue {
			e.feedback(res.Reason)
		}
		if e.Continue && !res.Blocked {
			e.contextOf(in.Event, res)
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
		e.WatchPaths = res.WatchPaths
	case hooks.DirectoryAdded:
		if in.Source == "slash_command" && e.Continue {
			e.contextOf(in.Event, res)
		}
	case hooks.WorktreeCreate:
		e.worktreeCreated(res, f)
	case hooks.Elicitation:
		e.Blocked, e.Reason = res.Blocked, res.Reason
		e.Action, e.Content = res.Action, res.Content
	case hooks.ElicitationResult:
		e.Blocked, e.Reason = res.Blocked, res.Reason
		e.Action, e.Content = StringField(in.Extra, "action"), in.Extra["content"]
		if res.Action != "" {
			e.Action, e.Content = res.Action, res.Content
		}
		if e.Action != "accept" {
			e.Content = nil
		}
	}
}

// worktreeCreated takes the path WorktreeCreate's hooks printed, as the
// caller resolved it (Facts); a hook that failed, or a path that is
// refused, fails the creation.
func (e *effects) worktreeCreated(res *hooks.Result, f Facts) {
	reason := res.Reason
	if !res.Blocked && res.WorktreePath != "" {
		if f.WorktreeErr == nil && f.WorktreePath != "" {
			e.WorktreePath = f.WorktreePath
			return
		}
		reason = fmt.Sprintf("the worktree path %s was not checked", res.WorktreePath)
		if f.WorktreeErr != nil {
			reason = f.WorktreeErr.Error()
		}
	}
	if !res.Blocked && reason == "" {
		return // no hook ran: the agent host creates the worktree as usual
	}
	e.Blocked, e.Reason = true, reason
	e.change(Change{Kind: Error, Text: "worktree creation failed: " + reason})
}

// retryText is what a PermissionDenied hook's retry:true tells the model,
// with the tool's name and the call's id: since Claude Code 2.1.331 a
// retry is for a call the user asked for, not any refused call ("make the
// refused call again only if you asked for that call"; the 2.1.332 binary
// tells the model "If the user asked for what this call does, make it again
// now. If they did not, leave it, and … say that you made this call without
// being asked"). Before, it said only that the call may be retried.
const retryText = "The denied %s call (%s) may be retried once, through the same permission check, and only if the user asked for what it does. " +
	"If they did, make it again now; if they did not, leave it, tell them that you made this call without being asked and that it was refused before it ran, " +
	"and go on with what they did ask for."
