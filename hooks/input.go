package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/wavehooks/wavehooks/internal/rawjson"
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

var emptyObject = json.RawMessage(`{}`)

// MarshalStdin builds the exact JSON a hook reads on stdin, followed by a
// newline. Fields that belong to the event are always present (an absent tool
// input is sent as {}), so `jq -r .tool_input` never sees null by accident.
// Like Claude Code's, it is one line and does not escape <, > and & (a hook
// that greps its stdin for "&&" finds it).
//
// The common fields come first, so that a person reading a hook's stdin
// finds them there, then the event's own (docs/hooks.md). They are written one
// by one, so that the tool input
// and response (already validated: a 100 MB tool input is possible) are
// copied rather than validated and compacted again by encoding/json, which
// would cost more than the rest of the event (docs/performance.md, "Large
// frames").
func (in *Input) MarshalStdin() ([]byte, error) {
	has := map[string]bool{}
	for _, f := range eventSpecs[in.Event].Fields {
		has[f] = true
	}
	w := stdinWriter{buf: make([]byte, 0, len(in.ToolInput)+len(in.ToolResponse)+len(in.Prompt)+1024)}
	w.buf = append(w.buf, '{')
	w.value("session_id", in.SessionID)
	w.value("transcript_path", in.TranscriptPath)
	w.value("cwd", in.Cwd)
	w.value("hook_event_name", in.Event)
	if has["tool_name"] {
		w.value("tool_name", in.ToolName)
	}
	if has["tool_input"] {
		w.raw("tool_input", orEmpty(in.ToolInput))
	}
	if has["tool_use_id"] {
		w.value("tool_use_id", in.ToolUseID)
	}
	if has["tool_response"] {
		w.raw("tool_response", orEmpty(in.ToolResponse))
	}
	if has["prompt"] {
		w.value("prompt", in.Prompt)
	}
	if has["source"] {
		w.value("source", in.Source)
	}
	if has["reason"] {
		w.value("reason", in.Reason)
	}
	if has["stop_hook_active"] {
		w.value("stop_hook_active", in.StopHookActive)
	}
	if w.err != nil {
		return nil, w.err
	}
	b := append(w.buf, '}')
	if defaults := fieldDefaults[in.Event]; len(in.Extra) > 0 || len(defaults) > 0 {
		var err error
		if b, err = mergeExtra(b, in.Extra, defaults); err != nil {
			return nil, err
		}
	}
	return append(b, '\n'), nil
}

// stdinWriter appends the members of a JSON object; the first error sticks.
type stdinWriter struct {
	buf []byte
	err error
}

func (w *stdinWriter) key(name string) {
	if len(w.buf) > 1 {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(append(append(w.buf, '"'), name...), `":`...)
}

// value appends a small value as encoding/json does, without HTML escaping.
func (w *stdinWriter) value(name string, v any) {
	if w.err != nil {
		return
	}
	w.key(name)
	w.buf, w.err = appendJSONValue(w.buf, v)
}

// raw appends JSON that was validated when it came in, compacted if need be.
func (w *stdinWriter) raw(name string, v json.RawMessage) {
	if w.err != nil {
		return
	}
	w.key(name)
	w.buf, w.err = rawjson.AppendCompact(w.buf, v)
}

// appendJSONValue appends v encoded by encoding/json without HTML escaping.
func appendJSONValue(dst []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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
	return appendJSONValue(nil, m)
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
	if rawjson.TooDeep(data, rawjson.MaxDepth) {
		return in, fmt.Errorf("hook input must be a JSON object nested at most %d levels deep", rawjson.MaxDepth)
	}
	if len(bytesTrim(data)) > 0 {
		// segmentio's decoder, leaving the values in data: a tool input
		// can be 100 MB, which encoding/json would check a byte at a time
		// and copy. The session checks it with encoding/json before storing it.
		if err := unmarshalInPlace(data, &m); err != nil {
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

// unmarshalInPlace decodes like json.Unmarshal (segmentio's decoder), with
// json.RawMessage values pointing into data, which must not change after.
func unmarshalInPlace(data []byte, v any) error {
	rest, err := fastjson.Parse(data, v, fastjson.DontCopyRawMessage)
	if err != nil {
		return err
	}
	if t := bytesTrim(rest); len(t) > 0 {
		return fmt.Errorf("invalid character %q after top-level value", t[0])
	}
	return nil
}
