// Command wavehooks-hook is the command hook the ACP proxy (`wavehooks acp`)
// gives an agent that can only run hooks as processes (codex-acp's Codex,
// and claude-agent-acp's Claude Code when it cannot be given an http hook):
//
//	wavehooks-hook --socket PATH --token TOKEN < hook-input.json
//
// It does what `wavehooks acp-hook` does, with the same protocol and the
// same failures (internal/hookclient), in a program that links only that:
// the agent starts one per tool call, and the whole wavehooks binary spends
// most of its start in the init of packages this job never uses. The proxy
// uses it when it is installed next to the wavehooks binary, else
// `wavehooks acp-hook`. Whatever keeps it from the proxy's answer, it exits
// 2 with the reason on stderr, which the agent reads as a block.
package main

import (
	"os"

	"github.com/wavehooks/wavehooks/internal/hookclient"
)

// Set at build time, as for wavehooks (Makefile, scripts/dist.sh):
// -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "0.1.0-dev"
	commit  string
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is the program with its exit code. `--version` is what the proxy
// runs once before it hands this program to an agent, to know that it
// starts here (a copy for another system would fail every tool call).
func run(args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		line := "wavehooks-hook " + version
		if commit != "" {
			line += " (commit " + commit + ")"
		}
		_, _ = os.Stdout.WriteString(line + "\n")
		return 0
	}
	return hookclient.Run("wavehooks-hook", args, os.Stdin, os.Stdout, os.Stderr)
}
