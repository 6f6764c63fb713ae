// Package event is the contract between wavehooks and a hook process, as far
// as it is fixed before any hook runs: the lifecycle events and the table of
// events (EventSpec, Table, event.go), one row per event with its stdin
// fields, the answer fields it reads, what its matcher matches, its default
// timeout, whether it can block or decides a permission, which hook types
// it runs and its documentation; and Input, the JSON a hook reads on stdin,
// with how it is read from a client (ParseInput) and written for a hook
// (MarshalStdin).
//
// The engine (hooks), lint, hover and completion
// (internal/settings, lsp), the settings schema and docs/parity.md
// read the table, and each has a test that fails when it ignores a row, so
// that a new event is one row here plus its behaviour (internal/flow).
//
// It is the lowest of the hook packages: settings, trust, the process
// runner and the engine all speak in its Event and Input, and it imports
// none of them.
package event
