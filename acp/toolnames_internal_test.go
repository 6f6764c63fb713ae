package acp

import (
	"testing"

	"github.com/stretchr/testify/require"

	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// TestKindToolNamesAreKnownToLint: every tool name the proxy gives an ACP
// tool kind (kindTools, and Write / Edit for edits) is one lint and the
// editor know (hooksettings.AgentTools), so that a matcher on a name the proxy
// really reports is never flagged as naming no tool; a name added to
// kindTools without lint learning it fails here.
func TestKindToolNamesAreKnownToLint(t *testing.T) {
	names := []string{"Write", "Edit"}
	for kind, name := range kindTools {
		require.NotEmpty(t, name, kind)
		names = append(names, name)
	}
	for _, n := range names {
		require.Contains(t, hooksettings.AgentTools, n, "the proxy reports %s", n)
		text := `{"hooks": {"PreToolUse": [{"matcher": "` + n + `", "hooks": [{"type": "command", "command": "true"}]}]}}`
		f := hooksettings.ParseFile("settings.json", hooksettings.SourceUser, []byte(text), t.TempDir())
		for _, d := range f.Diagnostics {
			require.NotEqual(t, hooksettings.CodeUnknownTool, d.Code, "%s: %s", n, d.Message)
		}
	}
}
