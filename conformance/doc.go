// Package conformance checks wavehooks against the real Claude Code CLI: each
// scenario is one headless Claude Code session (`claude -p`, offline, against
// a scripted fake of the Anthropic Messages API on loopback) with real sh+jq
// hook scripts, played again through `wavehooks serve` by an agent host that
// stands in for the editor. The two runs are compared on meaning: the stdin
// and environment each hook got, which hooks and tools ran and with which
// input, what reached the model and as what, and whether the agent went on.
// The results table is docs/conformance.md; what it says and how to run it
// is there too.
package conformance
