package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/wire"
)

// commentedSettings is a user's settings file with comments, a trailing
// comma and its own layout, all of which `wavehooks hooks disable|enable`
// must keep.
const commentedSettings = `{
  // guards
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0" // the guard
          },
        ]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}] /* one-liner */
  }
}
`

// TestHooksDisableEnableRoundTrip: through the real binary, `hooks list`
// names every hook with an ID, `hooks disable ID` turns the guard off in
// the settings file (its comments and layout kept) so that `run` no longer
// denies, and `hooks enable ID` turns it back on.
func TestHooksDisableEnableRoundTrip(t *testing.T) {
	env := newCLIEnv(t, commentedSettings)
	file := filepath.Join(env.home, "settings.json")
	list := func() []wire.HookListing {
		out, stderr, code := env.run(t, "", "hooks", "list", "--format", "json", "--project", env.project)
		require.Equal(t, 0, code, stderr)
		var l []wire.HookListing
		require.NoError(t, json.Unmarshal([]byte(out), &l), out)
		return l
	}
	deny := func() any {
		out, stderr, code := env.run(t, `{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}`, "run", "PreToolUse", "--project", env.project)
		require.Equal(t, 0, code, stderr)
		var res map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &res), out)
		return res["decision"]
	}
	hooksNow := list()
	require.Len(t, hooksNow, 2)
	guard := hooksNow[0]
	require.Equal(t, "PreToolUse", guard.Event)
	require.Equal(t, "Bash", guard.Matcher)
	require.True(t, guard.Enabled)
	require.Equal(t, 8, guard.Line)
	require.Len(t, guard.ID, 8)
	require.NotEqual(t, guard.ID, hooksNow[1].ID)
	text, stderr, code := env.run(t, "", "hooks", "list", "--project", env.project)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, text, guard.ID+"  on   user    PreToolUse         Bash")
	require.Equal(t, "deny", deny())

	out, stderr, code := env.run(t, "", "hooks", "disable", guard.ID, "--project", env.project)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "is off")
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	want := strings.Replace(commentedSettings, `exit 0" // the guard`, `exit 0",
            "enabled": false // the guard`, 1)
	require.Equal(t, want, string(after), "one key added; comments, trailing comma and layout kept")
	require.False(t, list()[0].Enabled)
	require.Equal(t, guard.ID, list()[0].ID, "the ID stays")
	require.Equal(t, "none", deny(), "the guard no longer runs")
	explained, _, _ := env.run(t, `{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}`, "run", "PreToolUse", "--project", env.project, "--explain")
	require.Contains(t, explained, `disabled: "enabled": false`, "the run history says why")

	_, stderr, code = env.run(t, "", "hooks", "enable", guard.ID, "--project", env.project)
	require.Equal(t, 0, code, stderr)
	again, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, strings.Replace(want, `"enabled": false`, `"enabled": true`, 1), string(again))
	require.Equal(t, "deny", deny())

	_, stderr, code = env.run(t, "", "hooks", "enable", "deadbeef", "--project", env.project)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `no hook has the ID "deadbeef"`)
	_, stderr, code = env.run(t, "", "hooks", "disable", hooksNow[1].ID, "--project", env.project)
	require.Equal(t, 0, code, stderr)
	one, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(one), `[{"type": "command", "command": "echo done", "enabled": false}]}] /* one-liner */`)
}
