package lsp

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// The wave/* wire contract of docs/protocol.md. Field names are fixed:
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

// SessionStartParams starts a new session, or resumes one by id. The
// optional fields are what the agent host knows of the session, passed to
// the hooks' stdin under Claude Code 2.1.332's names (model, agent_type,
// session_title, seconds_since_last_response, context_tokens,
// prompt_cache_likely_expired, estimated_cache_write_usd) when given.
type SessionStartParams struct {
	SessionID string `json:"sessionId,omitempty"`
	Source    string `json:"source,omitempty"`
	// Model is the active model identifier.
	Model string `json:"model,omitempty"`
	// AgentType names the agent the session runs as (claude --agent <name>).
	AgentType string `json:"agentType,omitempty"`
	// SessionTitle is the session's title, if one is already set.
	SessionTitle string `json:"sessionTitle,omitempty"`
	// SecondsSinceLastResponse is how long ago the model last answered
	// (a resumed session).
	SecondsSinceLastResponse *float64 `json:"secondsSinceLastResponse,omitempty"`
	// ContextTokens is how many tokens the conversation's context holds.
	ContextTokens *int64 `json:"contextTokens,omitempty"`
	// PromptCacheLikelyExpired: the model's prompt cache has probably expired.
	PromptCacheLikelyExpired *bool `json:"promptCacheLikelyExpired,omitempty"`
	// EstimatedCacheWriteUSD is what writing the prompt cache again would cost.
	EstimatedCacheWriteUSD *float64 `json:"estimatedCacheWriteUsd,omitempty"`
}

// input is what the client said about the session, as stdin fields.
func (p *SessionStartParams) input() event.Input {
	return event.Input{Extra: stdinFields(map[string]any{"model": p.Model, "agent_type": p.AgentType, "session_title": p.SessionTitle,
		"seconds_since_last_response": p.SecondsSinceLastResponse, "context_tokens": p.ContextTokens,
		"prompt_cache_likely_expired": p.PromptCacheLikelyExpired, "estimated_cache_write_usd": p.EstimatedCacheWriteUSD})}
}

// stdinFields encodes the values the client gave (a non-empty string, a
// non-nil pointer) as stdin fields; nil when it gave none.
func stdinFields(fields map[string]any) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range fields {
		switch x := v.(type) {
		case string:
			if x == "" {
				continue
			}
		case *float64:
			if x == nil {
				continue
			}
		case *int64:
			if x == nil {
				continue
			}
		case *bool:
			if x == nil {
				continue
			}
		}
		raw, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = raw
	}
	return out
}

// SessionStartResult is the new session and what its SessionStart hooks said (internal/wire, which `wavehooks run` prints too).
type SessionStartResult = wire.SessionStartResult

// AgentState is what the client may say about the agent with an event, for
// the hooks' stdin (prompt_id, permission_mode, effort): all optional. The
// session remembers each until the client says otherwise (a new prompt
// without a promptId forgets the last one).
type AgentState struct {
	// PromptID identifies the user prompt being processed.
	PromptID string `json:"promptId,omitempty"`
	// PermissionMode is Claude Code's permission mode: "default", "plan",
	// "acceptEdits", "auto", "dontAsk" or "bypassPermissions".
	PermissionMode string `json:"permissionMode,omitempty"`
	// Effort is the turn's effort level ("low" … "max"), sent to hooks as
	// effort.level and $CLAUDE_EFFORT.
	Effort string `json:"effort,omitempty"`
}

func (a AgentState) input() event.Input {
	return event.Input{PromptID: a.PromptID, PermissionMode: a.PermissionMode, Effort: a.Effort}
}

// UserPromptSubmitParams submits the user's prompt. Source and
// SessionTitle, when the host knows them, reach the hooks' stdin as
// Claude Code 2.1.332 sends them (source, session_title).
type UserPromptSubmitParams struct {
	SessionID string `json:"sessionId"`
	Prompt    string `json:"prompt"`
	// Source says where the prompt came from, in the host's words.
	Source string `json:"source,omitempty"`
	// SessionTitle is the session's title, if one is set.
	SessionTitle string `json:"sessionTitle,omitempty"`
	AgentState
}

