// Package flow is the one place where the rules of every hook event live:
// what an event does to the conversation before its hooks run, and what the
// hooks' combined answer (hooks.Result) then means for the agent and for
// the conversation (docs/hooks.md, "Exit codes" and "JSON output";
// docs/parity.md for Claude Code's later events).
//
// It does no I/O. Before and After take the event, the hooks' answer and
// what they need to know of the session (State), and return effects: the
// Answer the agent gets and the Changes to make to the conversation, in
// order. Anything the rules need from the world — the user's answer to an
// "ask", whether a worktree path is a directory — is asked for through
// Questions and handed back as Facts, so that every rule can be tested with
// plain values and no files, processes or editor.
//
// The session package applies the Changes to its messages and keeps them on
// disk; lsp, `wavehooks run` and the ACP proxy only decode a request, call
// the session and encode its Outcome. The checks of what a client reports
// (CheckToolCall, InvalidError) live here too, so that every entry point
// refuses the same input with the same words.
package flow
