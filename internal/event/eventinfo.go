package event

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// MatcherValues are the values an event's matcher is usually written with,
// as Claude Code documents them, for completion in a settings file; the
// tool events offer KnownTools instead, and events matched on names the
// user chose (commands, MCP servers, files) offer none.
var MatcherValues = map[Event][]string{
	SessionStart:       {"startup", "resume", "clear", "compact"},
	SessionEnd:         {"clear", "resume", "logout", "prompt_input_exit", "other"},
	Setup:              {"init", "maintenance"},
	Notification:       {"permission_prompt", "idle_prompt", "auth_success", "elicitation_dialog", "elicitation_url_dialog", "elicitation_complete", "elicitation_response", "agent_needs_input", "agent_completed"},
	SubagentStart:      {"general-purpose", "Explore", "Plan"},
	SubagentStop:       {"general-purpose", "Explore", "Plan"},
	PreCompact:         {"manual", "auto"},
	PostCompact:        {"manual", "auto"},
	ConfigChange:       {"user_settings", "project_settings", "local_settings", "policy_settings", "skills"},
	DirectoryAdded:     {"slash_command", "register_repo_root", "workspace_folder"},
	StopFailure:        {"rate_limit", "overloaded", "authentication_failed", "oauth_org_not_allowed", "billing_error", "invalid_request", "model_not_found", "server_error", "max_output_tokens", "unknown"},
	InstructionsLoaded: {"session_start", "nested_traversal", "path_glob_match", "include", "compact"},
	FileChanged:        {".envrc", ".env"},
	// PreSkillShellCommand's tool_name is the shell that runs the command.
	PreSkillShellCommand: {"Bash", "PowerShell"},
}

// ToolEvent reports whether the event's matcher is compared with a tool
// name (for PreSkillShellCommand, the shell's: MatcherValues lists them).
func ToolEvent(e Event) bool { return eventSpecs[e].MatchField == "tool_name" }

// OutputDocs says, per event, what a hook's JSON answer can do beyond the
// fields every event reads (continue, stopReason, systemMessage,
// terminalSequence), for hover.
var OutputDocs = map[Event]string{
	PreToolUse:          "`hookSpecificOutput.permissionDecision` allow / deny / ask / defer, `permissionDecisionReason`, `updatedInput`, `additionalContext`, `permissionDisplay` (for the host's prompt)",
	PostToolUse:         "`decision: \"block\"` + `reason` (feedback for the model), `additionalContext`, `updatedToolOutput` / `updatedMCPToolOutput`, `classifierContext` (for an auto mode classifier, not the model)",
	UserPromptSubmit:    "`decision: \"block\"` + `reason` (for the user), `suppressOriginalPrompt`, `additionalContext`, `sessionTitle`, `updatedPrompt` (wavehooks' own extension: the prompt the model sees instead)",
	Stop:                "`decision: \"block\"` + `reason` (the agent continues)",
	SessionStart:        "`additionalContext`; `hookSpecificOutput.watchPaths`: absolute paths FileChanged watches; `initialUserMessage`, `sessionTitle`, `reloadSkills` for the agent host",
	SessionEnd:          "none",
	PostToolUseFailure:  "`additionalContext`; `decision: \"block\"` + `reason`",
	SubagentStart:       "`additionalContext`, for the subagent",
	SubagentStop:        "`decision: \"block\"` + `reason`, for the subagent",
	PreCompact:          "`decision: \"block\"` + `reason`",
	PostCompact:         "`additionalContext`",
	Notification:        "`additionalContext`",
	PermissionRequest:   "`hookSpecificOutput.decision`: `{\"behavior\": \"allow\", \"updatedInput\": …}` or `{\"behavior\": \"deny\", \"message\": …, \"interrupt\": true}`",
	Setup:               "`additionalContext` (plain stdout is not context)",
	UserPromptExpansion: "`decision: \"block\"` + `reason` (for the user), `suppressOriginalPrompt`, `additionalContext`; plain stdout is context",
	PermissionDenied:    "`hookSpecificOutput.retry: true`: the model is told it may make the call again once, only if the user asked for what it does (Claude Code's meaning since 2.1.331)",
	PostToolBatch:       "`additionalContext`; `decision: \"block\"` + `reason` or `continue: false` stop the loop",
	MessageDisplay:      "`hookSpecificOutput.displayContent` replaces the displayed text (systemMessage and continue are discarded)",
	TaskCreated:         "`decision: \"block\"` + `reason`: the task is not created (continue is ignored)",
	TaskCompleted:       "`continue: false` stops the teammate; refuse the completion with exit 2",
	StopFailure:         "none: the output is discarded",
	TeammateIdle:        "`continue: false` stops the teammate; keep it working with exit 2",
	InstructionsLoaded:  "none: the output is discarded",
	ConfigChange:        "`decision: \"block\"`: the change does not take effect (systemMessage and continue are discarded)",
	CwdChanged:          "`hookSpecificOutput.watchPaths`: absolute paths FileChanged watches (continue is discarded)",
	DirectoryAdded:      "`systemMessage` becomes context for the model when the source is slash_command (continue is discarded)",
	FileChanged:         "`hookSpecificOutput.watchPaths`: absolute paths FileChanged watches (continue is discarded)",
	WorktreeCreate:      "none: print the worktree's path as the last line of stdout (an http-style `hookSpecificOutput.worktreePath` is read too)",
	WorktreeRemove:      "none: the output is discarded",
	Elicitation:         "`hookSpecificOutput.action` accept / decline / cancel, `content` (the form's values for accept)",
	ElicitationResult:   "`hookSpecificOutput.action` and `content` override the user's answer",
	PreModelSwitch:      "`hookSpecificOutput.permissionDecision` allow / deny / ask, `permissionDecisionReason`",
	PostModelSwitch:     "`additionalContext`",
	PreSkillShellCommand: "`hookSpecificOutput.permissionDecision` deny / ask / defer (all keep the command from running; allow adds nothing), " +
		"`permissionDecisionReason`; any `updatedInput` keeps it from running (it is never applied); `decision: \"block\"` + `reason` refuses",
}

