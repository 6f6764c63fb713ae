// Package lsp is the wavehooks server as editors see it: JSON-RPC with LSP
// framing over stdio. It decodes each request, calls the hook engine
// (package hooks) and the session store (package session), and encodes
// their answer; it also owns what only an editor connection has — the
// lifecycle, watching the settings files, asking the user (trust, "ask"
// permissions), diagnostics, hover, completion, code lenses and actions.
//
// The wire types are in wire.go and results.go and are documented in
// docs/protocol.md; each feature's handlers are in a file of their own
// (handle_*.go), and handlers.go lists every method in one table.
package lsp
