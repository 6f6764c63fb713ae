package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Input is everything a hook receives on stdin for one event. The common
// fields are always present; the others only for the events that have them.
// Extra carries fields of events fired through wave/runHooks that have no
// typed field here (for example Notification's "title"); typed fields win over
// Extra when both are set.
type Input struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	Event          Event

	ToolName     string
	ToolInput    json.RawMessage
	ToolUseID    string
	ToolResponse json.RawMessage
	Prompt       string
	Source       string // SessionStart
	Reason       string // SessionEnd
	// StopHookActive is true when a Stop hook already blocked the previous stop.
	StopHookActive bool

	Extra map[string]json.RawMessage
}

// MatchValue is the string the event's matcher is compared with.
// FileChanged's is the name of the changed file (its file_path's last
// element), as Claude Code compares it.
func (in *Input) MatchValue() string {
	if in.Event == FileChanged {
		return changedFileName(in.Extra)
	}
	switch f := eventSpecs[in.Event].MatchField; f {
	case "tool_name":
		return in.ToolName
	case "source":
		return in.Source
	case "reason":
		return in.Reason
	case "":
		return ""
	default:
		var s string
		if raw, ok := in.Extra[f]; ok {
			_ = json.Unmarshal(raw, &s)
		}
		return s
	}
}

