package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// MayRun says yes for every event a hook may run for, and no only where none
// can: the session store writes the transcript before exactly those events
// when it keeps changes unwritten (session.Options.SaveBeforeHooks).
func TestMayRun(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks":{
		"PreToolUse":[{"matcher":"Bash|Write","hooks":[{"type":"command","command":"true"}]}],
		"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"true","if":"Edit(*.md)"}]}],
		"Stop":[{"hooks":[{"type":"command","command":"true","async":true}]}]}}`), 0o600))
	e := hooks.NewEngine(settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil))
	for _, tc := range []struct {
		in   event.Input
		want bool
	}{
		{event.Input{Event: event.PreToolUse, ToolName: "Bash"}, true},
		{event.Input{Event: event.PreToolUse, ToolName: "Write"}, true},
		{event.Input{Event: event.PreToolUse, ToolName: "Read"}, false},
		{event.Input{Event: event.PostToolUse, ToolName: "Edit"}, true}, // its "if" rule is not asked: yes, never a wrong no
		{event.Input{Event: event.PostToolUse, ToolName: "Bash"}, false},
		{event.Input{Event: event.Stop}, true}, // an async hook reads the transcript too
		{event.Input{Event: event.UserPromptSubmit, Prompt: "hi"}, false},
	} {
		require.Equal(t, tc.want, e.MayRun(tc.in), "%s %s", tc.in.Event, tc.in.ToolName)
	}
}
