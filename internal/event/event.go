package event

import (
	"slices"
	"sort"
	"time"
)

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

// EventSpec is one row of the table of events: everything the engine, the
// diagnostics, hover, completion, the settings schema and docs/parity.md
// need to know about one event, so that adding an event is one row here plus
// its behaviour (internal/flow), not an edit in every package that speaks of
// events. TestEveryConsumerReadsEveryRow (in each consumer's package) fails
// when a consumer ignores a row.
type EventSpec struct {
	Event Event

	// MatchField is the stdin field the matcher is compared with; "" means the
	// event ignores matchers.
	MatchField string
	// MatcherDoc says what the matcher is compared with when MatchField alone
	// does not (FileChanged: the changed file's name); "" otherwise.
	MatcherDoc string
	// MatcherValues are the values the matcher is usually written with, as
	// Claude Code documents them, for completion; the tool events offer
	// tool names instead, and events matched on names the user chose
	// (commands, MCP servers) offer none.
	MatcherValues []string

	// Fields are the event-specific stdin fields, beyond the common ones, in
	// the order Claude Code sends them; user_prompt and end_source are the
	// names Wave's earlier releases used for prompt and reason, sent too.
	Fields []string
	// Defaults are the JSON values of the fields the caller did not give,
	// so that a hook written for Claude Code finds every field it reads
	// (`jq -r .trigger` prints "" rather than null); a given value must be
	// of the same JSON kind.
	Defaults map[string]string
	// Optional are the fields the client may leave out (they reach the hook
	// only when sent), with the kind of JSON value each must be.
	Optional map[string]string
	// PermissionMode and Effort say whether the stdin carries
	// permission_mode, and effort when it is known, as Claude Code sends them.
	PermissionMode, Effort bool

	// Timeout is the default timeout of the event's command, http and
	// mcp_tool hooks; 0 is Claude Code's 600 s (settings.DefaultTimeout).
	Timeout time.Duration
	// HookTypes says which hook types Claude Code runs on the event.
	HookTypes HookTypeSet
	// CanBlock: a block (exit 2 or decision "block") stops something for the
	// event: the prompt, stopping, the compaction, or it sends feedback to
	// the model. On other events exit 2 is an error for the user and
	// decision "block" is ignored.
	CanBlock bool
	// DecidesPermission: the event's hooks decide a permission (a tool call,
	// a model switch, whether a skill's shell command runs).
	DecidesPermission bool
	// PermissionDecisions are the values of hookSpecificOutput
	// .permissionDecision the event reads, as Claude Code 2.1.332's schemas
	// list them; nil when it reads none.
	PermissionDecisions []string
	// Reads are the fields of hookSpecificOutput that only some events read
	// and this one does; such a field on another event is noted as ignored.
	Reads []string
	// Discards are the top-level answer fields ("continue",
	// "systemMessage") the event discards, as Claude Code does.
	Discards []string
	// DiscardsOutput: the event ignores everything its hooks print.
	DiscardsOutput bool
	// Quiet: Claude Code only writes the event's hook failures to its debug
	// log; here the run history is that log, so a failure (exit 2 included)
	// or an answer that does not validate becomes no error or warn block.
	Quiet bool
	// OnFailureIgnored: Claude Code ignores onFailure on the event, since a
	// failed hook must not keep an agent or a teammate working.
	OnFailureIgnored bool
	// ServerFired: the server fires the event itself, whatever the agent
	// host sends (settings changes, watched files, workspace folders).
	ServerFired bool

	// Summary says when the event fires.
	Summary string
	// Exit2 says what exit code 2 does for this event.
	Exit2 string
	// Answer says what a hook's JSON answer can do beyond the fields every
	// event reads (continue, stopReason, systemMessage, terminalSequence),
	// for hover.
	Answer string
}

// HookTypeSet names which hook types an event runs, as Claude Code decides
// it: every type on the events that decide something about a tool call, a
// prompt or stopping; no prompt or agent hooks where there is nothing for a
// model to judge; only command and mcp_tool hooks on SessionStart and Setup.
type HookTypeSet string

// The sets of hook types an event may run.
const (
	AllHookTypes     HookTypeSet = "all"
	NoModelHookTypes HookTypeSet = "no-model"
	StartHookTypes   HookTypeSet = "start"
)

