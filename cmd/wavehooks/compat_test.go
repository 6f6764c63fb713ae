package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A hook whose interpreter's script is missing denies every tool (python3
// exits 2 for a missing script, and exit 2 blocks): lint says so before the
// agent finds out.
func TestLintFindsAnInterpretersMissingScript(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "python3 .claude/hooks/missing.py"}]}]}}`)
	out, _, code := env.run(t, "", "lint", "--project", env.project)
	require.Equal(t, 1, code)
	require.Contains(t, out, "script "+env.project+"/.claude/hooks/missing.py does not exist; python3 exits with code 2, a blocking error")

	// What lint warns about is real: the hook denies a harmless ls.
	res, stderr, code := env.run(t, `{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}}`, "run", "PreToolUse", "--project", env.project)
	require.Equal(t, 0, code, stderr)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(res), &r))
	require.Equal(t, "deny", r["permission"])
}

// run --explain says which "if" rule skipped a hook, and why.
func TestRunExplainsAnIfRule(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "echo no git >&2; exit 2", "if": "Bash(git *)"}]}]}}`)
	out, _, code := env.run(t, `{"tool_name":"Bash","tool_input":{"command":"ls -la"}}`, "run", "PreToolUse", "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, out, `if "Bash(git *)": no subcommand of "ls -la" matches git *`)
	require.Contains(t, out, `did not run: its "if" rule does not match`)

	out, _, _ = env.run(t, `{"tool_name":"Bash","tool_input":{"command":"cd src && git push"}}`, "run", "PreToolUse", "--explain")
	require.Contains(t, out, `if "Bash(git *)": the subcommand "git push" matches git *`)
	require.Contains(t, out, "decision: exit 2: deny")
}

// wavehooks run prints what a SessionStart hook wrote to CLAUDE_ENV_FILE.
func TestRunPrintsTheEnvFilesVariables(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "set -u; echo 'export A=1' >> \"$CLAUDE_ENV_FILE\""}]}]}}`)
	out, stderr, code := env.run(t, `{"source":"startup"}`, "run", "SessionStart")
	require.Equal(t, 0, code, stderr)
	var r map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.Equal(t, map[string]any{"A": "1"}, r["env"])
}

// wavehooks run says whether a PreToolUse hook decided.
func TestRunPrintsTheDecision(t *testing.T) {
	env := newCLIEnv(t, demoSettings)
	for stdin, want := range map[string]string{
		`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`:       "deny",
		`{"tool_name":"Bash","tool_input":{"command":"ls"}}`:             "none",
		`{"tool_name":"Write","tool_input":{"file_path":"/etc/hosts"}}`:  "ask",
		`{"tool_name":"Write","tool_input":{"file_path":"/p/src/a.go"}}`: "none",
	} {
		out, stderr, code := env.run(t, stdin, "run", "PreToolUse")
		require.Equal(t, 0, code, stderr)
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, want, r["decision"], stdin)
	}
}
