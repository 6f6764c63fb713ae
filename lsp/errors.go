package lsp

import (
	"context"
	"errors"

	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"go.lsp.dev/jsonrpc2"
)

// badParam is a request whose params are wrong: the same caller's mistake
// as a session's flow.InvalidError, naming the culprit field so the
// client's author knows what to fix, and answered the same way.
func badParam(field, format string, args ...any) error {
	return flow.Invalid(field, format, args...)
}

// toRPCError is the one place Go errors become JSON-RPC errors: plain errors
// would go out with code 0, and a wrapped *jsonrpc2.Error would lose its
// outer message, so every handler's error passes through here.
func toRPCError(err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc2.Error
	var invalid *flow.InvalidError
	switch {
	case errors.As(err, &invalid):
		return jsonrpc2.NewError(rpcerr.InvalidParams, "invalid params: "+invalid.Error())
	case errors.As(err, &rpcErr):
		return jsonrpc2.NewError(rpcErr.Code, err.Error())
	case errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(rpcerr.RequestCancelled, "request cancelled")
	default:
		return jsonrpc2.NewError(rpcerr.InternalError, err.Error())
	}
}
