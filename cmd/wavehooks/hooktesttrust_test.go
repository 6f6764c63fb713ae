package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue #35: a repository's hook test cases, and the settings files and
// scripts they name, are the repository's content: `wavehooks test` runs
// none of it until the user trusts the workspace as it is (or passes
// --trust-workspace). Every hook here is a real sh script that reads its
// input with jq and appends it to a marker file outside the project, so a
// missing marker proves that nothing ran.

// markerProject is a project whose .wave/mark.sh appends the Bash command
// it is given to a marker file (returned, not yet there), and whose
// .wave/settings.json runs it: the repository's own hooks.
func markerProject(t *testing.T) (cliEnv, string) {
	t.Helper()
	env := newCLIEnv(t, `{}`)
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(env.project, ".wave", "mark.sh"),
		"#!/bin/sh\njq -r '.tool_input.command' >> '"+marker+"'\n")
	writeFile(t, filepath.Join(env.project, ".wave", "settings.json"), markSettings)
	return env, marker
}

// markSettings run the project's .wave/mark.sh on every Bash call.
const markSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh .wave/mark.sh"}]}]}}`

// markCase is a case that passes when a hook whose command has mark.sh ran,
// with the settings file it names.
func markCase(settingsPath string) string {
	return `{"name": "marks", "event": "PreToolUse", "settings": "` + settingsPath + `",
  "input": {"tool_name": "Bash", "tool_input": {"command": "ls"}}, "expect": {"ran": "mark.sh"}}`
}

func requireNotRan(t *testing.T, marker string) {
	t.Helper()
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "a hook ran: %s exists", marker)
}

func requireRan(t *testing.T, marker string) {
	t.Helper()
	b, err := os.ReadFile(marker)
	require.NoError(t, err, "no hook ran")
	require.Contains(t, string(b), "ls")
	require.NoError(t, os.Remove(marker))
}

// requireRefused checks a refused run: exit 2, nothing on stdout, and the
// message says how to trust.
func requireRefused(t *testing.T, out, stderr string, code int) {
	t.Helper()
	require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	require.Empty(t, out)
	require.Contains(t, stderr, "wavehooks test: refused: ")
	require.Contains(t, stderr, "nothing ran")
	require.Contains(t, stderr, "--trust-workspace")
}

// TestHookTestRefusesUntrustedWorkspaceContent: a case file in the
// workspace, or a settings file or script a case names there (through `..`
// or a symlink too), runs nothing while the workspace is untrusted; a case
// file and settings of the user's own outside it run as before;
// --trust-workspace runs them all.
func TestHookTestRefusesUntrustedWorkspaceContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup writes the case files and returns the arguments after `test`.
		setup   func(t *testing.T, env cliEnv) []string
		refused bool
		why     string // in the refusal
	}{
		{"no path: the repository's .wave/tests names its own .wave/settings.json", func(t *testing.T, env cliEnv) []string {
			writeFile(t, filepath.Join(env.project, ".wave", "tests", "own.test.json"), markCase("../settings.json"))
			return nil
		}, true, "`wavehooks trust`"},
		{"a case file in the workspace naming the user's own settings outside it", func(t *testing.T, env cliEnv) []string {
			own := filepath.Join(t.TempDir(), "mine.json")
			writeFile(t, own, strings.ReplaceAll(markSettings, "sh .wave/mark.sh", "sh "+filepath.Join(env.project, ".wave", "mark.sh")))
			writeFile(t, filepath.Join(env.project, ".wave", "tests", "mine.test.json"), markCase(own))
			return nil
		}, true, ".wave/tests/mine.test.json"},
		{"a case outside naming settings outside whose hook runs a workspace script", func(t *testing.T, env cliEnv) []string {
			dir := writeCases(t, map[string]string{"s.test.json": markCase("hooks.json"), "hooks.json": markSettings})
			return []string{dir}
		}, true, ".wave/mark.sh"},
		{"a case outside naming the workspace's settings through ..", func(t *testing.T, env cliEnv) []string {
			dir := t.TempDir()
			rel, err := filepath.Rel(dir, filepath.Join(env.project, ".wave", "settings.json"))
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(rel, ".."), rel)
			writeFile(t, filepath.Join(dir, "dots.test.json"), markCase(rel))
			return []string{dir}
		}, true, ".wave/settings.json"},
		{"a case outside naming a symlink that points into the workspace", func(t *testing.T, env cliEnv) []string {
			dir := writeCases(t, map[string]string{"link.test.json": markCase("link.json")})
			require.NoError(t, os.Symlink(filepath.Join(env.project, ".wave", "settings.json"), filepath.Join(dir, "link.json")))
			return []string{dir}
		}, true, "link.json"},
		{"a case outside naming settings through a symlinked directory into the workspace", func(t *testing.T, env cliEnv) []string {
			dir := writeCases(t, map[string]string{"dir.test.json": markCase("wave/settings.json")})
			require.NoError(t, os.Symlink(filepath.Join(env.project, ".wave"), filepath.Join(dir, "wave")))
			return []string{dir}
		}, true, "settings.json"},
		{"the user's own case and settings outside the workspace run as before", func(t *testing.T, env cliEnv) []string {
			dir := t.TempDir()
			script := filepath.Join(dir, "mark.sh")
			b, err := os.ReadFile(filepath.Join(env.project, ".wave", "mark.sh"))
			require.NoError(t, err)
			writeFile(t, script, string(b))
			writeFile(t, filepath.Join(dir, "hooks.json"), strings.ReplaceAll(markSettings, "sh .wave/mark.sh", "sh "+script))
			writeFile(t, filepath.Join(dir, "own.test.json"), markCase("hooks.json"))
			return []string{dir}
		}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, marker := markerProject(t)
			args := append([]string{"test"}, tc.setup(t, env)...)
			out, stderr, code := env.run(t, "", args...)
			if tc.refused {
				requireRefused(t, out, stderr, code)
				require.Contains(t, stderr, tc.why)
				require.Contains(t, stderr, "`wavehooks trust`")
				requireNotRan(t, marker)
			} else {
				require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
				requireRan(t, marker)
			}

			// --trust-workspace keeps its meaning: everything runs.
			out, stderr, code = env.run(t, "", append(args, "--trust-workspace")...)
			require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
			require.True(t, strings.HasSuffix(out, "1 passed, 0 failed\n"), out)
			requireRan(t, marker)
		})
	}
}

