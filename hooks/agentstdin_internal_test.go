package hooks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Another agent's hook whose event cannot be put in that agent's shape is
// not given Claude Code's stdin instead (it would read fields it does not
// know, and might let through what it exists to stop): it does not run,
// and blocks as a hook that exited 2, naming why. Claude Code's own hooks
// are not affected.
func TestAnUntranslatableEventFailsTheAgentsHookClosed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		hook      *settings.Hook
		wantBlock bool
	}{
		{name: "a Gemini CLI hook", hook: &settings.Hook{Type: settings.TypeCommand, Command: "guard.sh",
			Source: settings.SourceGeminiProject, AgentEvent: "BeforeTool"}, wantBlock: true},
		{name: "a Claude Code hook", hook: &settings.Hook{Type: settings.TypeCommand, Command: "guard.sh",
			Source: settings.SourceUser}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdins := &hookStdins{in: &event.Input{Event: event.PreToolUse}, claude: []byte(`not the engine's JSON`)}
			b, err := stdins.of(tc.hook)
			if !tc.wantBlock {
				require.NoError(t, err)
				require.Equal(t, stdins.claude, b)
				return
			}
			require.Error(t, err)
			_, again := stdins.of(tc.hook)
			require.Equal(t, err, again, "the same answer for every hook of that agent's event")
			var e Engine
			o := e.executeWithStdin(t.Context(), nil, nil, tc.hook, event.Input{Event: event.PreToolUse}, stdins, nil)
			v := interpretHook(event.PreToolUse, tc.hook, o)
			require.Equal(t, PermissionDeny, v.permission, "PreToolUse: exit 2 denies the tool")
			require.Contains(t, v.reason, "could not give this gemini hook its event (BeforeTool)")
		})
	}
}