// input is what the client said with the prompt, as the hooks' stdin has it.
func (p *UserPromptSubmitParams) input() event.Input {
	in := p.AgentState.input()
	in.Extra = stdinFields(map[string]any{"source": p.Source, "session_title": p.SessionTitle})
	return in
}

// FlowResult is the shape shared by the events that can block (internal/wire, which `wavehooks run` prints too).
type FlowResult = wire.FlowResult

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
	AgentState
}

// PreToolUseResult is the decision and the effective tool input (internal/wire, which `wavehooks run` prints too).
type PreToolUseResult = wire.PreToolUseResult

// PostToolUseParams reports a tool's response.
type PostToolUseParams struct {
	SessionID    string          `json:"sessionId"`
	ToolUseID    string          `json:"toolUseId"`
	ToolName     string          `json:"toolName"`
	ToolInput    json.RawMessage `json:"toolInput"`
	ToolResponse json.RawMessage `json:"toolResponse"`
	// DurationMs is how long the tool ran, in milliseconds (duration_ms).
	DurationMs *int64 `json:"durationMs,omitempty"`
	AgentState
}

// SessionParams names a session.
type SessionParams struct {
	SessionID string `json:"sessionId"`
}

// StopParams says the agent wants to end its turn.
type StopParams struct {
	SessionID string `json:"sessionId"`
	AgentState
}

// SessionEndParams ends a session.
type SessionEndParams struct {
	SessionID string `json:"sessionId"`
	Reason    string `json:"reason,omitempty"`
	AgentState
}

// BlocksResult is only the blocks an event added (internal/wire, which `wavehooks run` prints too).
type BlocksResult = wire.BlocksResult

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
	// Version is the version of these messages, as wave/sessionChanged counts them.
	Version uint64 `json:"version"`
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

// AskPromptParams is the window/showMessageRequest that asks the user about
// a pending permission: LSP's ShowMessageRequestParams whose two actions
// ("Allow", "Deny") carry the permission's id, so that a client matches the
// prompt to its PendingPermission by id, never by the message text
// (docs/protocol.md, "Ask prompts on the wire").
type AskPromptParams struct {
	Type    protocol.MessageType `json:"type"`
	Message string               `json:"message"`
	Actions []AskAction          `json:"actions"`
}

// AskAction is one answer of an ask prompt: a MessageActionItem with the
// permission id as an additional property, which LSP lets action items carry
// (window.showMessage.messageActionItem.additionalPropertiesSupport). A
// client answers with the item it was given, or with just its title.
type AskAction struct {
	Title        string `json:"title"`
	PermissionID string `json:"permissionId"`
}

// AskDiagnosticData is the data of the "wave.ask" diagnostic an ask puts on
// the file its tool would change: the id of the pending permission, for the
// client's Allow / Deny (wave/resolvePermission) on that diagnostic.
type AskDiagnosticData struct {
	PermissionID string `json:"permissionId"`
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

// RunHooksParams fires any event with event-specific stdin fields. Input
// is an object, kept as the client wrote it: its keys reach the hooks in
// the client's order.
type RunHooksParams struct {
	SessionID string          `json:"sessionId"`
	Event     string          `json:"event"`
	Input     json.RawMessage `json:"input"`
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
	// TelemetryDropped is how many runs of this wave home's processes were
	// not exported to OpenTelemetry (queue full, collector unreachable);
	// 0 when export is off or nothing was lost (docs/telemetry.md).
	TelemetryDropped uint64 `json:"telemetryDropped"`
}

// SessionChangedParams announces what changed in a session's conversation:
// the messages before From are as they were in version Since, and Messages
// are every message from From on in version Version (fewer than before when
// the conversation got shorter). Full (From is 0) carries the whole
// conversation. An editor whose copy is not at version Since asks
// wave/getSession, which returns the version with the messages.
type SessionChangedParams struct {
	SessionID string    `json:"sessionId"`
	Messages  []Message `json:"messages"`
	Version   uint64    `json:"version"`
	Since     uint64    `json:"since"`
	From      int       `json:"from"`
	Full      bool      `json:"full"`
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