// optionalFieldKinds are the stdin fields of the later events (and the
// optional ones of SessionStart and UserPromptSubmit) that the client may
// leave out (they reach the hook only when sent), with the kind of JSON
// value each must be.
var optionalFieldKinds = map[Event]map[string]string{
	TaskCreated:          {"task_description": "a string", "teammate_name": "a string", "team_name": "a string"},
	TaskCompleted:        {"task_description": "a string", "teammate_name": "a string", "team_name": "a string"},
	StopFailure:          {"error_details": "a string", "last_assistant_message": "a string"},
	InstructionsLoaded:   {"globs": "an array", "trigger_file_path": "a string", "parent_file_path": "a string"},
	ConfigChange:         {"file_path": "a string"},
	Elicitation:          {"mode": "a string", "url": "a string", "elicitation_id": "a string", "requested_schema": "an object"},
	ElicitationResult:    {"mode": "a string", "elicitation_id": "a string", "content": "an object"},
	PreSkillShellCommand: {"command_source": "a string"},
	SessionStart: {"model": "a string", "agent_type": "a string", "session_title": "a string", "seconds_since_last_response": "a number",
		"context_tokens": "a number", "prompt_cache_likely_expired": "a boolean", "estimated_cache_write_usd": "a number"},
	UserPromptSubmit: {"session_title": "a string"},
}

// checkOptionalFields refuses an optional field of the wrong kind, and a
// PostToolBatch tool call that is not an object naming its tool.
func checkOptionalFields(ev Event, m map[string]json.RawMessage) error {
	for key, want := range optionalFieldKinds[ev] {
		if raw, ok := m[key]; ok && string(raw) != "null" && rawjson.Kind(raw) != want {
			return fmt.Errorf("%s must be %s", key, want)
		}
	}
	if ev == PreSkillShellCommand {
		if err := checkSkillShellCommand(m); err != nil {
			return err
		}
	}
	if raw, ok := m["tool_calls"]; ok && ev == PostToolBatch && rawjson.Kind(raw) == "an array" {
		var calls []struct {
			ToolName *string `json:"tool_name"`
		}
		if json.Unmarshal(raw, &calls) != nil {
			return fmt.Errorf("tool_calls must be an array of objects like {\"tool_name\": …, \"tool_input\": …, \"tool_use_id\": …, \"tool_response\": …}")
		}
		for i, c := range calls {
			if c.ToolName == nil || *c.ToolName == "" {
				return fmt.Errorf("tool_calls[%d].tool_name is required", i)
			}
		}
	}
	return nil
}

// checkSkillShellCommand refuses a PreSkillShellCommand input whose
// invoked_by is not one of Claude Code's three values. ParseInput has
// taken tool_name and tool_input out of m; CheckSkillShellCommand checks them.
func checkSkillShellCommand(m map[string]json.RawMessage) error {
	if raw, ok := m["invoked_by"]; ok && string(raw) != "null" {
		var by string
		if json.Unmarshal(raw, &by) != nil || (by != "user" && by != "claude" && by != "other") {
			return fmt.Errorf(`invoked_by must be "user", "claude" or "other", not %s`, raw)
		}
	}
	return nil
}

// CheckSkillShellCommand checks what a PreSkillShellCommand hook is told
// about the command: tool_name is the shell that runs it, Bash or
// PowerShell (what the matcher matches), and tool_input.command is the
// command as it would run. Other events pass.
func CheckSkillShellCommand(in *Input) error {
	if in.Event != PreSkillShellCommand {
		return nil
	}
	if in.ToolName != "Bash" && in.ToolName != "PowerShell" {
		return fmt.Errorf(`tool_name must be "Bash" or "PowerShell" (the shell that runs the command), not %q`, in.ToolName)
	}
	var ti struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(in.ToolInput, &ti) != nil || ti.Command == nil {
		return fmt.Errorf(`tool_input must be an object like {"command": "git status"}`)
	}
	return nil
}

