package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hook answers the adversarial review of issue #12 found read the unsafe
// way, through the real binary: `wavehooks run PreToolUse` on `rm -rf /`
// with one real sh hook that reads its stdin with jq.
func TestRunReadsHookAnswersTheSafeWay(t *testing.T) {
	const rmRF = `{"session_id":"s1","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`
	cases := []struct {
		name, hook string
		permission string
		cont       bool
		block      string // a block whose content must be in the result
	}{
		// Exit 2 blocks and its stdout is not read (as Claude Code 2.1.330 does).
		{"exit 2 with {} on stdout denies", `echo '{}'; echo no >&2; exit 2`, "deny", true, "stdout ignored: exit 2 blocks"},
		{"exit 2 with an explicit allow denies",
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo no >&2; exit 2`,
			"deny", true, "stdout ignored: exit 2 blocks"},
		// Keys are case-sensitive: these decide nothing, and a warning names the key.
		{"an upper-case deny is ignored", `echo '{"HOOKSPECIFICOUTPUT":{"PERMISSIONDECISION":"deny"}}'`, "allow", true,
			`ignored key \"HOOKSPECIFICOUTPUT\": keys are case-sensitive; did you mean \"hookSpecificOutput\"?`},
		{"Continue false is ignored", `echo '{"Continue":false}'`, "allow", true,
			`ignored key \"Continue\": keys are case-sensitive; did you mean \"continue\"?`},
		// A deny longer than the 1 MiB cap is cut: it denies (fail closed) with an error naming the cap.
		{"a deny cut at the cap denies",
			`printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"'; head -c 2000000 /dev/zero | tr '\0' r; printf '"}}'`,
			"deny", true, "longer than the 1048576-byte output cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hook := `jq -e '.tool_input.command == "rm -rf /"' >/dev/null || exit 1; ` + c.hook
			settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": hook}}}}}})
			require.NoError(t, err)
			env := newCLIEnv(t, string(settings))
			out, stderr, code := env.run(t, rmRF, "run", "PreToolUse")
			require.Equal(t, 0, code, stderr)
			var r struct {
				Permission string            `json:"permission"`
				Continue   bool              `json:"continue"`
				Blocks     []json.RawMessage `json:"blocks"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &r), out)
			require.Equal(t, c.permission, r.Permission)
			require.Equal(t, c.cont, r.Continue)
			require.Contains(t, fmt.Sprintf("%s", r.Blocks), c.block)
		})
	}
}

// --explain tells why the JSON of a hook that exited 2 did not count.
func TestRunExplainSaysStdoutOfExitTwoIsIgnored(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command",
		"command": "cat >/dev/null; echo '{\"decision\": \"approve\"}'; echo 'tests are red' >&2; exit 2"}]}]}}`)
	out, _, code := env.run(t, `{}`, "run", "Stop", "--explain")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Stop: blocked; reason: tests are red")
	require.Contains(t, out, "decision: exit 2: block; stdout ignored: exit 2 blocks")
}
