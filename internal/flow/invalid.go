package flow

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// InvalidError is a caller's mistake in what it asked a session to record
// or run — a repeated tool id, a relative new_cwd, an unknown tool call in a
// batch — as opposed to a failure of the store. The server answers it with
// JSON-RPC's InvalidParams, naming Field, so that the client's author knows
// what to fix; every other session error is the server's own.
type InvalidError struct {
	// Field is where in the request the mistake is, in the request's own
	// spelling ("blocks[1].id", "input.new_cwd"); "" when it is the
	// request as a whole.
	Field string
	Msg   string
}

// Error names the field first, as the server's InvalidParams message does.
func (e *InvalidError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Invalid builds an InvalidError for field.
func Invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ToolCallFields name a tool call's fields the way a request spells them,
// so that an InvalidError names the field the client sent.
type ToolCallFields struct{ ID, Name, Input, Response string }

var (
	// TypedToolCall: wave/preToolUse and wave/postToolUse params, and the
	// Session methods of the same names.
	TypedToolCall = ToolCallFields{"toolUseId", "toolName", "toolInput", "toolResponse"}
	// StdinToolCall: a hook's stdin fields, as wave/runHooks's input and
	// `wavehooks run` take them.
	StdinToolCall = ToolCallFields{"input.tool_use_id", "input.tool_name", "input.tool_input", "input.tool_response"}
)

// CheckToolCall is the one check of a tool call a client reports: it needs
// its tool use id (its block is found by it) and its tool's name, and its
// input, when given, is a JSON object. It returns the input as the session
// keeps it (compact; nil when not given: a later event of the call keeps
// the input an earlier one recorded).
func CheckToolCall(f ToolCallFields, id, name string, input json.RawMessage) (json.RawMessage, error) {
	switch {
	case id == "":
		return nil, Invalid(f.ID, "is required")
	case name == "":
		return nil, Invalid(f.Name, "is required")
	}
	t := bytes.TrimSpace(input)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if t[0] != '{' {
		return nil, Invalid(f.Input, "must be an object")
	}
	in, err := NormJSON(t)
	if err != nil {
		return nil, Invalid(f.Input, "%v", err)
	}
	return in, nil
}

// NormJSON checks JSON from a client before it is stored, and compacts it
// (a session file holds one message per line): null and empty become nil (no
// input), anything else must be valid JSON. Compact JSON, what editors send,
// is returned as it is, sharing raw's memory (a tool input can be 100 MB, and
// the server's frames are never reused): validating it is enough, and
// json.Valid is about twice as fast as json.Compact.
func NormJSON(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if rawjson.IsCompact(t) && json.Valid(t) {
		return t[:len(t):len(t)], nil
	}
	var buf bytes.Buffer
	buf.Grow(len(t)) // compact JSON is never longer: one allocation, however large the input
	if err := json.Compact(&buf, t); err != nil {
		return nil, fmt.Errorf("invalid JSON %.40q: %w", t, err)
	}
	return buf.Bytes(), nil
}
