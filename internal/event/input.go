package event

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
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
	// PromptID identifies the user prompt being processed, when the client
	// gave one; PermissionMode is the agent's permission mode ("" is
	// "default"); Effort is the effort level of the turn, when known. They
	// reach the events Claude Code sends them on (docs/hooks.md).
	PromptID       string
	PermissionMode string
	Effort         string

	ToolName     string
	ToolInput    json.RawMessage
	ToolUseID    string
	ToolResponse json.RawMessage
	// DurationMs is how long the tool ran (PostToolUse), when the client said.
	DurationMs *int64
	Prompt     string
	Source     string // SessionStart
	Reason     string // SessionEnd
	// StopHookActive is true when a Stop hook already blocked the previous stop.
	StopHookActive bool
	// LastAssistantMessage is the text of the agent's last message (Stop).
	LastAssistantMessage string

	Extra map[string]json.RawMessage
	// Order is the order of the keys of the JSON object the client sent,
	// when it sent one (wave/runHooks, `wavehooks run`): the stdin keeps
	// their order, so a hook that echoes its input sees what the client sent.
	Order []string
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

// aliasFields are the names hooks written for Wave's earlier releases read,
// sent beside Claude Code's: user_prompt is prompt, end_source is reason.
var aliasFields = map[string]string{"user_prompt": "prompt", "end_source": "reason"}

// stdinField is one key of a hook's stdin, with its JSON value.
type stdinField struct {
	key   string
	value json.RawMessage
}

// MarshalStdin builds the exact JSON a hook reads on stdin, followed by a
// newline. Fields that belong to the event are always present (an absent tool
// input is sent as {}), so `jq -r .tool_input` never sees null by accident.
// Keys come in Claude Code's order (common fields, then the event's), or in
// the order the client sent them; values the client sent are passed through
// as they are, so the keys of a tool_input keep their order too.
func (in *Input) MarshalStdin() ([]byte, error) {
	fields, err := in.stdinFields()
	if err != nil {
		return nil, err
	}
	return writeObject(fields), nil
}

// stdinFields lists the stdin's keys and values in order.
func (in *Input) stdinFields() ([]stdinField, error) {
	var fields []stdinField
	var err error
	add := func(key string, v any) {
		raw, ok := v.(json.RawMessage)
		if !ok {
			raw, err = marshalNoEscape(v)
		}
		fields = append(fields, stdinField{key, raw})
	}
	add("session_id", in.SessionID)
	add("transcript_path", in.TranscriptPath)
	add("cwd", in.Cwd)
	if id := in.stringField("prompt_id", in.PromptID); id != "" {
		add("prompt_id", id)
	}
	if eventSpecs[in.Event].PermissionMode || slices.Contains(in.Order, "permission_mode") {
		add("permission_mode", cmp.Or(in.stringField("permission_mode", in.PermissionMode), "default"))
	}
	if raw, ok := in.Extra["effort"]; ok && in.Effort == "" {
		add("effort", raw)
	} else if in.Effort != "" && eventSpecs[in.Event].Effort {
		add("effort", map[string]string{"level": in.Effort})
	}
	add("hook_event_name", in.Event)
	for _, k := range eventSpecs[in.Event].Fields {
		if v, ok := in.eventField(k); ok {
			add(k, v)
		}
	}
	placed := map[string]bool{}
	for _, f := range fields {
		placed[f.key] = true
	}
	var extra []string
	for k, v := range in.Extra {
		if !placed[k] && json.Valid(v) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		add(k, in.Extra[k])
	}
	if err != nil {
		return nil, err
	}
	return orderLike(fields, in.Order), nil
}

