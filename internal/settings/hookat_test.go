package settings_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestHookAt: the key of the hook at a place ignores its "enabled" key,
// comments and layout, and changes with anything else of the hook; whether
// its group is off is read from the text; a place the text no longer has
// is an error. SetHookEnabled relies on it to start over safely when an
// editor saved the file meanwhile (#35 item 7).
func TestHookAt(t *testing.T) {
	place := settings.HookPlace{Group: 0, Index: 1}
	const base = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}]}}`
	baseKey, off, err := settings.HookAt([]byte(base), event.PreToolUse, place)
	require.NoError(t, err)
	require.False(t, off)
	require.JSONEq(t, `{"type": "command", "command": "b"}`, string(baseKey))
	for _, c := range []struct {
		name, text string
		same, off  bool
		err        string
	}{
		{"turned off, commented, laid out anew", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "a"},
  // the audit
  {"type": "command", "command": "b", "enabled": false,}]}]}}`, true, false, ""},
		{"another hook changed", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a2"}, {"type": "command", "command": "b"}]}]}}`, true, false, ""},
		{"its group turned off", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "enabled": false, "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}]}}`, true, true, ""},
		{"another hook moved to its place", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "c"}, {"type": "command", "command": "b"}]}]}}`, false, false, ""},
		{"its timeout changed", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b", "timeout": 5}]}]}}`, false, false, ""},
		{"the place is gone", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]}]}}`, false, false, "no longer where it was"},
		{"not JSON", `{"hooks": `, false, false, "does not parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, off, err := settings.HookAt([]byte(c.text), event.PreToolUse, place)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.same, string(key) == string(baseKey), string(key))
			require.Equal(t, c.off, off)
		})
	}
}
