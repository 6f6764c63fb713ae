package lsp

import (
	"cmp"
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// The wire results of the event methods, built from a session.Outcome in one
// place for the typed methods, wave/runHooks and `wavehooks run`.

func preToolUseResult(out session.Outcome, requested json.RawMessage) *PreToolUseResult {
	input := out.ToolInput
	if len(input) == 0 {
		input = requested
	}
	perm := out.Permission
	if out.Decision == string(hooks.PermissionDefer) {
		perm = out.Decision // flow says "deny" to callers that know no defer
	}
	return &PreToolUseResult{Permission: perm, Decision: cmp.Or(out.Decision, "none"), Reason: out.Reason, ToolInput: input, Asked: out.Asked,
		Continue: out.Continue, StopReason: out.StopReason, Blocks: nonNil(out.Blocks),
		PermissionDisplay: out.PermissionDisplay, TerminalSequences: out.TerminalSequences}
}

func sessionStartResult(sessionID, transcriptPath string, out session.Outcome) *SessionStartResult {
	env := out.Env
	if env == nil {
		env = map[string]string{}
	}
	return &SessionStartResult{SessionID: sessionID, TranscriptPath: transcriptPath,
		AdditionalContext: nonNil(out.AdditionalContext), Continue: out.Continue, StopReason: out.StopReason, Blocks: nonNil(out.Blocks),
		Env: env, WatchPaths: out.WatchPaths,
		InitialUserMessage: out.InitialUserMessage, SessionTitle: out.SessionTitle, ReloadSkills: out.ReloadSkills,
		TerminalSequences: out.TerminalSequences}
}

func blocksResult(out session.Outcome) *BlocksResult {
	return &BlocksResult{Blocks: nonNil(out.Blocks), TerminalSequences: out.TerminalSequences}
}

func flowResult(out session.Outcome) *FlowResult {
	return &FlowResult{Permission: out.Permission, ToolInput: out.ToolInput, ToolResponse: out.ToolResponse, Blocked: out.Blocked, Reason: out.Reason,
		AdditionalContext: nonNil(out.AdditionalContext), Continue: out.Continue, StopReason: out.StopReason, Blocks: nonNil(out.Blocks),
		Retry: out.Retry, Action: out.Action, Content: out.Content, DisplayContent: out.DisplayContent,
		WorktreePath: out.WorktreePath, WatchPaths: out.WatchPaths, Env: out.Env,
		SessionTitle: out.SessionTitle, SuppressOriginalPrompt: out.SuppressOriginalPrompt, UpdatedPrompt: out.UpdatedPrompt, ClassifierContext: out.ClassifierContext,
		TerminalSequences: out.TerminalSequences}
}

// resultFor is the result of the typed method of the event's kind: what
// wave/runHooks and `wavehooks run` answer for any event.
func resultFor(ev hooks.Event, sessionID, transcriptPath string, out session.Outcome, requested json.RawMessage) any {
	switch ev {
	case hooks.PreToolUse:
		return preToolUseResult(out, requested)
	case hooks.SessionStart:
		return sessionStartResult(sessionID, transcriptPath, out)
	case hooks.SessionEnd:
		return blocksResult(out)
	}
	return flowResult(out)
}