// stringField is a typed string field, or the client's value of key.
func (in *Input) stringField(key, typed string) string {
	if typed != "" {
		return typed
	}
	var s string
	if raw, ok := in.Extra[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// eventField is the value of one of the event's fields: its typed field,
// what the client sent, or the documented default; ok is false for an
// optional field without a value.
func (in *Input) eventField(k string) (any, bool) {
	if alias, ok := aliasFields[k]; ok {
		k = alias
	}
	switch k {
	case "tool_name":
		return in.ToolName, true
	case "tool_input":
		return rawjson.OrEmptyObject(in.ToolInput), true
	case "tool_use_id":
		return in.ToolUseID, true
	case "tool_response":
		return rawjson.OrEmptyObject(in.ToolResponse), true
	case "prompt":
		return in.Prompt, true
	case "source":
		if in.Source != "" || in.Event != UserPromptSubmit {
			return in.Source, true
		}
		// UserPromptSubmit's source is optional: the client's, if any.
	case "reason":
		return in.Reason, true
	case "stop_hook_active":
		return in.StopHookActive, true
	case "duration_ms":
		if in.DurationMs != nil {
			return *in.DurationMs, true
		}
	case "last_assistant_message":
		if in.LastAssistantMessage != "" {
			return in.LastAssistantMessage, true
		}
	}
	if raw, ok := in.Extra[k]; ok && json.Valid(raw) {
		return raw, true
	}
	if def, ok := fieldDefaults[in.Event][k]; ok {
		return def, true
	}
	return nil, false
}

// orderLike puts fields in the client's key order: the keys it sent keep
// their order, and each key it did not send follows the key it follows in
// Claude Code's order.
func orderLike(fields []stdinField, order []string) []stdinField {
	if len(order) == 0 {
		return fields
	}
	byKey := make(map[string]stdinField, len(fields))
	for _, f := range fields {
		byKey[f.key] = f
	}
	out := make([]stdinField, 0, len(fields))
	sent := map[string]bool{}
	for _, k := range order {
		if f, ok := byKey[k]; ok && !sent[k] {
			sent[k] = true
			out = append(out, f)
		}
	}
	prev := -1 // where the previous key of fields is in out
	for _, f := range fields {
		if sent[f.key] {
			for i := range out {
				if out[i].key == f.key {
					prev = i
				}
			}
			continue
		}
		prev++
		out = slices.Insert(out, prev, f)
	}
	return out
}

// writeObject writes fields as one JSON object on one line, and a newline.
func writeObject(fields []stdinField) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := marshalNoEscape(f.key)
		b.Write(key)
		b.WriteByte(':')
		if err := json.Compact(&b, f.value); err != nil {
			b.WriteString("null")
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// marshalNoEscape is json.Marshal without escaping <, > and &, as a
// JavaScript program (Claude Code) writes JSON.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// fieldDefaults are the rows' Defaults by event, as JSON
// (EventSpec.Defaults).
var fieldDefaults = func() map[Event]map[string]json.RawMessage {
	m := map[Event]map[string]json.RawMessage{}
	for _, s := range table {
		if s.Defaults == nil {
			continue
		}
		d := make(map[string]json.RawMessage, len(s.Defaults))
		for k, v := range s.Defaults {
			d[k] = json.RawMessage(v)
		}
		m[s.Event] = d
	}
	return m
}()

// VSCodeStdin is the stdin of VS Code's hooks: Claude Code's fields and,
// after them, the common fields VS Code sends: timestamp, sessionId and
// hookEventName.
func (in *Input) VSCodeStdin() []byte {
	fields, err := in.stdinFields()
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, f := range fields {
		have[f.key] = true
	}
	for _, kv := range []struct {
		key string
		v   any
	}{{"timestamp", time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}, {"sessionId", in.SessionID}, {"hookEventName", in.Event}} {
		if !have[kv.key] {
			raw, _ := marshalNoEscape(kv.v)
			fields = append(fields, stdinField{kv.key, raw})
		}
	}
	return writeObject(fields)
}

// ParseInput reads a hook input as a hook would receive it (the stdin JSON
// of docs/hooks.md, "stdin"), for `wavehooks run` and wave/runHooks. Fields the
// event does not type are kept in Extra, so they still reach the hooks, and
// the order of the keys is kept in Order.
func ParseInput(ev Event, data []byte) (Input, error) {
	in := Input{Event: ev}
	var m map[string]json.RawMessage
	if rawjson.TooDeep(data, rawjson.MaxDepth) {
		return in, fmt.Errorf("hook input must be a JSON object nested at most %d levels deep", rawjson.MaxDepth)
	}
	if len(BytesTrim(data)) > 0 {
		// segmentio's decoder, leaving the values in data: a tool input
		// can be 100 MB, which encoding/json would check a byte at a time
		// and copy. The session checks it with encoding/json before storing it.
		if err := unmarshalInPlace(data, &m); err != nil {
			return in, fmt.Errorf("hook input must be a JSON object: %w", err)
		}
		in.Order = objectKeys(data)
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
	var userPrompt, endSource string
	for key, dst := range map[string]*string{"session_id": &in.SessionID, "transcript_path": &in.TranscriptPath, "cwd": &in.Cwd,
		"tool_name": &in.ToolName, "tool_use_id": &in.ToolUseID, "prompt": &in.Prompt, "source": &in.Source, "reason": &in.Reason,
		"prompt_id": &in.PromptID, "permission_mode": &in.PermissionMode, "last_assistant_message": &in.LastAssistantMessage,
		"user_prompt": &userPrompt, "end_source": &endSource} {
		if err := str(key, dst); err != nil {
			return in, err
		}
	}
	in.Prompt, in.Reason = cmp.Or(in.Prompt, userPrompt), cmp.Or(in.Reason, endSource)
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
	if v, ok := m["duration_ms"]; ok {
		var ms int64
		if json.Unmarshal(v, &ms) == nil {
			in.DurationMs = &ms
			delete(m, "duration_ms")
		}
	}
	if v, ok := m["effort"]; ok {
		var e struct {
			Level *string `json:"level"`
		}
		if json.Unmarshal(v, &e) != nil || e.Level == nil {
			return in, fmt.Errorf(`effort must be an object like {"level": "high"}`)
		}
	}
	if len(in.ToolInput) > 0 && BytesTrim(in.ToolInput)[0] != '{' && string(in.ToolInput) != "null" {
		return in, fmt.Errorf("tool_input must be an object")
	}
	for key, def := range fieldDefaults[ev] {
		raw, ok := m[key]
		if !ok || string(raw) == "null" {
			continue
		}
		if want := rawjson.Kind(def); rawjson.Kind(raw) != want {
			return in, fmt.Errorf("%s must be %s", key, want)
		}
	}
	if err := checkOptionalFields(ev, m); err != nil {
		return in, err
	}
	if err := CheckSkillShellCommand(&in); err != nil {
		return in, err
	}
	if len(m) > 0 {
		in.Extra = m
	}
	return in, nil
}

// EffortLevel is the effort level of the turn, from the typed field or
// the client's "effort" object; "" when unknown.
func (in *Input) EffortLevel() string {
	if in.Effort != "" {
		return in.Effort
	}
	var e struct {
		Level string `json:"level"`
	}
	if raw, ok := in.Extra["effort"]; ok {
		_ = json.Unmarshal(raw, &e)
	}
	return e.Level
}

// objectKeys lists the top-level keys of a JSON object in order.
func objectKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		keys = append(keys, key)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func BytesTrim(b []byte) []byte { return bytes.TrimSpace(b) }

// unmarshalInPlace decodes like json.Unmarshal (segmentio's decoder), with
// json.RawMessage values pointing into data, which must not change after.
func unmarshalInPlace(data []byte, v any) error {
	rest, err := fastjson.Parse(data, v, fastjson.DontCopyRawMessage)
	if err != nil {
		return err
	}
	if t := BytesTrim(rest); len(t) > 0 {
		return fmt.Errorf("invalid character %q after top-level value", t[0])
	}
	return nil
}
