package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/wire"
)

// rmGuard is a real sh hook reading its stdin with jq: it denies a Bash
// call whose command holds "rm".
const rmGuard = `jq -e '.tool_input.command | test(\"rm\")' >/dev/null && { echo 'no rm' >&2; exit 2; }; exit 0`

// policyEnv runs the real binary with its own wave home and both managed
// locations moved into the test's directories.
type policyEnv struct {
	home, project, waveManaged, claudeDir string
}

func newPolicyEnv(t *testing.T) policyEnv {
	return policyEnv{home: t.TempDir(), project: t.TempDir(), waveManaged: filepath.Join(t.TempDir(), "managed-settings.json"),
		claudeDir: t.TempDir()}
}

func (e policyEnv) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(e2eBinary(t), append(args, "--project", e.project)...)
	cmd.Dir = e.project
	cmd.Env = append(os.Environ(), "WAVE_HOME="+e.home, "HOME="+e.home, "WAVE_MANAGED_SETTINGS="+e.waveManaged,
		"WAVE_CLAUDE_MANAGED_DIR="+e.claudeDir)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errOut.String(), code
}

// decision is what `wavehooks run PreToolUse` answers for `rm -rf /`.
func (e policyEnv) decision(t *testing.T) any {
	t.Helper()
	out, stderr, code := e.run(t, `{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}`, "run", "PreToolUse")
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	return res["decision"]
}

func (e policyEnv) list(t *testing.T) []wire.HookListing {
	t.Helper()
	out, stderr, code := e.run(t, "", "hooks", "list", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var l []wire.HookListing
	require.NoError(t, json.Unmarshal([]byte(out), &l), out)
	return l
}

// TestManagedHooksAlwaysRun: a hook in any managed location (Claude Code's
// managed-settings.json, one of its managed-settings.d drop-ins, wavehooks'
// own file) runs although the user's settings say disableAllHooks and the
// hook itself says "enabled": false; `hooks list` and lint show it as
// managed; `hooks disable` refuses it naming the file, which stays as it was.
func TestManagedHooksAlwaysRun(t *testing.T) {
	managed := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + rmGuard + `", "enabled": false}]}]}}`
	for _, c := range []struct {
		name string
		file func(e policyEnv) string
	}{
		{"Claude Code's managed-settings.json", func(e policyEnv) string { return filepath.Join(e.claudeDir, "managed-settings.json") }},
		{"a managed-settings.d drop-in", func(e policyEnv) string { return filepath.Join(e.claudeDir, "managed-settings.d", "10-guard.json") }},
		{"wavehooks' managed file", func(e policyEnv) string { return e.waveManaged }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newPolicyEnv(t)
			file := c.file(e)
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(managed), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"), []byte(`{"disableAllHooks": true}`), 0o644))

			require.Equal(t, "deny", e.decision(t), "the managed guard runs despite disableAllHooks and its own enabled: false")

			l := e.list(t)
			require.Len(t, l, 1)
			require.True(t, l[0].Managed)
			require.Equal(t, "managed", l[0].Source)
			require.Equal(t, file, l[0].File)
			text, _, _ := e.run(t, "", "hooks", "list")
			require.Contains(t, text, "[managed: always runs]")

			_, stderr, code := e.run(t, "", "hooks", "disable", l[0].ID)
			require.Equal(t, 1, code)
			require.Contains(t, stderr, "this hook comes from the managed settings "+file+": managed hooks always run")
			after, err := os.ReadFile(file)
			require.NoError(t, err)
			require.Equal(t, managed, string(after), "a managed file is never written")

			lint, lintErr, code := e.run(t, "", "lint")
			require.Equal(t, 0, code, lintErr)
			require.Contains(t, lint, "[managed-hook]")
			require.Contains(t, lint, `managed hooks always run: "enabled": false is ignored in the managed settings `+file)
			require.Contains(t, lintErr, "1 hook(s) (1 managed)")
			require.Contains(t, lint, "disableAllHooks does not turn off the 1 managed hook(s) of "+file+": managed hooks always run")
		})
	}
}