// changedFileName is FileChanged's match value: the name of the file in
// file_path.
func changedFileName(extra map[string]json.RawMessage) string {
	var p string
	if raw, ok := extra["file_path"]; ok {
		_ = json.Unmarshal(raw, &p)
	}
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

// LaterSample fills a plausible input of one of Claude Code's later events
// into in, for "Run hook".
func LaterSample(in *Input) {
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	root := in.Cwd
	switch in.Event {
	case Setup:
		in.Extra = raw("trigger", `"init"`)
	case UserPromptExpansion:
		in.Prompt = "/review src/parser.go"
		in.Extra = raw("expansion_type", `"slash_command"`, "command_name", `"review"`, "command_args", `"src/parser.go"`, "command_source", `"project"`)
	case PermissionDenied:
		in.ToolName, in.ToolUseID, in.Reason = "Bash", "toolu_sample", "Blocked by classifier"
		in.ToolInput = json.RawMessage(`{"command":"rm -rf build","description":"Clean the build"}`)
	case PostToolBatch:
		in.Extra = raw("tool_calls", `[{"tool_name":"Read","tool_input":{"file_path":"README.md"},"tool_use_id":"toolu_1","tool_response":"1\thello"},`+
			`{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_2","tool_response":"README.md"}]`)
	case MessageDisplay:
		in.Extra = raw("turn_id", `"turn_sample"`, "message_id", `"message_sample"`, "index", `0`, "final", `true`, "delta", `"Here is **the plan**.\n"`)
	case TaskCreated, TaskCompleted:
		in.Extra = raw("task_id", `"task-001"`, "task_subject", `"Add a test for the parser"`, "task_description", `"Cover empty input"`)
	case StopFailure:
		in.Extra = raw("error", `"rate_limit"`, "error_details", `"429 Too Many Requests"`, "last_assistant_message", `"API Error: Rate limit reached"`)
	case TeammateIdle:
		in.Extra = raw("teammate_name", `"researcher"`, "team_name", `"team_sample"`)
	case InstructionsLoaded:
		p, _ := json.Marshal(filepath.Join(root, "CLAUDE.md"))
		in.Extra = raw("file_path", string(p), "memory_type", `"Project"`, "load_reason", `"session_start"`)
	case ConfigChange:
		p, _ := json.Marshal(filepath.Join(root, ".wave", "settings.json"))
		in.Source, in.Extra = "project_settings", raw("file_path", string(p))
	case CwdChanged:
		o, _ := json.Marshal(root)
		n, _ := json.Marshal(filepath.Join(root, "src"))
		in.Extra = raw("old_cwd", string(o), "new_cwd", string(n))
	case DirectoryAdded:
		d, _ := json.Marshal(filepath.Join(filepath.Dir(root), "other-repo"))
		in.Source, in.Extra = "slash_command", raw("directory", string(d))
	case FileChanged:
		p, _ := json.Marshal(filepath.Join(root, ".envrc"))
		in.Extra = raw("file_path", string(p), "event", `"change"`)
	case WorktreeCreate:
		in.Extra = raw("name", `"sample-worktree"`)
	case WorktreeRemove:
		p, _ := json.Marshal(filepath.Join(root, ".wave", "worktrees", "sample-worktree"))
		in.Extra = raw("worktree_path", string(p))
	case Elicitation:
		in.Extra = raw("mcp_server_name", `"sample-server"`, "message", `"Please provide your username"`, "mode", `"form"`,
			"requested_schema", `{"type":"object","properties":{"username":{"type":"string"}}}`)
	case ElicitationResult:
		in.Extra = raw("mcp_server_name", `"sample-server"`, "action", `"accept"`, "content", `{"username":"alice"}`, "mode", `"form"`)
	case PreSkillShellCommand:
		in.ToolName, in.ToolUseID = "Bash", "toolu_sample:preamble-0"
		in.ToolInput = json.RawMessage(`{"command":"git status --short"}`)
		in.Extra = raw("command_name", `"review"`, "command_source", `"project"`, "invoked_by", `"user"`)
	}
}

// QuietEvents are the events whose hooks' failures Claude Code only writes
// to its debug log: the run history is that log here, so a failure (exit 2
// included) or an answer that does not validate becomes no error or warn
// block, and the run's decision says what happened.
var QuietEvents = map[Event]bool{PermissionDenied: true, MessageDisplay: true, DirectoryAdded: true,
	StopFailure: true, InstructionsLoaded: true, WorktreeRemove: true}
