package settings_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestEnableEdit: turning a hook off or on is one edit of its "enabled"
// key that keeps everything else of the file; the file parsed again has
// the hook in the new state. A hook whose matcher group is off is turned
// on through the group.
func TestEnableEdit(t *testing.T) {
	cases := []struct {
		name, text string
		on, group  bool
		want, err  string
	}{{
		name: "off, on one line",
		text: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"} /* keep */]}]}}`,
		want: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "enabled": false} /* keep */]}]}}`,
	}, {
		name: "off, over several lines, after a trailing comma",
		text: "{\"hooks\": {\"Stop\": [{\"hooks\": [{\n    \"type\": \"command\",\n    \"command\": \"true\", // why\n  }]}]}}",
		want: "{\"hooks\": {\"Stop\": [{\"hooks\": [{\n    \"type\": \"command\",\n    \"command\": \"true\",\n    \"enabled\": false, // why\n  }]}]}}",
	}, {
		name: "on again: the key is set, not removed",
		text: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "enabled": /* off */ false}]}]}}`,
		on:   true,
		want: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "enabled": /* off */ true}]}]}}`,
	}, {
		name: "on, but the group is off",
		text: `{"hooks": {"Stop": [{"enabled": false, "hooks": [{"type": "command", "command": "true"}]}]}}`,
		on:   true, err: `its matcher group says "enabled": false`,
	}, {
		name: "the group on",
		text: `{"hooks": {"Stop": [{"enabled": false, "hooks": [{"type": "command", "command": "true"}]}]}}`,
		on:   true, group: true,
		want: `{"hooks": {"Stop": [{"enabled": true, "hooks": [{"type": "command", "command": "true"}]}]}}`,
	}, {
		name: "already on",
		text: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		on:   true, err: "it is already on",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := settings.ParseFile("settings.json", settings.SourceUser, []byte(c.text), t.TempDir())
			require.Len(t, f.Hooks, 1)
			edit, err := settings.EnableEdit([]byte(c.text), event.Stop, f.Hooks[0].Place, c.on, c.group)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			got := string(edit.Apply([]byte(c.text)))
			require.Equal(t, c.want, got)
			again := settings.ParseFile("settings.json", settings.SourceUser, []byte(got), t.TempDir())
			require.Empty(t, again.Diagnostics)
			require.Len(t, again.Hooks, 1)
			require.Equal(t, !c.on, again.Hooks[0].Disabled)
		})
	}
	// A file that changed since it was read: the place no longer holds a hook.
	_, err := settings.EnableEdit([]byte(`{"hooks": {}}`), event.Stop, settings.HookPlace{}, false, false)
	require.ErrorContains(t, err, "no longer where it was")
}
