package lsp

import (
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// The wave/* wire contract of DESIGN.md section 7. Field names are fixed:
// extend, never rename. Every slice is sent as [] rather than null.

// Block is a message block on the wire; it has the same shape as in the
// session file, so the editor and a hook reading transcript_path see one model.
type Block = session.Block

// Message is a conversation message on the wire.
type Message = session.Message

// Method names of the wave/* requests and notifications.
const (
	methodSessionStart        = "wave/sessionStart"
	methodUserPromptSubmit    = "wave/userPromptSubmit"
	methodPreToolUse          = "wave/preToolUse"
	methodPostToolUse         = "wave/postToolUse"
	methodStop                = "wave/stop"
	methodSessionEnd          = "wave/sessionEnd"
	methodAddAssistantMessage = "wave/addAssistantMessage"
	methodGetSession          = "wave/getSession"
	methodAPIMessages         = "wave/apiMessages"
	methodListPermissions     = "wave/listPermissions"
	methodResolvePermission   = "wave/resolvePermission"
	methodRunHooks            = "wave/runHooks"
	methodHookRuns            = "wave/hookRuns"
	methodPostToolBatch       = "wave/postToolBatch"

	methodCodeLensRefresh = "workspace/codeLens/refresh" // LSP 3.16; protocol v0.12.0 has no name for it

	notifyHookRun        = "wave/hookRun"
	notifySessionChanged = "wave/sessionChanged"
	notifyHooksChanged   = "wave/hooksChanged"
)

// SessionStartParams starts a new session, or resumes one by id.
type SessionStartParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Source    string `json:"source,omitempty"`
}

// SessionStartResult is the new session and what its SessionStart hooks said.
type SessionStartResult struct {
	SessionID         string   `json:"sessionId"`
	TranscriptPath    string   `json:"transcriptPath"`
	AdditionalContext []string `json:"additionalContext"`
	Continue          bool     `json:"continue"`
	StopReason        string   `json:"stopReason,omitempty"`
	Blocks            []Block  `json:"blocks"`
}

// UserPromptSubmitParams submits the user's prompt.
type UserPromptSubmitParams struct {
	SessionID string `json:"sessionId"`
	Prompt    string `json:"prompt"`
}

// FlowResult is the shape shared by the events that can block:
// UserPromptSubmit, PostToolUse and Stop.
type FlowResult struct {
	// Permission is set only for wave/runHooks of PermissionRequest: "allow" or "deny".
	Permission string `json:"permission,omitempty"`
	// ToolInput is set only for wave/runHooks of PermissionRequest when a hook
	// allowed it: the tool input to run with (a hook's updatedInput applied).
	ToolInput         json.RawMessage `json:"toolInput,omitempty"`
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
}

// PostToolBatchParams names a batch of parallel tool calls the session
// recorded (by wave/preToolUse and wave/postToolUse), once all resolved:
// PostToolBatch fires once for them.
type PostToolBatchParams struct {
	SessionID  string   `json:"sessionId"`
	ToolUseIDs []string `json:"toolUseIds"`
}

// PreToolUseParams asks whether a tool call may run.
type PreToolUseParams struct {
	SessionID string          `json:"sessionId"`
	ToolUseID string          `json:"toolUseId"`
	ToolName  string          `json:"toolName"`
	ToolInput json.RawMessage `json:"toolInput"`
}

// PreToolUseResult is the decision: "allow" or "deny" (asks are resolved
// with the user before the result is sent), and the effective tool input.
type PreToolUseResult struct {
	Permission string          `json:"permission"`
	Reason     string          `json:"reason,omitempty"`
	ToolInput  json.RawMessage `json:"toolInput"`
	Asked      bool            `json:"asked"`
	Continue   bool            `json:"continue"`
	StopReason string          `json:"stopReason,omitempty"`
	Blocks     []Block         `json:"blocks"`
}

// PostToolUseParams reports a tool's response.
type PostToolUseParams struct {
	SessionID    string          `json:"sessionId"`
	ToolUseID    string          `json:"toolUseId"`
	ToolName     string          `json:"toolName"`
	ToolInput    json.RawMessage `json:"toolInput"`
	ToolResponse json.RawMessage `json:"toolResponse"`
}

// SessionParams names a session.
type SessionParams struct {
	SessionID string `json:"sessionId"`
}

// SessionEndParams ends a session.
type SessionEndParams struct {
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason,omitempty"`
}

// BlocksResult carries only the blocks an event added.
type BlocksResult struct {
	Blocks []Block `json:"blocks"`
}

// AddAssistantMessageParams adds what the model said (text and tool calls).
type AddAssistantMessageParams struct {
	SessionID string  `json:"sessionId"`
	Blocks    []Block `json:"blocks"`
}

// GetSessionResult is a session's conversation.
type GetSessionResult struct {
	SessionID      string    `json:"sessionId"`
	TranscriptPath string    `json:"transcriptPath"`
	Messages       []Message `json:"messages"`
}

// APIMessagesResult is the conversation as the model should see it.
type APIMessagesResult struct {
	Messages []session.APIMessage `json:"messages"`
}

// PendingPermission is an "ask" waiting for the user.
type PendingPermission struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	ToolName  string          `json:"toolName"`
	ToolInput json.RawMessage `json:"toolInput"`
	Reason    string          `json:"reason"`
}

// ListPermissionsResult lists the pending asks.
type ListPermissionsResult struct {
	Pending []PendingPermission `json:"pending"`
}

// ResolvePermissionParams answers an ask.
type ResolvePermissionParams struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
}

// ResolvePermissionResult says whether the answer decided the ask (false if
// it was unknown or already decided).
type ResolvePermissionResult struct {
	Resolved bool `json:"resolved"`
}

// RunHooksParams fires any event with event-specific stdin fields.
type RunHooksParams struct {
	SessionID string                     `json:"sessionId"`
	Event     string                     `json:"event"`
	Input     map[string]json.RawMessage `json:"input"`
}

// HookRunsParams filters the run history.
type HookRunsParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Event     string `json:"event,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

// HookRunsResult is the run history, newest first.
type HookRunsResult struct {
	Runs []hooks.EventRun `json:"runs"`
}

// SessionChangedParams announces a session's new state.
type SessionChangedParams struct {
	SessionID string    `json:"sessionId"`
	Messages  []Message `json:"messages"`
}

// HooksChangedParams announces the configuration in force: once the
// editor is initialized, after every reload and when trust changes.
type HooksChangedParams struct {
	Files       []string `json:"files"`
	Hooks       int      `json:"hooks"`
	Diagnostics int      `json:"diagnostics"`
	Trusted     bool     `json:"trusted"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
