package main

import (
	"io"

	"github.com/wavehooks/wavehooks/internal/hookclient"
)

// acpHook is the hidden `wavehooks acp-hook --socket PATH --token TOKEN`: the
// command hook `wavehooks acp` gives claude-agent-acp's Claude Code and
// codex-acp's Codex (the hook bridge, acp/bridge.go and
// acp/agents/codex.go) when no wavehooks-hook is installed next to this
// binary. It hands the hook's stdin to the proxy over the proxy's unix
// socket and prints the proxy's answer, Claude Code hook JSON. Whatever
// goes wrong (no socket, a refused token, no answer), it fails closed:
// exit 2 with the reason on stderr, which Claude Code and Codex read as a
// PreToolUse block and show the model. The protocol and its failures are
// internal/hookclient's, shared with cmd/wavehooks-hook.
func acpHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return hookclient.Run("wavehooks acp-hook", args, stdin, stdout, stderr)
}
