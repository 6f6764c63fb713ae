// Package settings reads the user's hook configuration: where the settings
// files are (Paths), how each is parsed into hooks and settings (ParseFile,
// Load) with the problems an editor shows (Diagnostic), the shape of every
// key and its docs (keyshapes.go, keydocs.go), the rules written in it
// (matchers, "if" rules, the http hook URL policy), the "enabled" switches
// and the hooks that can never run.
//
// It decides nothing about running: trust says which hooks may run, the
// engine (package hooks) runs them. Settings imports event and shellread
// only, so lint (cmd/wavehooks lint, the editor's diagnostics) needs
// nothing that starts a process.
package settings
