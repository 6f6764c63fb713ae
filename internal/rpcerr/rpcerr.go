// Package rpcerr is the one table of the JSON-RPC error codes wavehooks
// answers with, for both of its JSON-RPC peers: the LSP server
// (lsp, docs/protocol.md's "Errors") and the ACP proxy
// (acp, docs/acp.md). The codes used to be written down in each;
// a code that differed between them, or from the docs, would be a wire
// change no one chose.
//
// The constants are untyped, so each side uses them in its own type
// without a conversion: go.lsp.dev/jsonrpc2's Code (int32) in lsp, a plain
// int in the proxy's messages (internal/acpmsg). Their values are wire
// contract: rpcerr_test.go holds them to the docs.
package rpcerr

// JSON-RPC 2.0's own codes (the spec's "Error object").
const (
	// ParseError answers a frame or line that is not JSON.
	ParseError = -32700
	// InvalidRequest answers JSON that is not a JSON-RPC 2.0 request the
	// peer may send now (not an object, a second initialize, nested too deep,
	// too large).
	InvalidRequest = -32600
	// MethodNotFound answers a method the server does not offer; the LSP
	// server also reads it from an editor that evaluates no hooks.
	MethodNotFound = -32601
	// InvalidParams answers params that are wrong: the caller's mistake,
	// not the server's failure.
	InvalidParams = -32602
	// InternalError answers the server's own failure (a session file it
	// cannot write, an agent that exited).
	InternalError = -32603
)

// Codes of the protocols on top of JSON-RPC, and wavehooks' own.
const (
	// HookDenied is the ACP proxy's answer to an agent's file or terminal
	// request a PreToolUse hook denied (docs/acp.md); ACP leaves codes
	// outside its list to implementations, and -32001 is in JSON-RPC's
	// range for them.
	HookDenied = -32001
	// ServerNotInitialized is LSP's answer to a request before initialize.
	ServerNotInitialized = -32002
	// RequestCancelled is LSP's and ACP's code for a request its sender
	// cancelled ($/cancelRequest, session/cancel).
	RequestCancelled = -32800
)
