package session

import "fmt"

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
