package lsp

import (
	"context"
	"errors"
	"fmt"

	"github.com/wavehooks/wavehooks/flow"
	"go.lsp.dev/jsonrpc2"
)

// LSP's own error codes, beyond JSON-RPC's.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestCancelled     jsonrpc2.Code = -32800
)

// paramError is a request whose params are wrong; Field names the culprit so
// the client's author knows what to fix.
type paramError struct {
	Field string
	Msg   string
}

// Error names the field, so the client's author knows what to fix.
func (e *paramError) Error() string {
	if e.Field == "" {
		return "invalid params: " + e.Msg
	}
	return fmt.Sprintf("invalid params: %s: %s", e.Field, e.Msg)
}

func badParam(field, format string, args ...any) error {
	return &paramError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// toRPCError is the one place Go errors become JSON-RPC errors: plain errors
// would go out with code 0, and a wrapped *jsonrpc2.Error would lose its
// outer message, so every handler's error passes through here.
func toRPCError(err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc2.Error
	var pErr *paramError
	var invalid *flow.InvalidError
	switch {
	case errors.As(err, &pErr):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.As(err, &invalid):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+invalid.Error())
	case errors.As(err, &rpcErr):
		return jsonrpc2.NewError(rpcErr.Code, err.Error())
	case errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
	default:
		return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
}
