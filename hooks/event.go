package hooks

import "sort"

// Event names a point in an agent's lifecycle where hooks run. The names are
// Claude Code's, so hook files written for Claude Code work unchanged.
type Event string

// The lifecycle events with a typed wire method of their own.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SessionStart     Event = "SessionStart"
	SessionEnd       Event = "SessionEnd"
)

// Claude Code's further events, fired through the generic wave/runHooks.
const (
	PostToolUseFailure Event = "PostToolUseFailure"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	PostCompact        Event = "PostCompact"
	Notification       Event = "Notification"
	PermissionRequest  Event = "PermissionRequest"
)

// EventSpec is what the engine, the diagnostics and the editor's hover need to
// know about one event: which stdin field its matcher is compared with, which
// fields its stdin carries, and what a blocking exit 2 means for it.
type EventSpec struct {
	Event Event
	// MatchField is the stdin field the matcher is compared with; "" means the
	// event ignores matchers.
	MatchField string
	// Fields are the event-specific stdin fields, beyond the common ones, in
	// the order Claude Code sends them; user_prompt and end_source are the
	// names Wave's earlier releases used for prompt and reason, sent too.
	Fields []string
	// Summary says when the event fires.
	Summary string
	// Exit2 says what exit code 2 does for this event.
	Exit2 string
}

// CommonFields are the stdin fields every event carries.
var CommonFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name"}

var eventSpecs = map[Event]EventSpec{
	PreToolUse: {PreToolUse, "tool_name", []string{"tool_name", "tool_input", "tool_use_id"},
		"Before a tool runs. Can allow, deny or ask the user, and can rewrite the tool's input.",
		"Denies the tool call; stderr is the reason the model sees."},
	PostToolUse: {PostToolUse, "tool_name", []string{"tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"},
		"After a tool ran successfully. Can give the model feedback or context.",
		"stderr is sent to the model as feedback."},
	UserPromptSubmit: {UserPromptSubmit, "", []string{"prompt", "user_prompt"},
		"When the user submits a prompt, before the model sees it. Can add context or block the prompt.",
		"Blocks the prompt and erases it; stderr is shown to the user only."},
	Stop: {Stop, "", []string{"stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"},
		"When the agent wants to end its turn. Can make it continue.",
		"Blocks stopping; stderr is sent to the model and the agent continues."},
	SessionStart: {SessionStart, "source", []string{"source"},
		"When a session starts or resumes (source: startup, resume, clear, compact). Can add context.",
		"Shows stderr to the user only."},
	SessionEnd: {SessionEnd, "reason", []string{"reason", "end_source"},
		"When a session ends. For cleanup; cannot block.",
		"Shows stderr to the user only."},
	PostToolUseFailure: {PostToolUseFailure, "tool_name", []string{"tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"},
		"After a tool call failed (error, is_interrupt). Can give the model context.",
		"stderr is sent to the model as feedback (the tool already failed)."},
	SubagentStart: {SubagentStart, "agent_type", []string{"agent_id", "agent_type"},
		"When a subagent starts. Its additionalContext is for the subagent.",
		"Shows stderr to the user only."},
	SubagentStop: {SubagentStop, "agent_type", []string{"stop_hook_active", "agent_id", "agent_type"},
		"When a subagent wants to stop. Can make it continue.",
		"Blocks the subagent from stopping; stderr is the reason sent to the subagent."},
	PreCompact: {PreCompact, "trigger", []string{"trigger", "custom_instructions"},
		"Before the conversation is compacted (trigger: manual, auto). Can block the compaction.",
		"Blocks the compaction; stderr is shown to the user."},
	PostCompact: {PostCompact, "trigger", []string{"trigger", "compact_summary"},
		"After the conversation was compacted.",
		"Shows stderr to the user only."},
	Notification: {Notification, "notification_type", []string{"message", "title", "notification_type"},
		"When the agent sends the user a notification (notification_type: permission_prompt, idle_prompt, …).",
		"Shows stderr to the user only."},
	PermissionRequest: {PermissionRequest, "tool_name", []string{"tool_name", "tool_input", "permission_suggestions"},
		"When the agent would show a permission dialog. Can allow (and rewrite the tool input) or deny on the user's behalf.",
		"Denies the permission; stderr is the reason the model sees."},
}

// Spec returns what is known about an event and whether it is a known event.
func Spec(e Event) (EventSpec, bool) {
	s, ok := eventSpecs[e]
	return s, ok
}

// Events lists every known event, sorted by name, for completion and for
// "did you mean" suggestions.
func Events() []Event {
	out := make([]Event, 0, len(eventSpecs))
	for e := range eventSpecs {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// canBlock reports whether a block (exit 2 or decision "block") stops
// something for the event: the prompt, stopping, the compaction, or it sends
// feedback to the model. Other events cannot be blocked: exit 2 is an error
// for the user and decision "block" is ignored.
func (e Event) canBlock() bool {
	switch e {
	case UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact:
		return true
	}
	return false
}

// decidesPermission reports whether the event's hooks decide a permission.
func (e Event) decidesPermission() bool { return e == PreToolUse || e == PermissionRequest }

// UsesMatcher reports whether the event compares its matcher with a stdin field.
func (e Event) UsesMatcher() bool { return eventSpecs[e].MatchField != "" }
