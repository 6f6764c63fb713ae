package hooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
)

// Exit 2 blocks on every event whatever the hook prints on stdout, as the
// real Claude Code does (measured with 2.1.330: `{}` and an explicit
// permissionDecision "allow" both block). The JSON is not read; a warning
// and the run's decision say it was ignored. The outcome is compared with
// the same hook printing nothing.
func TestExitTwoBlocksWhateverStdoutSays(t *testing.T) {
	// The events whose hooks' output Claude Code discards (hooks reference:
	// StopFailure, InstructionsLoaded, WorktreeRemove).
	discardsOutput := map[hooks.Event]bool{hooks.StopFailure: true, hooks.InstructionsLoaded: true, hooks.WorktreeRemove: true}
	for _, ev := range hooks.Events() {
		t.Run(string(ev), func(t *testing.T) {
			fire := func(stdout string) hooks.Result {
				cmd := `jq -r .hook_event_name >/dev/null; printf '%s' '` + stdout + `'; echo no >&2; exit 2`
				e, root := setup(t, one(ev, cmd))
				return e.Fire(context.Background(), hooks.Input{Event: ev, SessionID: "s", Cwd: root})
			}
			want := fire("")
			require.Empty(t, want.Warnings)
			for _, stdout := range []string{
				`{}`,
				`{"continue":true,"decision":"approve","reason":"fine"}`,
				`{"hookSpecificOutput":{"hookEventName":"` + string(ev) + `","permissionDecision":"allow","decision":{"behavior":"allow"}}}`,
				`{"continue":false,"stopReason":"would stop"}`,
			} {
				got := fire(stdout)
				require.Equal(t, want.Permission, got.Permission, stdout)
				require.Equal(t, want.Blocked, got.Blocked, stdout)
				require.Equal(t, want.Reason, got.Reason, stdout)
				require.Equal(t, want.Errors, got.Errors, stdout)
				require.True(t, got.Continue, "stdout of an exit 2 is not read, continue:false included")
				if discardsOutput[ev] {
					// Claude Code ignores all these hooks print; the run
					// history says so and nothing is shown.
					require.Empty(t, got.Warnings, stdout)
					require.Contains(t, got.Runs[0].Decision, "output discarded")
					continue
				}
				require.Len(t, got.Warnings, 1, stdout)
				require.Contains(t, got.Warnings[0], "stdout ignored: exit 2 blocks")
				require.False(t, got.Runs[0].JSON)
				require.Contains(t, got.Runs[0].Decision, "stdout ignored: exit 2 blocks")
				require.Contains(t, strings.Join(got.Runs[0].Problems, "\n"), "stdout ignored: exit 2 blocks")
			}
			if ev == hooks.PreToolUse || ev == hooks.PermissionRequest {
				require.Equal(t, hooks.PermissionDeny, want.Permission)
				require.Equal(t, "no", want.Reason, "the model gets stderr as the reason")
			}
		})
	}
}

// Keys of a hook's answer match exactly, as in Claude Code, which ignores
// {"Continue": false} and an upper-case hookSpecificOutput (measured: the
// tool ran). encoding/json alone would match them whatever their case. A
// key that differs from a known one only in case gets a warning naming it.
func TestJSONKeysAreCaseSensitive(t *testing.T) {
	cases := []struct {
		name     string
		event    hooks.Event
		out      string
		check    func(t *testing.T, r hooks.Result)
		warnings []string
	}{
		{"upper-case hookSpecificOutput is ignored", hooks.PreToolUse, `{"HOOKSPECIFICOUTPUT":{"PERMISSIONDECISION":"deny"}}`,
			func(t *testing.T, r hooks.Result) { require.Equal(t, hooks.PermissionNone, r.Permission) },
			[]string{`ignored key "HOOKSPECIFICOUTPUT": keys are case-sensitive; did you mean "hookSpecificOutput"?`}},
		{"Continue is not continue", hooks.PostToolUse, `{"Continue":false,"StopReason":"halt"}`,
			func(t *testing.T, r hooks.Result) {
				require.True(t, r.Continue)
				require.Empty(t, r.StopReason)
			},
			[]string{`ignored key "Continue": keys are case-sensitive; did you mean "continue"?`,
				`ignored key "StopReason": keys are case-sensitive; did you mean "stopReason"?`}},
		{"a nested key in the wrong case", hooks.PreToolUse,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","PermissionDecision":"deny","permissionDecisionReason":"x"}}`,
			func(t *testing.T, r hooks.Result) { require.Equal(t, hooks.PermissionNone, r.Permission) },
			[]string{`ignored key "hookSpecificOutput.PermissionDecision": keys are case-sensitive; did you mean "hookSpecificOutput.permissionDecision"?`}},
		{"the exact key wins beside its miscased twin", hooks.Stop, `{"Decision":"approve","decision":"block","reason":"tests are red"}`,
			func(t *testing.T, r hooks.Result) {
				require.True(t, r.Blocked)
				require.Equal(t, "tests are red", r.Reason)
			},
			[]string{`ignored key "Decision": keys are case-sensitive; did you mean "decision"?`}},
		{"a miscased key does not hide a type error", hooks.Stop, `{"SystemMessage":"x","continue":"no"}`,
			func(t *testing.T, r hooks.Result) { require.True(t, r.Continue) },
			[]string{"hook output ignored: continue must be a boolean, not string",
				`ignored key "SystemMessage": keys are case-sensitive; did you mean "systemMessage"?`}},
		{"unknown keys stay silent", hooks.Stop, `{"continueX":false,"somethingNew":1}`,
			func(t *testing.T, r hooks.Result) { require.True(t, r.Continue) }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(c.event, "jq -c . >/dev/null; echo '"+c.out+"'"))
			res := e.Fire(context.Background(), input(c.event, root))
			c.check(t, res)
			require.Equal(t, c.warnings, res.Warnings)
			for _, w := range c.warnings {
				require.Contains(t, res.Runs[0].Problems, strings.TrimPrefix(w, "hook output ignored: "),
					"the run history (and --explain) names it too")
			}
		})
	}
}
