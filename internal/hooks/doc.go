// Package hooks is the hook engine: it loads and validates the user's hook
// configuration, decides which hooks an event matches, builds the JSON each
// hook reads on stdin, runs the hook processes, reads their exit codes and
// JSON answers, and combines the answers of all hooks of one event into a
// single Result.
//
// The package knows nothing about sessions or the editor wire: a Result is a
// plain value that the session package applies to a conversation and the lsp
// package sends to an editor. It never imports go.lsp.dev.
package hooks
