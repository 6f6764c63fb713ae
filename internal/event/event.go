package event

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

// The events Claude Code added after the thirteen above, fired through
// wave/runHooks, or by the server itself where it can see them happen
// (ConfigChange, FileChanged, DirectoryAdded; docs/parity.md).
const (
	Setup               Event = "Setup"
	UserPromptExpansion Event = "UserPromptExpansion"
	PermissionDenied    Event = "PermissionDenied"
	PostToolBatch       Event = "PostToolBatch"
	MessageDisplay      Event = "MessageDisplay"
	TaskCreated         Event = "TaskCreated"
	TaskCompleted       Event = "TaskCompleted"
	StopFailure         Event = "StopFailure"
	TeammateIdle        Event = "TeammateIdle"
	InstructionsLoaded  Event = "InstructionsLoaded"
	ConfigChange        Event = "ConfigChange"
	CwdChanged          Event = "CwdChanged"
	DirectoryAdded      Event = "DirectoryAdded"
	FileChanged         Event = "FileChanged"
	WorktreeCreate      Event = "WorktreeCreate"
	WorktreeRemove      Event = "WorktreeRemove"
	Elicitation         Event = "Elicitation"
	ElicitationResult   Event = "ElicitationResult"
)

// The events of Claude Code 2.1.330 and 2.1.332 that the list above lacked,
// fired through wave/runHooks: the model switch (/model), and the shell
// commands a skill or slash command embeds (2.1.332).
const (
	PreModelSwitch       Event = "PreModelSwitch"
	PostModelSwitch      Event = "PostModelSwitch"
	PreSkillShellCommand Event = "PreSkillShellCommand"
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
	UserPromptSubmit: {UserPromptSubmit, "", []string{"prompt", "user_prompt", "source", "session_title"},
		"When the user submits a prompt, before the model sees it. Can add context or block the prompt.",
		"Blocks the prompt and erases it; stderr is shown to the user only."},
	Stop: {Stop, "", []string{"stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"},
		"When the agent wants to end its turn. Can make it continue.",
		"Blocks stopping; stderr is sent to the model and the agent continues."},
	SessionStart: {SessionStart, "source", []string{"source", "agent_type", "model", "session_title", "seconds_since_last_response",
		"context_tokens", "prompt_cache_likely_expired", "estimated_cache_write_usd"},
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
	Setup: {Setup, "trigger", []string{"trigger"},
		"For one-time preparation in CI or scripts (trigger: init, maintenance), fired by the agent host or `wavehooks run Setup`. additionalContext becomes context.",
		"Shows stderr to the user only."},
	UserPromptExpansion: {UserPromptExpansion, "command_name", []string{"expansion_type", "command_name", "command_args", "command_source", "prompt"},
		"When a typed command (/name args) expands into a prompt, before the model sees it. Can block the expansion or add context.",
		"Blocks the expansion; stderr is shown to the user only."},
	PermissionDenied: {PermissionDenied, "tool_name", []string{"tool_name", "tool_input", "tool_use_id", "reason"},
		"When the agent's automatic mode denied a tool call. `retry: true` tells the model it may make the call again once, only if the user asked for what it does.",
		"Ignored: the denial already happened (the run history keeps the hook's output)."},
	PostToolBatch: {PostToolBatch, "", []string{"tool_calls"},
		"Once after a batch of parallel tool calls resolved, before the next model call. Can add context or stop the loop.",
		"Stops the agentic loop before the next model call; stderr stays in the conversation for the model."},
	MessageDisplay: {MessageDisplay, "", []string{"turn_id", "message_id", "index", "final", "delta"},
		"While assistant text is displayed. displayContent replaces the text on screen only; the transcript keeps the original.",
		"Ignored: the original text is displayed (the run history keeps the hook's output)."},
	TaskCreated: {TaskCreated, "", []string{"task_id", "task_subject", "task_description", "teammate_name", "team_name"},
		"When a task is being created (TaskCreate). Can block its creation.",
		"The task is not created; stderr is returned to the model as the tool's error."},
	TaskCompleted: {TaskCompleted, "", []string{"task_id", "task_subject", "task_description", "teammate_name", "team_name"},
		"When a task is being marked as completed. Can refuse the completion.",
		"The task is not completed; stderr is fed back to the model."},
	StopFailure: {StopFailure, "error", []string{"error", "error_details", "last_assistant_message"},
		"Instead of Stop, when the turn ended because of an API error (error: rate_limit, overloaded, …). For logging only.",
		"Ignored, like everything the hook prints (the run history keeps it)."},
	TeammateIdle: {TeammateIdle, "", []string{"teammate_name", "team_name"},
		"When an agent-team teammate is about to go idle. Can keep it working.",
		"The teammate gets stderr as feedback and keeps working."},
	InstructionsLoaded: {InstructionsLoaded, "load_reason", []string{"file_path", "memory_type", "load_reason", "globs", "trigger_file_path", "parent_file_path"},
		"When the agent host loads an instructions file (CLAUDE.md, rules) into context. For observability only.",
		"Ignored, like everything the hook prints (the run history keeps it)."},
	ConfigChange: {ConfigChange, "source", []string{"source", "file_path"},
		"When a settings file changes (source: user_settings, project_settings, local_settings, policy_settings). Fired by the server itself; can block the change.",
		"The change does not take effect (policy_settings changes always do); stderr is not shown."},
	CwdChanged: {CwdChanged, "", []string{"old_cwd", "new_cwd"},
		"When the agent's working directory changes. watchPaths sets the files FileChanged watches.",
		"Shows stderr to the user only."},
	DirectoryAdded: {DirectoryAdded, "source", []string{"directory", "source"},
		"When a working directory is added (source: slash_command, register_repo_root, workspace_folder from the editor). Fired by the server for new workspace folders.",
		"Ignored: the directory is already added (the run history keeps stderr)."},
	FileChanged: {FileChanged, "file_path", []string{"file_path", "event"},
		"When a watched file changes (event: change, add, unlink). The matcher names the files to watch and is compared with the file's name.",
		"Shows stderr to the user only."},
	WorktreeCreate: {WorktreeCreate, "", []string{"name"},
		"When a worktree is created; the hook creates it and prints its path as the last line of stdout.",
		"Any non-zero exit fails the worktree creation."},
	WorktreeRemove: {WorktreeRemove, "", []string{"worktree_path"},
		"When a worktree is removed. For cleanup; cannot block.",
		"Ignored (the run history keeps stderr)."},
	Elicitation: {Elicitation, "mcp_server_name", []string{"mcp_server_name", "message", "mode", "url", "elicitation_id", "requested_schema"},
		"When an MCP server asks the user for input. Can answer for the user (action, content).",
		"Declines the elicitation; stderr is not shown."},
	ElicitationResult: {ElicitationResult, "mcp_server_name", []string{"mcp_server_name", "action", "mode", "elicitation_id", "content"},
		"After the user answered an MCP elicitation, before the answer is sent. Can override it (action, content).",
		"The answer becomes decline; stderr is not shown."},
	PreModelSwitch: {PreModelSwitch, "", nil,
		"Before the agent switches to another model (/model). Can allow, deny or ask the user; the host applies the decision. " +
			"Claude Code 2.1.332 also sends from_model, to_model, requested_model and source (measured); a host sends what it knows.",
		"Denies the switch (the model stays); stderr is the reason shown to the user."},
	PostModelSwitch: {PostModelSwitch, "", nil,
		"After the agent switched to another model. Can add context for the model.",
		"Shows stderr to the user only."},
	PreSkillShellCommand: {PreSkillShellCommand, "tool_name", []string{"tool_name", "tool_input", "tool_use_id", "command_name", "command_source", "invoked_by"},
		"Before a shell command written inside a skill or slash command runs (tool_name: Bash or PowerShell; invoked_by: user, claude, other). " +
			"Only a refusal counts: deny, ask, defer, decision \"block\" or any updatedInput keep the command from running; allow adds nothing.",
		"The command does not run; its output becomes `[not run: blocked by hook: <stderr>]`."},
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

// CanBlock reports whether a block (exit 2 or decision "block") stops
// something for the event: the prompt, stopping, the compaction, or it sends
// feedback to the model. Other events cannot be blocked: exit 2 is an error
// for the user and decision "block" is ignored.
func (e Event) CanBlock() bool {
	switch e {
	case UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact,
		UserPromptExpansion, PostToolBatch, TaskCreated, TaskCompleted, TeammateIdle, ConfigChange, Elicitation, ElicitationResult:
		return true
	}
	return false
}

// DecidesPermission reports whether the event's hooks decide a permission.
// PreModelSwitch's decides the switch, PreSkillShellCommand's whether a
// skill's shell command runs.
func (e Event) DecidesPermission() bool {
	return e == PreToolUse || e == PermissionRequest || e == PreModelSwitch || e == PreSkillShellCommand
}

// UsesMatcher reports whether the event compares its matcher with a stdin field.
func (e Event) UsesMatcher() bool { return eventSpecs[e].MatchField != "" }
