package flow

import (
	"encoding/json"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// Answer is what the agent must do after an event. The session returns it,
// with the blocks the event added, as its Outcome, and lsp turns that into
// the wire result.
type Answer struct {
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
	// resolved before the answer is made, and a defer is "deny" here (the
	// tool does not run now; Decision says "defer"), so that a caller that
	// knows only allow and deny fails closed. PermissionRequest's is ""
	// when no hook decided and the host asks the user as usual.
	Permission string
	// Decision is what PreToolUse hooks decided before anyone was asked:
	// "allow", "deny", "ask", "defer", or "none" when no hook decided.
	Decision string
	// ToolResponse is PostToolUse's effective tool output: what the hooks
	// replaced it with (updatedToolOutput), or the tool's own.
	ToolResponse json.RawMessage
	// ToolInput is the input the tool must run with (PreToolUse,
	// PermissionRequest), with any hook's updatedInput applied.
	ToolInput json.RawMessage
	// Asked says the user was asked.
	Asked bool
	// AdditionalContext is the context the event gave the model, in order; never nil.
	AdditionalContext []string
	// Env are the variables SessionStart, Setup, CwdChanged and FileChanged
	// hooks set through CLAUDE_ENV_FILE, for the agent host to apply to its
	// later tool runs; never nil.
	Env map[string]string

	// What Claude Code's later events answer the agent: the hooks' answer as
	// the rules applied it — Elicitation's Action "" when no hook answered
	// and the user is asked as usual, ElicitationResult's the user's answer
	// or a hook's override, MessageDisplay's DisplayContent the hook's text
	// or the original delta, WorktreePath absolute ("" when no hook ran: the
	// host creates it).
	hooks.LaterAnswer
}

// Effects is everything an event does: the answer for the agent, and the
// changes to make to the session, to be applied in order.
type Effects struct {
	Answer
	Changes []Change
}

// ChangeKind is what one Change does to the session.
type ChangeKind uint8

const (
	// AddPrompt adds the user's prompt, Text, as a user message of its own
	// (so that ErasePrompt can take it back whole).
	AddPrompt ChangeKind = iota + 1
	// RecordTool adds the block of Tool when the session has none for its
	// id, and otherwise brings the block's input up to date.
	RecordTool
	// SetToolResult sets the result of Tool.ID's block: Text, Success, and
	// Refusal as its error ("" for a tool that ran).
	SetToolResult
	// SetToolInput replaces the input of Tool.ID's block with Tool.Input.
	SetToolInput
	// ErasePrompt removes the prompt this event's AddPrompt added, even if
	// other messages followed it.
	ErasePrompt
	// Warn adds Text as a warning for the user; the model never sees it.
	Warn
	// Error adds Text as an error for the user; the model never sees it.
	Error
	// UserText adds Text as a user message the model reads: feedback, or
	// context a hook printed as plain text.
	UserText
	// Context adds Texts as hook blocks of Event, in one user message.
	Context
	// Deliver adds what async hooks said since the last event, Delivered,
	// as hook blocks of the events that started them, in one user message.
	Deliver
	// SetStopStreak sets to N how many Stop events were blocked in a row.
	SetStopStreak
	// SetSubagentStopStreak sets to N how many SubagentStop events of the
	// subagent Agent were blocked in a row.
	SetSubagentStopStreak
	// SetCwd makes Text the working directory later events' hooks get as cwd.
	SetCwd
	// RewritePrompt replaces the text of the prompt this event's AddPrompt
	// added with Text (a UserPromptSubmit hook's updatedPrompt), in place.
	RewritePrompt
)

// Change is one thing an event does to the session. Only the fields of its
// Kind are set.
type Change struct {
	Kind    ChangeKind
	Text    string
	Texts   []string
	Event   event.Event
	Tool    ToolCall
	Success bool
	Refusal string
	// Delivered is Deliver's async output.
	Delivered []hooks.Delivery
	Agent     string
	N         int
}

// ToolCall names the tool call a change is about.
type ToolCall struct {
	ID, Name string
	Input    json.RawMessage
}

// State is what the rules read of the session. The session implements it
// over its messages while it holds its lock.
type State interface {
	// Root is the project root, the cwd of hooks until CwdChanged.
	Root() string
	// Cwd is the working directory CwdChanged last reported, "" before.
	Cwd() string
	// StopStreak is how many Stop events were blocked in a row.
	StopStreak() int
	// SubagentStopStreak is how many SubagentStop events of agent were
	// blocked in a row.
	SubagentStopStreak(agent string) int
	// LastAssistantText is the text of the last assistant message ("" when
	// there is none), which Stop hooks get as last_assistant_message.
	LastAssistantText() string
}

// Questions are what the rules need from the world after the hooks ran and
// before After: the caller finds the answers (asking the user, looking at
// the file system) without holding the session, and hands them back as
// Facts.
type Questions struct {
	// Ask is the tool call to put to the user, nil when nobody need be asked.
	Ask *AskQuestion
	// Worktree is the path a WorktreeCreate hook printed, to be resolved
	// against the project root and checked (hooks.ResolveWorktreePath); ""
	// when there is none.
	Worktree string
}

// AskQuestion is the tool call a PreToolUse "ask" puts to the user, as it
// would run (any updatedInput applied), and the hooks' reason for asking.
type AskQuestion struct {
	ToolUseID string
	ToolName  string
	ToolInput json.RawMessage
	Reason    string
}

// Facts are the answers to Questions.
type Facts struct {
	Ask AskAnswer
	// WorktreePath is Questions.Worktree resolved, or WorktreeErr why it was refused.
	WorktreePath string
	WorktreeErr  error
}

// AskAnswer is how an ask ended.
type AskAnswer uint8

const (
	// NoOneAsked: there was no one to ask (no editor, or one that cannot
	// prompt). The call is denied.
	NoOneAsked AskAnswer = iota
	// UserAllowed: the user allowed the call.
	UserAllowed
	// UserDenied: the user denied it, or the ask timed out; the turn ends.
	UserDenied
	// AskedElsewhere: the ask is put to the user by a prompt outside the
	// session, after the event (the ACP agent's own permission request), or
	// only reported (`wavehooks run`). The answer stays "ask" and the tool
	// block has no result: the user's answer is recorded when it comes.
	AskedElsewhere
)

// MaxStopStreak is how many Stop (or one subagent's SubagentStop) events
// in a row hooks may block before the agent is let stop anyway: a hook that
// always blocks must not loop forever.
const MaxStopStreak = 8

// Texts of tool blocks the hooks or the user refused (docs/hooks.md, "Exit codes").
const (
	HookBlockedTool = "Hook blocked tool execution"
	UserDeniedTool  = "User denied tool execution"
)

// NoSession is the State of an event fired outside any session, such as a
// file change the server saw while no agent session was active: nothing
// blocked before, no messages, hooks run in ProjectRoot.
type NoSession struct{ ProjectRoot string }

// Root is the project root the event's hooks run in.
func (n NoSession) Root() string { return n.ProjectRoot }

// Cwd is "": no CwdChanged moved a session that does not exist.
func (NoSession) Cwd() string { return "" }

// StopStreak is 0: no Stop was blocked.
func (NoSession) StopStreak() int { return 0 }

// SubagentStopStreak is 0: no SubagentStop was blocked.
func (NoSession) SubagentStopStreak(string) int { return 0 }

// LastAssistantText is "": there are no messages.
func (NoSession) LastAssistantText() string { return "" }
