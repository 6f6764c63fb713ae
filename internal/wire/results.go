// Package wire holds the wire results of the event methods of
// docs/protocol.md (wave/sessionStart, wave/preToolUse, wave/runHooks, …),
// built from a session.Outcome in one place, and how they are encoded. The
// LSP server answers with them and `wavehooks run` prints them: the CLI
// needs the shapes without the server (issue #25: cmd never imports lsp to
// print). The lsp package names them by aliases (lsp/wire.go), which the
// contract test checks against docs/protocol.md and the TypeScript client.
// Field names are fixed: extend, never rename. Every slice is sent as []
// rather than null.
package wire

import (
	"cmp"
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/session"
)

// Block is a message block on the wire (session.Block).
type Block = session.Block

// SessionStartResult is the new session and what its SessionStart hooks said.
type SessionStartResult struct {
	SessionID         string   `json:"sessionId"`
	TranscriptPath    string   `json:"transcriptPath"`
	AdditionalContext []string `json:"additionalContext"`
	Continue          bool     `json:"continue"`
	StopReason        string   `json:"stopReason,omitempty"`
	Blocks            []Block  `json:"blocks"`
	// Env are the environment variables the hooks wrote to CLAUDE_ENV_FILE
	// ({} when none): the agent host applies them to its later tool runs, as
	// Claude Code does to its Bash commands.
	Env map[string]string `json:"env"`
	// WatchPaths are the files a hook asked FileChanged to watch
	// (hookSpecificOutput.watchPaths); the server watches them already, so
	// this is for the host's information. Absent when no hook returned a list.
	WatchPaths []string `json:"watchPaths,omitempty"`
	// InitialUserMessage is a first user turn a hook asked for: the host
	// sends it as the session's first prompt (with wave/userPromptSubmit),
	// before any prompt of the user's. Absent when no hook gave one.
	InitialUserMessage string `json:"initialUserMessage,omitempty"`
	// SessionTitle is the title a hook gave the session (source startup,
	// resume or fork): the host names the session with it.
	SessionTitle string `json:"sessionTitle,omitempty"`
	// ReloadSkills: a hook installed skills or commands; the host re-scans
	// them before the first prompt.
	ReloadSkills bool `json:"reloadSkills,omitempty"`
	// TerminalSequences are escape sequences hooks asked the host to write
	// to its terminal (a notification, a window title, a bell): each one
	// checked against Claude Code's allowlist (OSC 0, 1, 2, 9, 99, 777 and
	// BEL). Data for the host, which may show or drop them; absent when none.
	TerminalSequences []string `json:"terminalSequences,omitempty"`
}

