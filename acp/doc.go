// Package acp is wavehooks' Agent Client Protocol proxy: `wavehooks acp --
// <agent command…>`. An ACP editor (Zed, JetBrains, CodeCompanion, avante,
// agent-shell, …) launches it in place of the agent; it starts the agent,
// passes every message between the two unchanged (ACP v1 is JSON-RPC 2.0,
// one message per line on stdio), and runs the user's hooks where ACP gives
// a point to run them: a session being created or loaded, a prompt, a
// permission request, a file or terminal request, a finished tool call, the
// end of a turn, a session closing. It uses the same hook engine, settings,
// trust, run history and transcripts as `wavehooks serve`.
//
// The proxy decodes only what a hook needs and forwards the bytes it read,
// so fields, methods and protocol versions it does not know pass through
// untouched; what it reads and what it sends of its own are internal/acpmsg's
// types, and its JSON-RPC error codes internal/rpcerr's. Messages keep their
// order in each direction: a message that a hook must decide on holds the
// ones after it until the hooks are done.
//
// Each ACP method the proxy acts on has one row in methods (methods.go):
// the handler for each side's message of that method and what the readers
// may do with it; any other method passes through. The cases that need no
// internals are script files under testdata/script (TestScript).
//
// docs/acp.md maps each ACP message to the hook events it fires and lists
// what cannot be enforced.
package acp