// TestAllowManagedHooksOnlyFromClaudeCodesFile: Claude Code's managed-only
// option means in wavehooks what it means there, read from Claude Code's
// own managed file: the user's hooks are ignored, and the reason names the file.
func TestAllowManagedHooksOnlyFromClaudeCodesFile(t *testing.T) {
	e := newPolicyEnv(t)
	file := filepath.Join(e.claudeDir, "managed-settings.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"allowManagedHooksOnly": true}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"),
		[]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+rmGuard+`"}]}]}}`), 0o644))
	require.NotEqual(t, "deny", e.decision(t), "the user's guard is ignored")
	lint, _, _ := e.run(t, "", "lint")
	require.Contains(t, lint, "allowManagedHooksOnly is set in the managed settings "+file)
}

// TestUnreadableManagedFileStopsEveryHook: as in Claude Code (its
// policy_unreadable), a managed file that exists but does not parse stops
// every hook, since what it allows cannot be known; lint names the file.
func TestUnreadableManagedFileStopsEveryHook(t *testing.T) {
	e := newPolicyEnv(t)
	file := filepath.Join(e.claudeDir, "managed-settings.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"allowManagedHooksOnly": tru`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"),
		[]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+rmGuard+`"}]}]}}`), 0o644))
	require.NotEqual(t, "deny", e.decision(t))
	lint, _, code := e.run(t, "", "lint")
	require.Equal(t, 1, code)
	require.Contains(t, lint, "the managed settings "+file+" cannot be read, so no hook runs until it is fixed")
}

// outsideWrite rewrites a settings file the way a package's install script
// does: a plain sh, neither wavehooks nor an editor.
func outsideWrite(t *testing.T, file, text string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `cat > "$1"`, "sh", file)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestDriftIsReportedOnce: a hook an outside process adds to the user's
// settings is reported by lint once, naming the file and the change; a
// toggle by wavehooks itself is no drift; with driftRequiresApproval the
// added hook does not run until `hooks approve`.
func TestDriftIsReportedOnce(t *testing.T) {
	for _, c := range []struct {
		name            string
		requireApproval bool
	}{{"reported only", false}, {"driftRequiresApproval", true}} {
		t.Run(c.name, func(t *testing.T) {
			e := newPolicyEnv(t)
			file := filepath.Join(e.home, "settings.json")
			setting := ""
			if c.requireApproval {
				setting = `"driftRequiresApproval": true, `
			}
			mine := `{` + setting + `"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo done"}]}]`
			require.NoError(t, os.WriteFile(file, []byte(mine+`}}`), 0o644))

			lint, lintErr, _ := e.run(t, "", "lint")
			require.NotContains(t, lint, "hook-drift", "the first look adopts what is there")
			st, err := os.Stat(filepath.Join(e.home, "hook-record.json"))
			require.NoError(t, err, lintErr)
			require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

			outsideWrite(t, file, mine+`, "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "`+rmGuard+`"}]}]}}`)

			if c.requireApproval {
				require.NotEqual(t, "deny", e.decision(t), "the drifted guard waits for approval")
			}
			lint, _, _ = e.run(t, "", "lint")
			require.Contains(t, lint, file+":")
			require.Contains(t, lint, "a PreToolUse hook was added in "+file+" by something other than wavehooks or your editor")
			require.Contains(t, lint, "[hook-drift]")

			l := e.list(t)
			require.Len(t, l, 2)
			guard := l[1]
			require.Equal(t, "added", guard.Drift)

			lint, _, _ = e.run(t, "", "lint")
			if c.requireApproval {
				require.Contains(t, lint, "does not run until you approve it", "a waiting hook keeps saying why")
				require.Contains(t, guard.Why, "wavehooks hooks approve "+guard.ID)
				out, stderr, code := e.run(t, "", "hooks", "approve", guard.ID)
				require.Equal(t, 0, code, stderr)
				require.Contains(t, out, "approved as yours")
				require.Equal(t, "deny", e.decision(t), "approved, it runs")
			} else {
				require.NotContains(t, lint, "hook-drift", "reported once")
				require.Equal(t, "deny", e.decision(t), "without the setting a drifted hook runs")
			}

			// wavehooks' own toggle is no drift.
			_, stderr, code := e.run(t, "", "hooks", "disable", l[0].ID)
			require.Equal(t, 0, code, stderr)
			lint, _, _ = e.run(t, "", "lint")
			require.NotContains(t, lint, "hook-drift")
			require.Empty(t, e.list(t)[0].Drift)
		})
	}
}