// TestHookTestTrustCoversCases: `wavehooks trust --yes` trusts the
// repository's .wave/tests with the settings files and scripts its cases
// name, and `wavehooks test` then runs them; editing any of them (the case
// file, the settings file it names, the script that file's hook runs)
// refuses the run again until the workspace is trusted again. A case file
// elsewhere in the workspace is not covered by that trust: it needs
// --trust-workspace.
func TestHookTestTrustCoversCases(t *testing.T) {
	env, marker := markerProject(t)
	tests := filepath.Join(env.project, ".wave", "tests")
	caseFile := filepath.Join(tests, "a.test.json")
	hooksFile := filepath.Join(tests, "hooks.json") // named by the case only: not a settings file of the workspace
	script := filepath.Join(env.project, "tools", "mark.sh")
	b, err := os.ReadFile(filepath.Join(env.project, ".wave", "mark.sh"))
	require.NoError(t, err)
	writeFile(t, script, string(b))
	require.NoError(t, os.Remove(filepath.Join(env.project, ".wave", "settings.json")), "no hooks of its own: only the tests need trust")
	writeFile(t, hooksFile, strings.ReplaceAll(markSettings, "sh .wave/mark.sh", "sh tools/mark.sh"))
	writeFile(t, caseFile, markCase("hooks.json"))

	refused := func(what string) {
		t.Helper()
		out, stderr, code := env.run(t, "", "test")
		requireRefused(t, out, stderr, code)
		require.Contains(t, stderr, "`wavehooks trust`", what)
		requireNotRan(t, marker)
	}
	trustAndRun := func() {
		t.Helper()
		out, stderr, code := env.run(t, "", "trust", "--yes")
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
		require.Contains(t, out, "Hook test files `wavehooks test` may then use")
		require.Contains(t, out, ".wave/tests/a.test.json")
		require.Contains(t, out, "tools/mark.sh")
		require.Contains(t, out, "• sh tools/mark.sh", "the commands the cases run are listed")
		out, stderr, code = env.run(t, "", "test")
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
		require.Equal(t, "PASS marks\n1 passed, 0 failed\n", out)
		requireRan(t, marker)
	}

	refused("untrusted")
	trustAndRun()

	for _, edit := range []struct{ name, file, text string }{
		{"the case file", caseFile, strings.Replace(markCase("hooks.json"), `"ls"`, `"ls -l"`, 1)},
		{"the settings file it names", hooksFile, strings.ReplaceAll(markSettings, "sh .wave/mark.sh", "sh tools/mark.sh  ")},
		{"the script that settings file runs", script, string(b) + "# edited\n"},
	} {
		t.Run("edit "+edit.name, func(t *testing.T) {
			writeFile(t, edit.file, edit.text)
			refused("edited " + edit.name)
			trustAndRun()
		})
	}

	// A case file elsewhere in the trusted workspace is not what the trust covers.
	other := filepath.Join(env.project, "testdata", "hooktests", "b.test.json")
	writeFile(t, other, markCase("../../.wave/tests/hooks.json"))
	out, stderr, code := env.run(t, "", "test", filepath.Dir(other))
	requireRefused(t, out, stderr, code)
	require.Contains(t, stderr, "does not cover")
	requireNotRan(t, marker)
	out, stderr, code = env.run(t, "", "test", filepath.Dir(other), "--trust-workspace")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	requireRan(t, marker)

	// Revoked: refused again.
	_, stderr, code = env.run(t, "", "trust", "--revoke")
	require.Equal(t, 0, code, stderr)
	refused("revoked")
}
