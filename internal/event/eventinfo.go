package event

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// MatcherValues are the rows' MatcherValues by event, for completion in a
// settings file and for lint (EventSpec.MatcherValues).
var MatcherValues = func() map[Event][]string {
	m := map[Event][]string{}
	for _, s := range table {
		if s.MatcherValues != nil {
			m[s.Event] = s.MatcherValues
		}
	}
	return m
}()

// ToolEvent reports whether the event's matcher is compared with a tool
// name (for PreSkillShellCommand, the shell's: MatcherValues lists them).
func ToolEvent(e Event) bool { return eventSpecs[e].MatchField == "tool_name" }

// checkOptionalFields refuses an optional field of the wrong kind, and a
// PostToolBatch tool call that is not an object naming its tool.
func checkOptionalFields(ev Event, m map[string]json.RawMessage) error {
	for key, want := range eventSpecs[ev].Optional {
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

// Sample fills a plausible input of in.Event into in, for trying a hook
// out from the editor ("Run hook") without an agent: a Bash tool call, a
// prompt, a startup source, and so on. It sits beside the table so that a
// new event's sample is written where its row is.
func Sample(in *Input) {
	raw := func(kv ...string) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = json.RawMessage(kv[i+1])
		}
		return m
	}
	root := in.Cwd
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		in.ToolName, in.ToolUseID = "Bash", "toolu_sample"
		in.ToolInput = json.RawMessage(`{"command":"echo hello","description":"Print hello"}`)
		if in.Event == PostToolUse {
			in.ToolResponse = json.RawMessage(`{"success":true,"content":"hello"}`)
		}
		if in.Event == PostToolUseFailure {
			in.Extra = map[string]json.RawMessage{"error": json.RawMessage(`"exit status 1"`), "is_interrupt": json.RawMessage("false")}
		}
	case UserPromptSubmit:
		in.Prompt = "Please add a test for the parser"
	case SessionStart:
		in.Source = "startup"
	case SessionEnd:
		in.Reason = "other"
	case SubagentStart, SubagentStop:
		in.Extra = map[string]json.RawMessage{"agent_id": json.RawMessage(`"agent_sample"`), "agent_type": json.RawMessage(`"general-purpose"`)}
	case PreCompact:
		in.Extra = map[string]json.RawMessage{"trigger": json.RawMessage(`"manual"`), "custom_instructions": json.RawMessage(`""`)}
	case PostCompact:
		in.Extra = map[string]json.RawMessage{"trigger": json.RawMessage(`"manual"`),
			"compact_summary": json.RawMessage(`"The user and the agent rewrote the parser."`)}
	case Notification:
		in.Extra = map[string]json.RawMessage{"message": json.RawMessage(`"The agent needs your attention"`),
			"title": json.RawMessage(`"Wave"`), "notification_type": json.RawMessage(`"idle_prompt"`)}
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
