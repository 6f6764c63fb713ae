package session

import (
	"context"
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
)

// Firer runs the hooks of one event. *hooks.Engine implements it; the
// interface lets the server swap engines and lets a benchmark leave hook
// processes out.
type Firer interface {
	Fire(ctx context.Context, in hooks.Input) hooks.Result
}

// AskFunc asks the user about a PreToolUse "ask" and returns true to allow.
// The lsp package implements it with an editor prompt; it must return deny
// when the ask times out or the editor disconnects. A nil AskFunc denies.
type AskFunc func(ctx context.Context, req AskRequest) (allow bool)

// AskRequest is what the user is asked about: the tool call as it would run
// (with any updatedInput applied) and the hooks' reason for asking.
type AskRequest struct {
	SessionID string
	ToolUseID string
	ToolName  string
	ToolInput json.RawMessage
	Reason    string
}

// Outcome is what the agent must do after an event and what the event did to
// the conversation; the lsp package turns it into the wire result.
type Outcome struct {
	// Result is the hooks' combined answer, for the run history and for
	// `wavehooks run`.
	Result hooks.Result
	// Continue is false when the agent must stop (a hook's continue:false, or
	// the user denying an ask); StopReason says why, for the user.
	Continue   bool
	StopReason string
	// Blocked: the prompt was erased (UserPromptSubmit), feedback is due
	// (PostToolUse), or the agent must go on (Stop). Reason is for the model,
	// except for UserPromptSubmit where it is for the user only.
	Blocked bool
	Reason  string
	// Permission is PreToolUse's decision, "allow" or "deny": asks are
	// resolved before the Outcome is returned.
	Permission string
	// Decision is what PreToolUse hooks decided before anyone was asked:
	// "allow", "deny", "ask", or "none" when no hook decided.
	Decision string
	// ToolResponse is PostToolUse's effective tool output: what the hooks
	// replaced it with (updatedToolOutput), or the tool's own.
	ToolResponse json.RawMessage
	// ToolInput is the input the tool must run with (PreToolUse), with any
	// hook's updatedInput applied.
	ToolInput json.RawMessage
	// Asked says the user was asked.
	Asked bool
	// AdditionalContext is the context the event gave the model, in order; never nil.
	AdditionalContext []string
	// Env are the variables SessionStart, Setup, CwdChanged and FileChanged hooks set through CLAUDE_ENV_FILE,
	// for the agent host to apply to its later tool runs; never nil.
	Env map[string]string
	// Blocks are the blocks this event added or changed, in order, for the
	// editor to render: the tool block of a tool event included, the user's
	// own prompt not. Never nil.
	Blocks []Block

	// What Claude Code's later events answer the agent (laterevents.go):
	// the hooks' answer as the session applied it — Elicitation's Action ""
	// when no hook answered and the user is asked as usual,
	// ElicitationResult's the user's answer or a hook's override,
	// MessageDisplay's DisplayContent the hook's text or the original delta,
	// WorktreePath absolute ("" when no hook ran: the host creates it).
	hooks.LaterAnswer
}

// maxStopBlocks is how many Stop events in a row hooks may block before the
// agent is let stop anyway: a hook that always blocks must not loop forever.
const maxStopBlocks = 8

// Texts of tool blocks the hooks or the user refused (docs/hooks.md, "Exit codes").
const (
	hookBlockedTool = "Hook blocked tool execution"
	userDeniedTool  = "User denied tool execution"
)

func newOutcome(res hooks.Result) Outcome {
	env := res.Env
	if env == nil {
		env = map[string]string{}
	}
	return Outcome{Result: res, Continue: true, AdditionalContext: []string{}, Blocks: []Block{}, Env: env}
}

func (o *Outcome) add(bs ...Block) { o.Blocks = append(o.Blocks, bs...) }
