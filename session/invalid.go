package session

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// invalid builds an InvalidError.
func invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ToolCallFields name a tool call's fields the way a request spells them,
// so that an InvalidError names the field the client sent.
type ToolCallFields struct{ ID, Name, Input string }

var (
	// TypedToolCall: wave/preToolUse and wave/postToolUse params, and the
	// Session methods of the same names.
	TypedToolCall = ToolCallFields{"toolUseId", "toolName", "toolInput"}
	// StdinToolCall: a hook's stdin fields, as wave/runHooks's input and
	// `wavehooks run` take them.
	StdinToolCall = ToolCallFields{"input.tool_use_id", "input.tool_name", "input.tool_input"}
)

// CheckToolCall is the one check of a tool call a client reports: it needs
// its tool use id (its block is found by it) and its tool's name, and its
// input, when given, is a JSON object. It returns the input as the session
// keeps it (compact; nil when not given: a later event of the call keeps
// the input an earlier one recorded).
func CheckToolCall(f ToolCallFields, id, name string, input json.RawMessage) (json.RawMessage, error) {
	switch {
	case id == "":
		return nil, invalid(f.ID, "is required")
	case name == "":
		return nil, invalid(f.Name, "is required")
	}
	t := bytes.TrimSpace(input)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if t[0] != '{' {
		return nil, invalid(f.Input, "must be an object")
	}
	in, err := normInput(t)
	if err != nil {
		return nil, invalid(f.Input, "%v", err)
	}
	return in, nil
}
