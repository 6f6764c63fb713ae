package flow

import (
	"cmp"
	"fmt"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
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
//   - PreModelSwitch: the decision in Permission ("allow", "deny", "ask"
//     for the host to put to the user, or "" when no hook decided) and
//     Reason; a deny (continue:false too) is Blocked.
//   - PostModelSwitch: context becomes hook blocks.
//   - PreSkillShellCommand: see skillShellCommand.
//   - StopFailure, InstructionsLoaded, WorktreeRemove: nothing but notices.
func (e *effects) later(in event.Input, res *hooks.Result, f Facts) {
	if in.Event == event.MessageDisplay {
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
	case event.Setup:
		if e.Continue {
			e.contextOf(in.Event, res)
		}
	case event.UserPromptExpansion:
		if res.Blocked {
			blocked()
			e.SuppressOriginalPrompt = res.SuppressOriginalPrompt
			e.change(Change{Kind: Error, Text: res.Reason})
		} else if e.Continue {
			e.contextOf(in.Event, res)
		}
	case event.PermissionDenied:
		e.Retry = res.Retry
		if res.Retry && e.Continue {
			e.context(in.Event, []string{fmt.Sprintf(retryText, in.ToolName, in.ToolUseID)})
		}
	case event.PostToolBatch:
		if res.Blocked && e.Continue {
			e.feedback(res.Reason)
		}
		if e.Continue && !res.Blocked {
			e.contextOf(in.Event, res)
		}
	case event.TaskCreated, event.TaskCompleted, event.TeammateIdle:
		if res.Blocked {
			blocked()
		}
	case event.ConfigChange:
		if res.Blocked && in.Source != "policy_settings" {
			blocked()
		}
	case event.CwdChanged, event.FileChanged:
		e.WatchPaths = res.WatchPaths
	case event.DirectoryAdded:
		if in.Source == "slash_command" && e.Continue {
			e.contextOf(in.Event, res)
		}
	case event.WorktreeCreate:
		e.worktreeCreated(res, f)
	case event.PreModelSwitch:
		e.Permission, e.Reason = string(res.Permission), res.Reason
		if !e.Continue {
			e.Permission, e.Reason = string(hooks.PermissionDeny), cmp.Or(res.Reason, "stopped by hook: "+res.StopReason)
		}
		e.Blocked = e.Permission == string(hooks.PermissionDeny)
	case event.PostModelSwitch:
		if e.Continue {
			e.contextOf(in.Event, res)
		}
	case event.PreSkillShellCommand:
		e.skillShellCommand(res)
	case event.Elicitation:
		e.Blocked, e.Reason = res.Blocked, res.Reason
		e.Action, e.Content = res.Action, res.Content
	case event.ElicitationResult:
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

// Why a PreSkillShellCommand hook's answer kept the command from running,
// beyond a deny's own reason: Claude Code's words where it has them.
const (
	SkillAskRefused     = "the hook asked for approval, which a skill can't wait for"
	SkillDeferRefused   = "the hook deferred the command, which a skill can't wait for"
	SkillRewriteRefused = "the hook rewrote the command, which is never applied"
)

// skillShellCommand decides whether a skill's shell command runs, as
// Claude Code 2.1.332 does: only a refusal counts. deny (decision "block"
// and exit 2 included), ask and defer keep it from running, and so does any
// updatedInput, which is never applied, and continue:false; allow adds
// nothing. Permission is "deny" (Blocked, with the reason the host shows as
// `[not run: blocked by hook: <reason>]`) or "allow".
func (e *effects) skillShellCommand(res *hooks.Result) {
	reason := ""
	switch {
	case !res.Continue:
		reason = cmp.Or(res.Reason, "stopped by hook: "+res.StopReason)
	case res.Permission == hooks.PermissionDeny:
		reason = res.Reason
	case res.Permission == hooks.PermissionDefer:
		reason = SkillDeferRefused
	case res.Permission == hooks.PermissionAsk:
		reason = SkillAskRefused
		if res.Reason != "" {
			reason += ": " + res.Reason
		}
	case res.UpdatedInput != nil:
		reason = SkillRewriteRefused
	}
	if reason == "" && res.Permission != hooks.PermissionDeny && res.Continue {
		e.Permission = string(hooks.PermissionAllow)
		return
	}
	e.Permission, e.Blocked, e.Reason = string(hooks.PermissionDeny), true, cmp.Or(reason, "Blocked by hook")
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
