package agents

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Which agent commands get the codex-acp bridge.
func TestIsCodexACP(t *testing.T) {
	for _, c := range []struct {
		command []string
		want    bool
	}{
		{[]string{"codex-acp"}, true},
		{[]string{"npx", "@zed-industries/codex-acp"}, true},
		{[]string{"node", "/x/node_modules/@zed-industries/codex-acp/bin/codex-acp.js"}, true},
		{[]string{"gemini", "--acp"}, false},
		{[]string{"claude-agent-acp"}, false},
		{[]string{"/home/codex-acp-fan/bin/opencode", "acp"}, false},
	} {
		require.Equal(t, c.want, IsCodexACP(c.command), "%q", c.command)
	}
}
