// Package hooks is the hook engine: for one event it decides which hooks
// run (plan: matcher, "if" rule, duplicates, "enabled", trust), runs them —
// command hooks through package proc, http hooks itself, prompt, agent and
// mcp_tool hooks through a delegate — reads each hook's exit code and JSON
// answer (output.go, eventanswer.go), and combines the answers of all hooks
// of the event into a single Result; it keeps the run history and run log.
//
// What it runs on is below it: the event and stdin contract (package event),
// the settings (package settings), the trust decision (package trust), the
// process runner (package proc). It knows nothing about sessions or the
// editor wire: a Result is a plain value that the session package applies to
// a conversation and the host and its adapters report. It never imports
// go.lsp.dev.
package hooks
