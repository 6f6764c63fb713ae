package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
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
func (in *Input) MatchValue() string {
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
	if len(in.Extra) > 0 {
		b, err = mergeExtra(b, in.Extra)
		if err != nil {
			return nil, err
		}
	}
	return append(b, '\n'), nil
}

// mergeExtra adds the extra fields that the typed fields did not already set.
func mergeExtra(typed []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(typed, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := m[k]; !ok && json.Valid(v) {
			m[k] = v
		}
	}
	return json.Marshal(m)
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
	if len(m) > 0 {
		in.Extra = m
	}
	return in, nil
}

func bytesTrim(b []byte) []byte { return bytes.TrimSpace(b) }
