package lsp

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"

	"github.com/wavehooks/wavehooks/internal/rpcerr"
)

// The server answers with internal/rpcerr's codes, and go.lsp.dev/jsonrpc2
// (which answers some frames itself) with its own: both must be the same
// numbers, or one client would see two codes for one error.
func TestJSONRPC2CodesAreTheTable(t *testing.T) {
	for _, c := range []struct {
		lib  jsonrpc2.Code
		ours jsonrpc2.Code
	}{
		{jsonrpc2.ParseError, rpcerr.ParseError},
		{jsonrpc2.InvalidRequest, rpcerr.InvalidRequest},
		{jsonrpc2.MethodNotFound, rpcerr.MethodNotFound},
		{jsonrpc2.InvalidParams, rpcerr.InvalidParams},
		{jsonrpc2.InternalError, rpcerr.InternalError},
		{jsonrpc2.ServerNotInitialized, rpcerr.ServerNotInitialized},
	} {
		require.Equal(t, c.lib, c.ours)
	}
}
