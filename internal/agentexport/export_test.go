package agentexport_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"

	"github.com/wavehooks/wavehooks/internal/agentexport"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// userHooks are the hooks of testdata/wave-settings.json as a user file.
func userHooks(t *testing.T) []settings.Hook {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "wave-settings.json"))
	require.NoError(t, err)
	f := settings.ParseFile("/home/u/.wave/settings.json", settings.SourceUser, text, "")
	require.Empty(t, f.Diagnostics)
	return f.Hooks
}

// Exporting into each agent's own file (a golden file per agent) keeps the
// file's other keys, its comments and the user's own hooks, and writes each
// hook in the agent's event names, tool names and units; exporting again
// replaces the export's entries and changes nothing else.
func TestExportIntoEachAgentsFile(t *testing.T) {
	for _, to := range agentexport.Targets {
		t.Run(to, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join("testdata", to+"-before.json"))
			require.NoError(t, err)
			entries, notes := agentexport.Build(to, userHooks(t), "/usr/bin/wavehooks")
			require.Contains(t, strings.Join(notes, "\n"), "PreCompact hook `node x.js` is not exported: exec form (args) is wavehooks' own")
			got, err := agentexport.Apply(before, to, entries)
			require.NoError(t, err)
			golden := filepath.Join("testdata", to+"-after.golden.json")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))

			std, err := hujson.Standardize(bytes.Clone(got))
			require.NoError(t, err, "still JSON (with the comments it had)")
			require.NotContains(t, string(std), ",]", "no trailing commas: Claude Code and Gemini CLI read plain JSON")
			require.Contains(t, string(got), "the user's own")
			again, err := agentexport.Apply(got, to, entries)
			require.NoError(t, err)
			require.Equal(t, string(got), string(again), "exporting again changes nothing")

			back, err := agentexport.Exported(got)
			require.NoError(t, err)
			require.Equal(t, entries.Hash(), back.Hash(), "the export's entries read back as written")
		})
	}
}

// A file the export cannot edit without losing something is left alone,
// with the reason.
func TestExportRefusesToClobber(t *testing.T) {
	entries, _ := agentexport.Build("claude", userHooks(t), "/usr/bin/wavehooks")
	for _, text := range []string{`{"hooks": {"PreToolUse": {"matcher": "Bash"}}}`, `{"hooks": []}`, `[1]`, `{"hooks": {`} {
		_, err := agentexport.Apply([]byte(text), "claude", entries)
		require.Error(t, err, text)
	}
}

// lint's drift: none right after an export; the source changed, or the
// exported entries edited in the agent's file, is drift.
func TestExportDrift(t *testing.T) {
	home, waveHome := t.TempDir(), t.TempDir()
	target := agentexport.Target{To: "codex", Path: filepath.Join(home, ".codex", "hooks.json")}
	hooks := userHooks(t)
	current := func(to string) agentexport.Entries {
		e, _ := agentexport.Build(to, hooks, "/usr/bin/wavehooks")
		return e
	}
	require.NoError(t, agentexport.Write(waveHome, target, current("codex")))
	drift, err := agentexport.Drift(waveHome, current)
	require.NoError(t, err)
	require.Empty(t, drift)

	hooks[0].Command = "sh other.sh"
	drift, err = agentexport.Drift(waveHome, current)
	require.NoError(t, err)
	require.Equal(t, []string{target.Path + ": your wavehooks hooks changed since they were exported here; run `wavehooks hooks export --to codex`"}, drift)

	hooks = userHooks(t)
	text, err := os.ReadFile(target.Path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(target.Path, bytes.Replace(text, []byte(`"timeout":10`), []byte(`"timeout":99`), 1), 0o600))
	drift, err = agentexport.Drift(waveHome, current)
	require.NoError(t, err)
	require.Equal(t, []string{target.Path + ": the hooks exported here were edited or removed; run `wavehooks hooks export --to codex`"}, drift)
}

// The shim runs a wavehooks hook (a real sh and jq script, written for
// Claude Code) inside an agent of another shape: the hook reads Claude
// Code's stdin, and the agent reads its own answer shape back.
func TestShimTranslatesBothWays(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "guard.sh")
	require.NoError(t, os.WriteFile(hook, []byte(`#!/bin/sh
input=$(cat)
printf '%s' "$input" | jq -c '{hook_event_name, tool_name, command: .tool_input.command}' > "`+dir+`/seen.json"
case "$(printf '%s' "$input" | jq -r .tool_input.command)" in
  *"rm -rf"*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm -rf"}}' ;;
esac
`), 0o755))
	for _, tc := range []struct {
		agent        agentfmt.Agent
		event, stdin string
		want         string
	}{
		{agentfmt.Gemini, "BeforeTool", `{"session_id":"s","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z",
			"tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`, `{"decision":"deny","reason":"no rm -rf"}`},
		{agentfmt.Cursor, "beforeShellExecution", `{"conversation_id":"s","hook_event_name":"beforeShellExecution","command":"rm -rf /",
			"cwd":"/p","workspace_roots":["/p"]}`, `{"permission":"deny","agent_message":"no rm -rf","user_message":"no rm -rf"}`},
	} {
		var out, errOut bytes.Buffer
		code := agentexport.Shim(context.Background(), tc.agent, tc.event, "sh "+hook, strings.NewReader(tc.stdin), &out, &errOut)
		require.Equal(t, 0, code, errOut.String())
		require.JSONEq(t, tc.want, out.String(), string(tc.agent))
		seen, err := os.ReadFile(filepath.Join(dir, "seen.json"))
		require.NoError(t, err)
		require.JSONEq(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","command":"rm -rf /"}`, string(seen), "the hook read Claude Code's stdin")
	}
	var out, errOut bytes.Buffer
	require.Equal(t, 2, agentexport.Shim(context.Background(), agentfmt.Gemini, "BeforeModel", "true", strings.NewReader(`{}`), &out, &errOut),
		"a shim that cannot translate fails closed")
	require.Contains(t, errOut.String(), `gemini has no event "BeforeModel"`)
}