// FlowResult is the shape shared by the events that can block:
// UserPromptSubmit, PostToolUse and Stop.
type FlowResult struct {
	// Permission is set only for wave/runHooks of the events whose hooks
	// decide: PermissionRequest ("allow" or "deny"; absent when no hook
	// decided), PreModelSwitch ("allow", "deny", or "ask": the host asks the
	// user; absent when no hook decided) and PreSkillShellCommand ("allow",
	// or "deny": the command does not run, and the host shows
	// `[not run: blocked by hook: <reason>]` as its output).
	Permission string `json:"permission,omitempty"`
	// ToolInput is set only for wave/runHooks of PermissionRequest when a hook
	// allowed it: the tool input to run with (a hook's updatedInput applied).
	ToolInput json.RawMessage `json:"toolInput,omitempty"`
	// ToolResponse is set only for PostToolUse: the tool's output as the
	// model must see it — a hook's updatedToolOutput, or the tool's own.
	ToolResponse      json.RawMessage `json:"toolResponse,omitempty"`
	Blocked           bool            `json:"blocked"`
	Reason            string          `json:"reason,omitempty"`
	AdditionalContext []string        `json:"additionalContext"`
	Continue          bool            `json:"continue"`
	StopReason        string          `json:"stopReason,omitempty"`
	Blocks            []Block         `json:"blocks"`

	// The answers of Claude Code's later events, each set only for its
	// events (docs/parity.md, "Claude Code's later events"):
	// Retry is true when a PermissionDenied hook said the model may retry.
	Retry bool `json:"retry,omitempty"`
	// Action and Content answer an Elicitation ("" when no hook answered:
	// ask the user) or are the ElicitationResult to send: "accept" (with
	// Content, the form's values), "decline" or "cancel".
	Action  string          `json:"action,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	// DisplayContent is the text MessageDisplay shows: a hook's
	// replacement, or the delta as it was.
	DisplayContent *string `json:"displayContent,omitempty"`
	// WorktreePath is the worktree a WorktreeCreate hook created; absent
	// when no hook ran (create it as usual) or when blocked (creation failed).
	WorktreePath string `json:"worktreePath,omitempty"`
	// WatchPaths are the files a CwdChanged or FileChanged hook asked
	// FileChanged to watch; absent when no hook returned a list.
	WatchPaths []string `json:"watchPaths,omitempty"`
	// Env are the variables Setup, CwdChanged and FileChanged hooks wrote
	// to CLAUDE_ENV_FILE, for the agent's later tool runs; absent when none.
	Env map[string]string `json:"env,omitempty"`
	// SessionTitle is the title a UserPromptSubmit hook gave the session
	// (the prompt went ahead): the host names the session with it.
	SessionTitle string `json:"sessionTitle,omitempty"`
	// SuppressOriginalPrompt: a UserPromptSubmit or UserPromptExpansion hook
	// that blocked asked that the prompt's text not be shown with the block
	// message (nor put back in the input box).
	SuppressOriginalPrompt bool `json:"suppressOriginalPrompt,omitempty"`
	// UpdatedPrompt is set only for UserPromptSubmit when a hook rewrote the
	// prompt and none blocked it (hookSpecificOutput.updatedPrompt,
	// wavehooks' own extension): the host sends the model this text instead
	// of what the user typed; the transcript already holds it.
	UpdatedPrompt string `json:"updatedPrompt,omitempty"`
	// ClassifierContext is what PostToolUse hooks noted about the call's
	// result for an auto mode classifier, never for the model.
	ClassifierContext string `json:"classifierContext,omitempty"`
	// TerminalSequences are escape sequences hooks asked the host to write
	// to its terminal (a notification, a window title, a bell): each one
	// checked against Claude Code's allowlist (OSC 0, 1, 2, 9, 99, 777 and
	// BEL). Data for the host, which may show or drop them; absent when none.
	TerminalSequences []string `json:"terminalSequences,omitempty"`
}

// PreToolUseResult is the decision: "allow", "deny" (asks are resolved
// with the user before the result is sent) or "defer", and the effective
// tool input.
type PreToolUseResult struct {
	// Permission "defer": a hook deferred the call. The tool does not run;
	// the host pauses the agent at this call (its block stays pending, with
	// no result) and resumes it by sending wave/preToolUse for the same
	// toolUseId again, whose hooks decide anew. Claude Code honours defer in
	// `claude -p` only, for an SDK host to resume later.
	Permission string `json:"permission"`
	// Decision is what the hooks decided before anyone was asked: "allow",
	// "deny", "ask", "defer", or "none" when no hook decided — then the editor applies
	// its own permission rules (permission is "allow" all the same).
	Decision   string          `json:"decision"`
	Reason     string          `json:"reason,omitempty"`
	ToolInput  json.RawMessage `json:"toolInput"`
	Asked      bool            `json:"asked"`
	Continue   bool            `json:"continue"`
	StopReason string          `json:"stopReason,omitempty"`
	Blocks     []Block         `json:"blocks"`
	// PermissionDisplay is what a hook asked the permission prompt to show
	// (hookSpecificOutput.permissionDisplay, passed as the hook wrote it),
	// for a host that prompts itself; absent when none.
	PermissionDisplay json.RawMessage `json:"permissionDisplay,omitempty"`
	// TerminalSequences are escape sequences hooks asked the host to write
	// to its terminal (a notification, a window title, a bell): each one
	// checked against Claude Code's allowlist (OSC 0, 1, 2, 9, 99, 777 and
	// BEL). Data for the host, which may show or drop them; absent when none.
	TerminalSequences []string `json:"terminalSequences,omitempty"`
}

// BlocksResult carries only the blocks an event added (and the terminal
// sequences its hooks asked for).
type BlocksResult struct {
	Blocks []Block `json:"blocks"`
	// TerminalSequences are escape sequences hooks asked the host to write
	// to its terminal (a notification, a window title, a bell): each one
	// checked against Claude Code's allowlist (OSC 0, 1, 2, 9, 99, 777 and
	// BEL). Data for the host, which may show or drop them; absent when none.
	TerminalSequences []string `json:"terminalSequences,omitempty"`
}

// PreToolUse is the result of wave/preToolUse; requested is the tool input
// the caller sent, the one to run when no hook changed it.
func PreToolUse(out session.Outcome, requested json.RawMessage) *PreToolUseResult {
	input := out.ToolInput
	if len(input) == 0 {
		input = requested
	}
	perm := permissionOf(flow.Decide(event.PreToolUse, "", requested, true, &out.Answer).Verdict)
	return &PreToolUseResult{Permission: perm, Decision: cmp.Or(out.Decision, "none"), Reason: out.Reason, ToolInput: input, Asked: out.Asked,
		Continue: out.Continue, StopReason: out.StopReason, Blocks: NonNil(out.Blocks),
		PermissionDisplay: out.PermissionDisplay, TerminalSequences: out.TerminalSequences}
}

// permissionOf is wave/preToolUse's permission for a decision
// (flow.Decide): what serve and `wavehooks run` answer, from the one
// decision the ACP proxy acts on too. What no hook decided runs; a hook's
// continue:false is a deny whose continue field stops the agent; an ask
// the session put to nobody (`wavehooks run`) stays "ask".
func permissionOf(v flow.Verdict) string {
	switch v {
	case flow.VerdictAllow, flow.VerdictNone:
		return string(hooks.PermissionAllow)
	case flow.VerdictAsk:
		return string(hooks.PermissionAsk)
	case flow.VerdictDefer:
		return string(hooks.PermissionDefer)
	}
	return string(hooks.PermissionDeny)
}

// SessionStart is the result of wave/sessionStart.
func SessionStart(sessionID, transcriptPath string, out session.Outcome) *SessionStartResult {
	env := out.Env
	if env == nil {
		env = map[string]string{}
	}
	return &SessionStartResult{SessionID: sessionID, TranscriptPath: transcriptPath,
		AdditionalContext: NonNil(out.AdditionalContext), Continue: out.Continue, StopReason: out.StopReason, Blocks: NonNil(out.Blocks),
		Env: env, WatchPaths: out.WatchPaths,
		InitialUserMessage: out.InitialUserMessage, SessionTitle: out.SessionTitle, ReloadSkills: out.ReloadSkills,
		TerminalSequences: out.TerminalSequences}
}

// Blocks is the result of the events that only add blocks (wave/sessionEnd).
func Blocks(out session.Outcome) *BlocksResult {
	return &BlocksResult{Blocks: NonNil(out.Blocks), TerminalSequences: out.TerminalSequences}
}

// Flow is the result of the events that can block (UserPromptSubmit,
// PostToolUse, Stop, and wave/runHooks of the later events).
func Flow(out session.Outcome) *FlowResult {
	return &FlowResult{Permission: out.Permission, ToolInput: out.ToolInput, ToolResponse: out.ToolResponse, Blocked: out.Blocked, Reason: out.Reason,
		AdditionalContext: NonNil(out.AdditionalContext), Continue: out.Continue, StopReason: out.StopReason, Blocks: NonNil(out.Blocks),
		Retry: out.Retry, Action: out.Action, Content: out.Content, DisplayContent: out.DisplayContent,
		WorktreePath: out.WorktreePath, WatchPaths: out.WatchPaths, Env: out.Env,
		SessionTitle: out.SessionTitle, SuppressOriginalPrompt: out.SuppressOriginalPrompt, UpdatedPrompt: out.UpdatedPrompt, ClassifierContext: out.ClassifierContext,
		TerminalSequences: out.TerminalSequences}
}

// For is the result of the typed method of the event's kind: what
// wave/runHooks and `wavehooks run` answer for any event.
func For(ev event.Event, sessionID, transcriptPath string, out session.Outcome, requested json.RawMessage) any {
	switch ev {
	case event.PreToolUse:
		return PreToolUse(out, requested)
	case event.SessionStart:
		return SessionStart(sessionID, transcriptPath, out)
	case event.SessionEnd:
		return Blocks(out)
	}
	return Flow(out)
}

// NonNil is s, or an empty slice for nil: the wire has [] rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