// CommonFields are the stdin fields every event carries.
var CommonFields = []string{"session_id", "transcript_path", "cwd", "hook_event_name"}

// table is the table of events, one row per event, in the order Claude Code
// added them. Claude Code 2.1.332 refuses prompt and agent hooks on
// PreSkillShellCommand; its documentation lists neither model-switch event
// among those that run them, so they are refused there too (docs/parity.md).
// PreModelSwitch's stdin fields are what a host sends (docs/parity.md).
// Of the later events Claude Code fires offline, measured by the
// conformance suite, UserPromptExpansion gets permission_mode,
// PostToolBatch both, StopFailure effort, and the others neither.
// PreSkillShellCommand's invoked_by "other" is Claude Code's word for
// "not known".
var table = []EventSpec{
	{
		Event:               PreToolUse,
		MatchField:          "tool_name",
		Fields:              []string{"tool_name", "tool_input", "tool_use_id"},
		PermissionMode:      true,
		Effort:              true,
		HookTypes:           AllHookTypes,
		DecidesPermission:   true,
		PermissionDecisions: []string{"allow", "deny", "ask", "defer"},
		Reads:               []string{"permissionDisplay"},
		Summary:             "Before a tool runs. Can allow, deny or ask the user, and can rewrite the tool's input.",
		Exit2:               "Denies the tool call; stderr is the reason the model sees.",
		Answer:              "`hookSpecificOutput.permissionDecision` allow / deny / ask / defer, `permissionDecisionReason`, `updatedInput`, `additionalContext`, `permissionDisplay` (for the host's prompt)",
	},
	{
		Event:          PostToolUse,
		MatchField:     "tool_name",
		Fields:         []string{"tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"},
		PermissionMode: true,
		Effort:         true,
		HookTypes:      AllHookTypes,
		CanBlock:       true,
		Reads:          []string{"classifierContext"},
		Summary:        "After a tool ran successfully. Can give the model feedback or context.",
		Exit2:          "stderr is sent to the model as feedback.",
		Answer:         "`decision: \"block\"` + `reason` (feedback for the model), `additionalContext`, `updatedToolOutput` / `updatedMCPToolOutput`, `classifierContext` (for an auto mode classifier, not the model)",
	},
	{
		Event:          UserPromptSubmit,
		Fields:         []string{"prompt", "user_prompt", "source", "session_title"},
		Optional:       map[string]string{"session_title": "a string"},
		PermissionMode: true,
		Timeout:        30 * time.Second,
		HookTypes:      AllHookTypes,
		CanBlock:       true,
		Reads:          []string{"sessionTitle", "suppressOriginalPrompt", "updatedPrompt"},
		Summary:        "When the user submits a prompt, before the model sees it. Can add context or block the prompt.",
		Exit2:          "Blocks the prompt and erases it; stderr is shown to the user only.",
		Answer:         "`decision: \"block\"` + `reason` (for the user), `suppressOriginalPrompt`, `additionalContext`, `sessionTitle`, `updatedPrompt` (wavehooks' own extension: the prompt the model sees instead)",
	},
	{
		Event:            Stop,
		Fields:           []string{"stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"},
		Defaults:         map[string]string{"background_tasks": `[]`, "session_crons": `[]`},
		PermissionMode:   true,
		Effort:           true,
		HookTypes:        AllHookTypes,
		CanBlock:         true,
		OnFailureIgnored: true,
		Summary:          "When the agent wants to end its turn. Can make it continue.",
		Exit2:            "Blocks stopping; stderr is sent to the model and the agent continues.",
		Answer:           "`decision: \"block\"` + `reason` (the agent continues)",
	},
	{
		Event:         SessionStart,
		MatchField:    "source",
		MatcherValues: []string{"startup", "resume", "clear", "compact"},
		Fields:        []string{"source", "agent_type", "model", "session_title", "seconds_since_last_response", "context_tokens", "prompt_cache_likely_expired", "estimated_cache_write_usd"},
		Optional:      map[string]string{"agent_type": "a string", "context_tokens": "a number", "estimated_cache_write_usd": "a number", "model": "a string", "prompt_cache_likely_expired": "a boolean", "seconds_since_last_response": "a number", "session_title": "a string"},
		HookTypes:     StartHookTypes,
		Reads:         []string{"watchPaths", "initialUserMessage", "sessionTitle", "reloadSkills"},
		Summary:       "When a session starts or resumes (source: startup, resume, clear, compact). Can add context.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`additionalContext`; `hookSpecificOutput.watchPaths`: absolute paths FileChanged watches; `initialUserMessage`, `sessionTitle`, `reloadSkills` for the agent host",
	},
	{
		Event:         SessionEnd,
		MatchField:    "reason",
		MatcherValues: []string{"clear", "resume", "logout", "prompt_input_exit", "other"},
		Fields:        []string{"reason", "end_source"},
		HookTypes:     NoModelHookTypes,
		Summary:       "When a session ends. For cleanup; cannot block.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "none",
	},
	{
		Event:          PostToolUseFailure,
		MatchField:     "tool_name",
		Fields:         []string{"tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"},
		Defaults:       map[string]string{"error": `""`, "is_interrupt": `false`},
		PermissionMode: true,
		Effort:         true,
		HookTypes:      AllHookTypes,
		CanBlock:       true,
		Summary:        "After a tool call failed (error, is_interrupt). Can give the model context.",
		Exit2:          "stderr is sent to the model as feedback (the tool already failed).",
		Answer:         "`additionalContext`; `decision: \"block\"` + `reason`",
	},
	{
		Event:         SubagentStart,
		MatchField:    "agent_type",
		MatcherValues: []string{"general-purpose", "Explore", "Plan"},
		Fields:        []string{"agent_id", "agent_type"},
		Defaults:      map[string]string{"agent_id": `""`, "agent_type": `""`},
		HookTypes:     NoModelHookTypes,
		Summary:       "When a subagent starts. Its additionalContext is for the subagent.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`additionalContext`, for the subagent",
	},
	{
		Event:            SubagentStop,
		MatchField:       "agent_type",
		MatcherValues:    []string{"general-purpose", "Explore", "Plan"},
		Fields:           []string{"stop_hook_active", "agent_id", "agent_type"},
		Defaults:         map[string]string{"agent_id": `""`, "agent_type": `""`},
		PermissionMode:   true,
		Effort:           true,
		HookTypes:        AllHookTypes,
		CanBlock:         true,
		OnFailureIgnored: true,
		Summary:          "When a subagent wants to stop. Can make it continue.",
		Exit2:            "Blocks the subagent from stopping; stderr is the reason sent to the subagent.",
		Answer:           "`decision: \"block\"` + `reason`, for the subagent",
	},
	{
		Event:         PreCompact,
		MatchField:    "trigger",
		MatcherValues: []string{"manual", "auto"},
		Fields:        []string{"trigger", "custom_instructions"},
		Defaults:      map[string]string{"custom_instructions": `""`, "trigger": `""`},
		HookTypes:     NoModelHookTypes,
		CanBlock:      true,
		Summary:       "Before the conversation is compacted (trigger: manual, auto). Can block the compaction.",
		Exit2:         "Blocks the compaction; stderr is shown to the user.",
		Answer:        "`decision: \"block\"` + `reason`",
	},
	{
		Event:         PostCompact,
		MatchField:    "trigger",
		MatcherValues: []string{"manual", "auto"},
		Fields:        []string{"trigger", "compact_summary"},
		Defaults:      map[string]string{"compact_summary": `""`, "trigger": `""`},
		HookTypes:     NoModelHookTypes,
		Summary:       "After the conversation was compacted.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`additionalContext`",
	},
	{
		Event:         Notification,
		MatchField:    "notification_type",
		MatcherValues: []string{"permission_prompt", "idle_prompt", "auth_success", "elicitation_dialog", "elicitation_url_dialog", "elicitation_complete", "elicitation_response", "agent_needs_input", "agent_completed"},
		Fields:        []string{"message", "title", "notification_type"},
		Defaults:      map[string]string{"message": `""`, "notification_type": `""`, "title": `""`},
		HookTypes:     NoModelHookTypes,
		Summary:       "When the agent sends the user a notification (notification_type: permission_prompt, idle_prompt, …).",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`additionalContext`",
	},
	{
		Event:             PermissionRequest,
		MatchField:        "tool_name",
		Fields:            []string{"tool_name", "tool_input", "permission_suggestions"},
		Defaults:          map[string]string{"permission_suggestions": `[]`},
		PermissionMode:    true,
		Effort:            true,
		HookTypes:         AllHookTypes,
		DecidesPermission: true,
		Summary:           "When the agent would show a permission dialog. Can allow (and rewrite the tool input) or deny on the user's behalf.",
		Exit2:             "Denies the permission; stderr is the reason the model sees.",
		Answer:            "`hookSpecificOutput.decision`: `{\"behavior\": \"allow\", \"updatedInput\": …}` or `{\"behavior\": \"deny\", \"message\": …, \"interrupt\": true}`",
	},
	{
		Event:         Setup,
		MatchField:    "trigger",
		MatcherValues: []string{"init", "maintenance"},
		Fields:        []string{"trigger"},
		Defaults:      map[string]string{"trigger": `""`},
		HookTypes:     StartHookTypes,
		Summary:       "For one-time preparation in CI or scripts (trigger: init, maintenance), fired by the agent host or `wavehooks run Setup`. additionalContext becomes context.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`additionalContext` (plain stdout is not context)",
	},
	{
		Event:          UserPromptExpansion,
		MatchField:     "command_name",
		Fields:         []string{"expansion_type", "command_name", "command_args", "command_source", "prompt"},
		Defaults:       map[string]string{"command_args": `""`, "command_name": `""`, "command_source": `""`, "expansion_type": `""`},
		PermissionMode: true,
		HookTypes:      AllHookTypes,
		CanBlock:       true,
		Reads:          []string{"suppressOriginalPrompt"},
		Summary:        "When a typed command (/name args) expands into a prompt, before the model sees it. Can block the expansion or add context.",
		Exit2:          "Blocks the expansion; stderr is shown to the user only.",
		Answer:         "`decision: \"block\"` + `reason` (for the user), `suppressOriginalPrompt`, `additionalContext`; plain stdout is context",
	},
	{
		Event:      PermissionDenied,
		MatchField: "tool_name",
		Fields:     []string{"tool_name", "tool_input", "tool_use_id", "reason"},
		HookTypes:  AllHookTypes,
		Reads:      []string{"retry"},
		Quiet:      true,
		Summary:    "When the agent's automatic mode denied a tool call. `retry: true` tells the model it may make the call again once, only if the user asked for what it does.",
		Exit2:      "Ignored: the denial already happened (the run history keeps the hook's output).",
		Answer:     "`hookSpecificOutput.retry: true`: the model is told it may make the call again once, only if the user asked for what it does (Claude Code's meaning since 2.1.331)",
	},
	{
		Event:          PostToolBatch,
		Fields:         []string{"tool_calls"},
		Defaults:       map[string]string{"tool_calls": `[]`},
		PermissionMode: true,
		Effort:         true,
		HookTypes:      AllHookTypes,
		CanBlock:       true,
		Summary:        "Once after a batch of parallel tool calls resolved, before the next model call. Can add context or stop the loop.",
		Exit2:          "Stops the agentic loop before the next model call; stderr stays in the conversation for the model.",
		Answer:         "`additionalContext`; `decision: \"block\"` + `reason` or `continue: false` stop the loop",
	},
	{
		Event:     MessageDisplay,
		Fields:    []string{"turn_id", "message_id", "index", "final", "delta"},
		Defaults:  map[string]string{"delta": `""`, "final": `false`, "index": `0`, "message_id": `""`, "turn_id": `""`},
		Timeout:   10 * time.Second,
		HookTypes: NoModelHookTypes,
		Reads:     []string{"displayContent"},
		Discards:  []string{"continue", "systemMessage"},
		Quiet:     true,
		Summary:   "While assistant text is displayed. displayContent replaces the text on screen only; the transcript keeps the original.",
		Exit2:     "Ignored: the original text is displayed (the run history keeps the hook's output).",
		Answer:    "`hookSpecificOutput.displayContent` replaces the displayed text (systemMessage and continue are discarded)",
	},
	{
		Event:     TaskCreated,
		Fields:    []string{"task_id", "task_subject", "task_description", "teammate_name", "team_name"},
		Defaults:  map[string]string{"task_id": `""`, "task_subject": `""`},
		Optional:  map[string]string{"task_description": "a string", "team_name": "a string", "teammate_name": "a string"},
		HookTypes: AllHookTypes,
		CanBlock:  true,
		Discards:  []string{"continue"},
		Summary:   "When a task is being created (TaskCreate). Can block its creation.",
		Exit2:     "The task is not created; stderr is returned to the model as the tool's error.",
		Answer:    "`decision: \"block\"` + `reason`: the task is not created (continue is ignored)",
	},
	{
		Event:            TaskCompleted,
		Fields:           []string{"task_id", "task_subject", "task_description", "teammate_name", "team_name"},
		Defaults:         map[string]string{"task_id": `""`, "task_subject": `""`},
		Optional:         map[string]string{"task_description": "a string", "team_name": "a string", "teammate_name": "a string"},
		HookTypes:        AllHookTypes,
		CanBlock:         true,
		OnFailureIgnored: true,
		Summary:          "When a task is being marked as completed. Can refuse the completion.",
		Exit2:            "The task is not completed; stderr is fed back to the model.",
		Answer:           "`continue: false` stops the teammate; refuse the completion with exit 2",
	},
	{
		Event:          StopFailure,
		MatchField:     "error",
		MatcherValues:  []string{"rate_limit", "overloaded", "authentication_failed", "oauth_org_not_allowed", "billing_error", "invalid_request", "model_not_found", "server_error", "max_output_tokens", "unknown"},
		Fields:         []string{"error", "error_details", "last_assistant_message"},
		Defaults:       map[string]string{"error": `""`},
		Optional:       map[string]string{"error_details": "a string", "last_assistant_message": "a string"},
		Effort:         true,
		HookTypes:      NoModelHookTypes,
		DiscardsOutput: true,
		Quiet:          true,
		Summary:        "Instead of Stop, when the turn ended because of an API error (error: rate_limit, overloaded, …). For logging only.",
		Exit2:          "Ignored, like everything the hook prints (the run history keeps it).",
		Answer:         "none: the output is discarded",
	},
	{
		Event:            TeammateIdle,
		Fields:           []string{"teammate_name", "team_name"},
		Defaults:         map[string]string{"team_name": `""`, "teammate_name": `""`},
		HookTypes:        AllHookTypes,
		CanBlock:         true,
		OnFailureIgnored: true,
		Summary:          "When an agent-team teammate is about to go idle. Can keep it working.",
		Exit2:            "The teammate gets stderr as feedback and keeps working.",
		Answer:           "`continue: false` stops the teammate; keep it working with exit 2",
	},
	{
		Event:          InstructionsLoaded,
		MatchField:     "load_reason",
		MatcherValues:  []string{"session_start", "nested_traversal", "path_glob_match", "include", "compact"},
		Fields:         []string{"file_path", "memory_type", "load_reason", "globs", "trigger_file_path", "parent_file_path"},
		Defaults:       map[string]string{"file_path": `""`, "load_reason": `""`, "memory_type": `""`},
		Optional:       map[string]string{"globs": "an array", "parent_file_path": "a string", "trigger_file_path": "a string"},
		HookTypes:      NoModelHookTypes,
		DiscardsOutput: true,
		Quiet:          true,
		Summary:        "When the agent host loads an instructions file (CLAUDE.md, rules) into context. For observability only.",
		Exit2:          "Ignored, like everything the hook prints (the run history keeps it).",
		Answer:         "none: the output is discarded",
	},
	{
		Event:         ConfigChange,
		MatchField:    "source",
		MatcherValues: []string{"user_settings", "project_settings", "local_settings", "policy_settings", "skills"},
		Fields:        []string{"source", "file_path"},
		Optional:      map[string]string{"file_path": "a string"},
		HookTypes:     NoModelHookTypes,
		CanBlock:      true,
		Discards:      []string{"continue", "systemMessage"},
		ServerFired:   true,
		Summary:       "When a settings file changes (source: user_settings, project_settings, local_settings, policy_settings). Fired by the server itself; can block the change.",
		Exit2:         "The change does not take effect (policy_settings changes always do); stderr is not shown.",
		Answer:        "`decision: \"block\"`: the change does not take effect (systemMessage and continue are discarded)",
	},
	{
		Event:     CwdChanged,
		Fields:    []string{"old_cwd", "new_cwd"},
		Defaults:  map[string]string{"new_cwd": `""`, "old_cwd": `""`},
		HookTypes: NoModelHookTypes,
		Reads:     []string{"watchPaths"},
		Discards:  []string{"continue"},
		Summary:   "When the agent's working directory changes. watchPaths sets the files FileChanged watches.",
		Exit2:     "Shows stderr to the user only.",
		Answer:    "`hookSpecificOutput.watchPaths`: absolute paths FileChanged watches (continue is discarded)",
	},
	{
		Event:         DirectoryAdded,
		MatchField:    "source",
		MatcherValues: []string{"slash_command", "register_repo_root", "workspace_folder"},
		Fields:        []string{"directory", "source"},
		Defaults:      map[string]string{"directory": `""`},
		HookTypes:     NoModelHookTypes,
		Discards:      []string{"continue"},
		Quiet:         true,
		ServerFired:   true,
		Summary:       "When a working directory is added (source: slash_command, register_repo_root, workspace_folder from the editor). Fired by the server for new workspace folders.",
		Exit2:         "Ignored: the directory is already added (the run history keeps stderr).",
		Answer:        "`systemMessage` becomes context for the model when the source is slash_command (continue is discarded)",
	},
	{
		Event:         FileChanged,
		MatchField:    "file_path",
		MatcherDoc:    "the `|`-separated names of the files to watch in the project root; compared with the changed file's name",
		MatcherValues: []string{".envrc", ".env"},
		Fields:        []string{"file_path", "event"},
		Defaults:      map[string]string{"event": `""`, "file_path": `""`},
		HookTypes:     NoModelHookTypes,
		Reads:         []string{"watchPaths"},
		Discards:      []string{"continue"},
		ServerFired:   true,
		Summary:       "When a watched file changes (event: change, add, unlink). The matcher names the files to watch and is compared with the file's name.",
		Exit2:         "Shows stderr to the user only.",
		Answer:        "`hookSpecificOutput.watchPaths`: absolute paths FileChanged watches (continue is discarded)",
	},
	{
		Event:     WorktreeCreate,
		Fields:    []string{"name"},
		Defaults:  map[string]string{"name": `""`},
		HookTypes: NoModelHookTypes,
		Reads:     []string{"worktreePath"},
		Summary:   "When a worktree is created; the hook creates it and prints its path as the last line of stdout.",
		Exit2:     "Any non-zero exit fails the worktree creation.",
		Answer:    "none: print the worktree's path as the last line of stdout (an http-style `hookSpecificOutput.worktreePath` is read too)",
	},
	{
		Event:          WorktreeRemove,
		Fields:         []string{"worktree_path"},
		Defaults:       map[string]string{"worktree_path": `""`},
		HookTypes:      NoModelHookTypes,
		DiscardsOutput: true,
		Quiet:          true,
		Summary:        "When a worktree is removed. For cleanup; cannot block.",
		Exit2:          "Ignored (the run history keeps stderr).",
		Answer:         "none: the output is discarded",
	},
	{
		Event:      Elicitation,
		MatchField: "mcp_server_name",
		Fields:     []string{"mcp_server_name", "message", "mode", "url", "elicitation_id", "requested_schema"},
		Defaults:   map[string]string{"mcp_server_name": `""`, "message": `""`},
		Optional:   map[string]string{"elicitation_id": "a string", "mode": "a string", "requested_schema": "an object", "url": "a string"},
		HookTypes:  NoModelHookTypes,
		CanBlock:   true,
		Reads:      []string{"action", "content"},
		Discards:   []string{"continue", "systemMessage"},
		Summary:    "When an MCP server asks the user for input. Can answer for the user (action, content).",
		Exit2:      "Declines the elicitation; stderr is not shown.",
		Answer:     "`hookSpecificOutput.action` accept / decline / cancel, `content` (the form's values for accept)",
	},
	{
		Event:      ElicitationResult,
		MatchField: "mcp_server_name",
		Fields:     []string{"mcp_server_name", "action", "mode", "elicitation_id", "content"},
		Defaults:   map[string]string{"action": `""`, "mcp_server_name": `""`},
		Optional:   map[string]string{"content": "an object", "elicitation_id": "a string", "mode": "a string"},
		HookTypes:  NoModelHookTypes,
		CanBlock:   true,
		Reads:      []string{"action", "content"},
		Discards:   []string{"continue", "systemMessage"},
		Summary:    "After the user answered an MCP elicitation, before the answer is sent. Can override it (action, content).",
		Exit2:      "The answer becomes decline; stderr is not shown.",
		Answer:     "`hookSpecificOutput.action` and `content` override the user's answer",
	},
	{
		Event:               PreModelSwitch,
		HookTypes:           NoModelHookTypes,
		DecidesPermission:   true,
		PermissionDecisions: []string{"allow", "deny", "ask"},
		Summary:             "Before the agent switches to another model (/model). Can allow, deny or ask the user; the host applies the decision. Claude Code 2.1.332 also sends from_model, to_model, requested_model and source (measured); a host sends what it knows.",
		Exit2:               "Denies the switch (the model stays); stderr is the reason shown to the user.",
		Answer:              "`hookSpecificOutput.permissionDecision` allow / deny / ask, `permissionDecisionReason`",
	},
	{
		Event:     PostModelSwitch,
		HookTypes: NoModelHookTypes,
		Summary:   "After the agent switched to another model. Can add context for the model.",
		Exit2:     "Shows stderr to the user only.",
		Answer:    "`additionalContext`",
	},
	{
		Event:               PreSkillShellCommand,
		MatchField:          "tool_name",
		MatcherValues:       []string{"Bash", "PowerShell"},
		Fields:              []string{"tool_name", "tool_input", "tool_use_id", "command_name", "command_source", "invoked_by"},
		Defaults:            map[string]string{"command_name": `""`, "invoked_by": `"other"`},
		Optional:            map[string]string{"command_source": "a string"},
		PermissionMode:      true,
		HookTypes:           NoModelHookTypes,
		DecidesPermission:   true,
		PermissionDecisions: []string{"allow", "deny", "ask", "defer"},
		Summary:             "Before a shell command written inside a skill or slash command runs (tool_name: Bash or PowerShell; invoked_by: user, claude, other). Only a refusal counts: deny, ask, defer, decision \"block\" or any updatedInput keep the command from running; allow adds nothing.",
		Exit2:               "The command does not run; its output becomes `[not run: blocked by hook: <stderr>]`.",
		Answer:              "`hookSpecificOutput.permissionDecision` deny / ask / defer (all keep the command from running; allow adds nothing), `permissionDecisionReason`; any `updatedInput` keeps it from running (it is never applied); `decision: \"block\"` + `reason` refuses",
	},
}

// eventSpecs indexes the table by event.
var eventSpecs = func() map[Event]EventSpec {
	m := make(map[Event]EventSpec, len(table))
	for _, s := range table {
		m[s.Event] = s
	}
	return m
}()

// Table lists every event's row, in the table's order, for the consumers'
// tests and for docs generated from it.
func Table() []EventSpec { return slices.Clone(table) }

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
// something for the event (EventSpec.CanBlock).
func (e Event) CanBlock() bool { return eventSpecs[e].CanBlock }

// DecidesPermission reports whether the event's hooks decide a permission
// (EventSpec.DecidesPermission).
func (e Event) DecidesPermission() bool { return eventSpecs[e].DecidesPermission }

// UsesMatcher reports whether the event compares its matcher with a stdin field.
func (e Event) UsesMatcher() bool { return eventSpecs[e].MatchField != "" }

// Reads reports whether the event reads the hookSpecificOutput field, of
// those only some events read (EventSpec.Reads).
func (e Event) Reads(field string) bool { return slices.Contains(eventSpecs[e].Reads, field) }

// Discards reports whether the event discards the top-level answer field
// (EventSpec.Discards).
func (e Event) Discards(field string) bool { return slices.Contains(eventSpecs[e].Discards, field) }
