package hooks

import (
	"encoding/json"
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
