package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestShadowedAcrossFiles: a project hook identical to a user hook (same
// event, matcher, command and options) never runs itself, and lint says
// so on the project's copy; one that differs in an option, or whose user
// twin is off, is not flagged.
func TestShadowedAcrossFiles(t *testing.T) {
	guard := func(extra string) string {
		return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"` + extra + `}]}]}}`
	}
	cases := []struct {
		name, user, project string
		shadowed            bool
	}{
		{"identical", guard(""), guard(""), true},
		{"a timeout is no option the engine tells apart", guard(`, "timeout": 5`), guard(""), true},
		{"another environment", guard(`, "env": {"A": "1"}`), guard(""), false},
		{"the user's twin is off", guard(`, "enabled": false`), guard(""), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{"home/settings.json": c.user, ".wave/settings.json": c.project})
			cfg := settings.Load(l.paths(), nil)
			var shadowed []settings.Diagnostic
			for _, d := range cfg.Diagnostics() {
				if d.Code == settings.CodeShadowed {
					shadowed = append(shadowed, d)
				}
			}
			if !c.shadowed {
				require.Empty(t, shadowed)
				return
			}
			require.Len(t, shadowed, 1)
			require.Equal(t, l.path(".wave/settings.json"), shadowed[0].File)
			require.Contains(t, shadowed[0].Message, "an identical PreToolUse hook (user settings "+l.path("home/settings.json")+", line 1)")
		})
	}
}
