// Package session is the conversation a hook sees and changes. It holds the
// messages of one agent session, applies to them the changes that package
// flow's rules derive from an event and its hooks' answer (run.go), and
// keeps them durably in the session file whose path hooks receive as
// transcript_path.
//
// The package exists so that the server answers every editor request with a
// conversation that is already on disk: before a hook process starts, the file
// holds everything the session knows, and after a crash the file loads again
// with at least every message the server acknowledged. Writes cost the same
// whatever the session's length: the file is laid out one message per line and
// only the lines that changed are rewritten. The file format, its encoders and
// its layout are package transcript's (session/transcript), which
// this package hands its messages to save; Session documents the two locks,
// the conversation's and the file's, and their order.
//
// Where blocks go: error and warn blocks are notices about what just
// happened, so they join the last message when it is an assistant message and
// start a new assistant message otherwise; hook blocks and text a hook
// injects are context for the model, so each event's context goes into new
// user messages after the notices. The user's prompt is thus never mixed with
// anything, and a blocked prompt can be erased whole.
//
// It depends on flow for the rules, on hooks to run them, and never on the editor wire:
// the lsp package turns an Outcome into a JSON-RPC result.
package session
