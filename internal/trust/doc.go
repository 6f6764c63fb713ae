// Package trust decides whether a workspace's own hooks may run: the trust
// store under $WAVE_HOME (trust.go), the hash a decision covers — every
// hook and setting of the workspace's files (trustencode.go) and the
// workspace files those hooks run by name (trustfiles.go) — and the pinned
// copy of a trusted script, so that a hook runs exactly the bytes that were
// hashed (pinscript.go; the process runner, package proc, runs it).
//
// docs/security.md ("Workspace trust") says what holds and which windows
// remain; DESIGN.md §8 says why trust is per workspace and per hash.
package trust
