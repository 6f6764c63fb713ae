//go:build linux

package conformance

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain also serves the two roles the suite starts this binary in: the
// relay into the CLI's network namespace and the MCP server.
func TestMain(m *testing.M) {
	switch {
	case IsRelay():
		os.Exit(RelayMain())
	case IsMCPServer():
		os.Exit(MCPServerMain(os.Stdin, os.Stdout))
	}
	goleak.VerifyTestMain(m)
}