// stdinJSON is the wire shape of Input, in the field order of DESIGN.md
// section 4 so that a person reading a hook's stdin finds the common fields first.
type stdinJSON struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  Event           `json:"hook_event_name"`
	ToolName       *string         `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      *string         `json:"tool_use_id,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Prompt         *string         `json:"prompt,omitempty"`
	Source         *string         `json:"source,omitempty"`
	Reason         *string         `json:"reason,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
}

var emptyObject = json.RawMessage(`{}`)

// MarshalStdin builds the exact JSON a hook reads on stdin, followed by a
// newline. Fields that belong to the event are always present (an absent tool
// input is sent as {}), so `jq -r .tool_input` never sees null by accident.
func (in *Input) MarshalStdin() ([]byte, error) {
	w := stdinJSON{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd, HookEventName: in.Event}
	has := map[string]bool{}
	for _, f := range eventSpecs[in.Event].Fields {
		has[f] = true
	}
	if has["tool_name"] {
		w.ToolName = &in.ToolName
	}
	if has["tool_input"] {
		w.ToolInput = orEmpty(in.ToolInput)
	}
	if has["tool_use_id"] {
		w.ToolUseID = &in.ToolUseID
	}
	if has["tool_response"] {
		w.ToolResponse = orEmpty(in.ToolResponse)
	}
	if has["prompt"] {
		w.Prompt = &in.Prompt
	}
	if has["source"] {
		w.Source = &in.Source
	}
	if has["reason"] {
		w.Reason = &in.Reason
	}
	if has["stop_hook_active"] {
		w.StopHookActive = &in.StopHookActive
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	if defaults := fieldDefaults[in.Event]; len(in.Extra) > 0 || len(defaults) > 0 {
		b, err = mergeExtra(b, in.Extra, defaults)
		if err != nil {
			return nil, err
		}
	}
	return append(b, '\n'), nil
}

// fieldDefaults are the values of the documented stdin fields of Claude
// Code's further events that the caller did not give, so that a hook
// written for Claude Code finds every field it reads (`jq -r .trigger`
// prints "" rather than null).
var fieldDefaults = map[Event]map[string]json.RawMessage{
	PostToolUseFailure: {"error": json.RawMessage(`""`), "is_interrupt": json.RawMessage(`false`)},
	SubagentStart:      {"agent_id": json.RawMessage(`""`), "agent_type": json.RawMessage(`""`)},
	SubagentStop:       {"agent_id": json.RawMessage(`""`), "agent_type": json.RawMessage(`""`)},
	PreCompact:         {"trigger": json.RawMessage(`""`), "custom_instructions": json.RawMessage(`""`)},
	PostCompact:        {"trigger": json.RawMessage(`""`), "compact_summary": json.RawMessage(`""`)},
	Notification:       {"message": json.RawMessage(`""`), "title": json.RawMessage(`""`), "notification_type": json.RawMessage(`""`)},
	PermissionRequest:  {"permission_suggestions": json.RawMessage(`[]`)},

	Setup:               {"trigger": json.RawMessage(`""`)},
	UserPromptExpansion: {"expansion_type": json.RawMessage(`""`), "command_name": json.RawMessage(`""`), "command_args": json.RawMessage(`""`), "command_source": json.RawMessage(`""`)},
	PostToolBatch:       {"tool_calls": json.RawMessage(`[]`)},
	MessageDisplay:      {"turn_id": json.RawMessage(`""`), "message_id": json.RawMessage(`""`), "index": json.RawMessage(`0`), "final": json.RawMessage(`false`), "delta": json.RawMessage(`""`)},
	TaskCreated:         {"task_id": json.RawMessage(`""`), "task_subject": json.RawMessage(`""`)},
	TaskCompleted:       {"task_id": json.RawMessage(`""`), "task_subject": json.RawMessage(`""`)},
	StopFailure:         {"error": json.RawMessage(`""`)},
	TeammateIdle:        {"teammate_name": json.RawMessage(`""`), "team_name": json.RawMessage(`""`)},
	InstructionsLoaded:  {"file_path": json.RawMessage(`""`), "memory_type": json.RawMessage(`""`), "load_reason": json.RawMessage(`""`)},
	CwdChanged:          {"old_cwd": json.RawMessage(`""`), "new_cwd": json.RawMessage(`""`)},
	DirectoryAdded:      {"directory": json.RawMessage(`""`)},
	FileChanged:         {"file_path": json.RawMessage(`""`), "event": json.RawMessage(`""`)},
	WorktreeCreate:      {"name": json.RawMessage(`""`)},
	WorktreeRemove:      {"worktree_path": json.RawMessage(`""`)},
	Elicitation:         {"mcp_server_name": json.RawMessage(`""`), "message": json.RawMessage(`""`)},
	ElicitationResult:   {"mcp_server_name": json.RawMessage(`""`), "action": json.RawMessage(`""`)},
}

// mergeExtra adds the extra fields that the typed fields did not already
// set, then the defaults of fields still missing.
func mergeExtra(typed []byte, extra, defaults map[string]json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(typed, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := m[k]; !ok && json.Valid(v) {
			m[k] = v
		}
	}
	for k, v := range defaults {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// vscodeStdin adds to stdin the common fields VS Code's hooks read beside
// Claude Code's: timestamp, sessionId and hookEventName.
func (in *Input) vscodeStdin(stdin []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(stdin, &m) != nil {
		return stdin
	}
	add := func(k string, v any) {
		if _, ok := m[k]; !ok {
			m[k], _ = json.Marshal(v)
		}
	}
	add("timestamp", time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	add("sessionId", in.SessionID)
	add("hookEventName", in.Event)
	b, err := json.Marshal(m)
	if err != nil {
		return stdin
	}
	return append(b, '\n')
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObject
	}
	return raw
}

// ParseInput reads a hook input as a hook would receive it (the stdin JSON
// of DESIGN.md section 4), for `wavehooks run` and wave/runHooks. Fields the
// event does not type are kept in Extra, so they still reach the hooks.
func ParseInput(ev Event, data []byte) (Input, error) {
	in := Input{Event: ev}
	var m map[string]json.RawMessage
	if len(bytesTrim(data)) > 0 {
		if err := json.Unmarshal(data, &m); err != nil {
			return in, fmt.Errorf("hook input must be a JSON object: %w", err)
		}
	}
	str := func(key string, dst *string) error {
		raw, ok := m[key]
		delete(m, key)
		if !ok || string(raw) == "null" {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s must be a string", key)
		}
		return nil
	}
	raw := func(key string) json.RawMessage {
		v := m[key]
		delete(m, key)
		return v
	}
	for key, dst := range map[string]*string{"session_id": &in.SessionID, "transcript_path": &in.TranscriptPath, "cwd": &in.Cwd,
		"tool_name": &in.ToolName, "tool_use_id": &in.ToolUseID, "prompt": &in.Prompt, "source": &in.Source, "reason": &in.Reason} {
		if err := str(key, dst); err != nil {
			return in, err
		}
	}
	if name, ok := m["hook_event_name"]; ok {
		var s string
		if json.Unmarshal(name, &s) != nil || (s != "" && Event(s) != ev) {
			return in, fmt.Errorf("hook_event_name %s does not match the event %s", name, ev)
		}
		delete(m, "hook_event_name")
	}
	in.ToolInput, in.ToolResponse = raw("tool_input"), raw("tool_response")
	if v := raw("stop_hook_active"); v != nil {
		if err := json.Unmarshal(v, &in.StopHookActive); err != nil {
			return in, fmt.Errorf("stop_hook_active must be a boolean")
		}
	}
	if len(in.ToolInput) > 0 && bytesTrim(in.ToolInput)[0] != '{' && string(in.ToolInput) != "null" {
		return in, fmt.Errorf("tool_input must be an object")
	}
	for key, def := range fieldDefaults[ev] {
		raw, ok := m[key]
		if !ok || string(raw) == "null" {
			continue
		}
		if want := kindOf(def); kindOf(raw) != want {
			return in, fmt.Errorf("%s must be %s", key, want)
		}
	}
	if err := checkOptionalFields(ev, m); err != nil {
		return in, err
	}
	if len(m) > 0 {
		in.Extra = m
	}
	return in, nil
}

func bytesTrim(b []byte) []byte { return bytes.TrimSpace(b) }

// kindOf names the kind of a JSON value the way error messages do.
func kindOf(raw json.RawMessage) string {
	b := bytesTrim(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a number"
}
