package hooks

import (
	"encoding/json"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Permission is a PreToolUse decision.
type Permission string

// PreToolUse decisions; the empty Permission means no hook had an opinion,
// which lets the tool run.
const (
	PermissionNone  Permission = ""
	PermissionAllow Permission = "allow"
	PermissionAsk   Permission = "ask"
	PermissionDeny  Permission = "deny"
	// PermissionDefer pauses the agent at the call until its host resumes
	// it (PreSkillShellCommand: the command does not run).
	PermissionDefer Permission = "defer"
)

// rank orders the decisions as Claude Code does when hooks disagree:
// deny > defer > ask > allow.
func (p Permission) rank() int {
	switch p {
	case PermissionDeny:
		return 4
	case PermissionDefer:
		return 3
	case PermissionAsk:
		return 2
	case PermissionAllow:
		return 1
	}
	return 0
}

// Result is the combined answer of all hooks of one event: what the agent
// must do next and what the conversation gains. Lists keep configuration
// order, so the same hooks give the same Result whatever finishes first.
type Result struct {
	Event event.Event
	// Continue is false when a hook asked the agent to stop (continue:false);
	// it beats every other field.
	Continue   bool
	StopReason string
	// Blocked: the prompt is blocked (UserPromptSubmit), feedback is due
	// (PostToolUse), or the agent must go on (Stop).
	Blocked bool
	// Reason is why the tool was denied or asked about, or why the event was
	// blocked; every hook's reason, in configuration order, one per line.
	Reason string
	// Permission is the decision of PreToolUse, PermissionRequest,
	// PreModelSwitch or PreSkillShellCommand: deny > defer > ask > allow > none.
	Permission Permission
	// UpdatedInput is the tool input a PreToolUse hook rewrote, or nil.
	UpdatedInput json.RawMessage
	// UpdatedToolOutput is what the model must see instead of the tool's
	// output (PostToolUse's updatedToolOutput), or nil.
	UpdatedToolOutput json.RawMessage
	// Context is plain stdout of exit-0 hooks, for events where it becomes
	// context (UserPromptSubmit, SessionStart).
	Context []string
	// AdditionalContext is hookSpecificOutput.additionalContext of every hook.
	AdditionalContext []string
	// Warnings become warn blocks: systemMessage and problems with a hook's JSON.
	Warnings []string
	// Errors become error blocks the user sees and the model never does.
	Errors []string
	// Env are the variables SessionStart hooks wrote to CLAUDE_ENV_FILE, for
	// the agent's later tool runs; nil when none.
	Env map[string]string
	// Runs describe every configured hook of the event: matched or not, run or
	// skipped, and what each one did.
	Runs []Run
	// Stdin is the JSON the hooks received, nil when no hook ran.
	Stdin []byte

	// What hooks answered to Claude Code's later events (docs/parity.md).
	LaterAnswer
	// Delivered is what async hooks of the session said for the model since
	// its last event (Fire only): the session adds it to the conversation.
	Delivered []Delivery
	// Rewake is set in the Result of an asyncRewake hook that exited 2 (as
	// OnAsyncDone reports it): the text that wakes the agent.
	Rewake string
}

// Run is the story of one configured hook during one event, for the
// "why did (or didn't) my hook run?" history.
type Run struct {
	Command string          `json:"command"`
	Source  settings.Source `json:"source"`
	File    string          `json:"file"`
	Matcher string          `json:"matcher"`
	// Matched says whether the matcher accepted the event; Why explains it.
	Matched bool   `json:"matched"`
	Why     string `json:"why"`
	// If is the hook's "if" rule, when it has one and the matcher matched;
	// IfWhy says why the rule matches the tool call or not.
	If    string `json:"if,omitempty"`
	IfWhy string `json:"ifWhy,omitempty"`
	// Skipped says why a matching hook did not run (its "if" rule, untrusted,
	// disabled, duplicate).
	Skipped string `json:"skipped,omitempty"`
	Ran     bool   `json:"ran"`
	// Async hooks run in the background: in the event's Result they have
	// not run yet (Ran is false); their outcome is reported on its own, in a
	// Result of their own, when they end.
	Async bool `json:"async,omitempty"`
	// StatusMessage is what the hook's settings say to show while it runs.
	StatusMessage string `json:"statusMessage,omitempty"`
	// Type is the hook's type (command, http, prompt, agent, mcp_tool), and
	// HTTPStatus the status code an http hook was answered with.
	Type       string `json:"type,omitempty"`
	HTTPStatus int    `json:"httpStatus,omitempty"`

	ExitCode int `json:"exitCode"`
	// Duration is how long the hook ran; DurationNs is the same on the
	// wire, where a time.Duration would be written as text by some encoders.
	Duration        time.Duration `json:"-"`
	DurationNs      int64         `json:"durationNs"`
	TimedOut        bool          `json:"timedOut"`
	Stdout          string        `json:"stdout"`
	Stderr          string        `json:"stderr"`
	StdoutTruncated bool          `json:"stdoutTruncated"`
	StderrTruncated bool          `json:"stderrTruncated"`
	// JSON says whether stdout was read as a JSON answer; Problems lists what
	// was wrong with it (why it was not read) or ignored in it (keys that
	// differ only in case, the JSON of a hook that exited 2).
	JSON     bool     `json:"json"`
	Problems []string `json:"problems"`
	// Decision is a one-line summary of what the hook decided.
	Decision string `json:"decision"`
}

// MarshalJSON writes a Run with "problems":[] when there are none: arrays on
// the wire are never null (docs/protocol.md), and editor clients iterate
// the list without a check.
func (r Run) MarshalJSON() ([]byte, error) {
	type plain Run
	p := plain(r)
	if p.Problems == nil {
		p.Problems = []string{}
	}
	return fastjson.Marshal(p) // segmentio's: the run log and wave/hookRun encode every run
}
