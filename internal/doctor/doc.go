// Package doctor is `wavehooks doctor`: for each agent and host it finds on
// this machine (the Claude Code CLI, the copy Claude Code's VS Code extension
// bundles, claude-agent-acp, codex-acp and Gemini CLI behind `wavehooks acp`,
// the editors configured for `wavehooks acp`, and both wavehooks extensions)
// it proves that a hook fires by sending one harmless probe event through
// that path, offline (a fake model on loopback, internal/fakemodel), in a
// temporary HOME and project so the user's files are untouched. What does
// not fire, or cannot be probed, is said plainly with its fix: users ask
// "does my hook run here?", and a guess is what they already have.
//
// The user's own hook configuration is summarised beside it through lint's
// engine (internal/settings). cmd/wavehooks/doctor.go is the thin adapter.
package doctor
