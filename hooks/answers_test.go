package hooks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// Exit 2 blocks on every event whatever the hook prints on stdout, as the
// real Claude Code does (measured with 2.1.330: `{}` and an explicit
// permissionDecision "allow" both block). The JSON is not read; a warning
// and the run's decision say it was ignored. The outcome is compared with
// the same hook printing nothing.
func TestExitTwoBlocksWhateverStdoutSays(t *testing.T) {
	// The events whose hooks' output Claude Code discards (hooks reference:
	// StopFailure, InstructionsLoaded, WorktreeRemove).
	discardsOutput := map[event.Event]bool{event.StopFailure: true, event.InstructionsLoaded: true, event.WorktreeRemove: true}
	for _, ev := range event.Events() {
		t.Run(string(ev), func(t *testing.T) {
			fire := func(stdout string) hooks.Result {
				cmd := `jq -r .hook_event_name >/dev/null; printf '%s' '` + stdout + `'; echo no >&2; exit 2`
				e, root := setup(t, one(ev, cmd))
				return e.Fire(context.Background(), event.Input{Event: ev, SessionID: "s", Cwd: root})
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
			if ev == event.PreToolUse || ev == event.PermissionRequest {
				require.Equal(t, hooks.PermissionDeny, want.Permission)
				require.Equal(t, "no", want.Reason, "the model gets stderr as the reason")
			}
		})
	}
}

// A hook that exits 2 and prints a JSON answer that itself blocks — a
// "block" decision, PreToolUse's permissionDecision "deny",
// PermissionRequest's behavior "deny" — blocks with that answer's reason as
// the feedback, even when stderr is set: measured with Claude Code 2.1.330
// and 2.1.332 (conformance scenarios stop-exit2-json, pre-exit2-deny-json,
// pre-exit2-block-json, post-exit2-json, prompt-exit2-json,
// expansion-exit2-json, permission-exit2-deny-json). A JSON answer that does
// not block (allow, ask, a bare "reason") leaves stderr the feedback
// (pre-exit2-allow-json, pre-exit2-ask-json, failure-exit2-json,
// stop-exit2-json-no-stderr, task-completed-exit2-json).
func TestExitTwoTakesTheBlockingJSONsReason(t *testing.T) {
	cases := []struct {
		name   string
		event  event.Event
		stdout string
		stderr string
		reason string
	}{
		{"Stop block, stderr set", event.Stop, `{"decision":"block","reason":"run the tests"}`, "stderr text", "run the tests"},
		{"Stop block, no stderr", event.Stop, `{"decision":"block","reason":"run the tests"}`, "", "run the tests"},
		{"Stop reason without a decision", event.Stop, `{"reason":"not a block"}`, "stderr text", "stderr text"},
		{"SubagentStop block", event.SubagentStop, `{"decision":"block","reason":"keep going"}`, "stderr text", "keep going"},
		{"PreToolUse deny", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}`, "stderr text", "no rm"},
		{"PreToolUse top-level block", event.PreToolUse, `{"decision":"block","reason":"no rm"}`, "stderr text", "no rm"},
		{"PreToolUse deny without a reason keeps stderr", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "stderr text", "stderr text"},
		{"PreToolUse allow keeps stderr", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}`, "stderr text", "stderr text"},
		{"PreToolUse ask keeps stderr", event.PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "stderr text", "stderr text"},
		{"PermissionRequest deny message", event.PermissionRequest, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`, "stderr text", "not on main"},
		{"PostToolUse block", event.PostToolUse, `{"decision":"block","reason":"lint failed"}`, "stderr text", "lint failed"},
		{"UserPromptSubmit block", event.UserPromptSubmit, `{"decision":"block","reason":"no secrets"}`, "stderr text", "no secrets"},
		{"invalid JSON keeps stderr", event.Stop, `{"decision":"block"}`, "stderr text", "stderr text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := `jq -r .hook_event_name >/dev/null; printf '%s' '` + c.stdout + `'`
			if c.stderr != "" {
				cmd += `; echo '` + c.stderr + `' >&2`
			}
			e, root := setup(t, one(c.event, cmd+"; exit 2"))
			res := e.Fire(context.Background(), input(c.event, root))
			if c.event == event.PreToolUse || c.event == event.PermissionRequest {
				require.Equal(t, hooks.PermissionDeny, res.Permission)
			} else {
				require.True(t, res.Blocked)
			}
			require.Equal(t, c.reason, res.Reason)
			require.True(t, res.Continue)
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
		event    event.Event
		out      string
		check    func(t *testing.T, r hooks.Result)
		warnings []string
	}{
		{"upper-case hookSpecificOutput is ignored", event.PreToolUse, `{"HOOKSPECIFICOUTPUT":{"PERMISSIONDECISION":"deny"}}`,
			func(t *testing.T, r hooks.Result) { require.Equal(t, hooks.PermissionNone, r.Permission) },
			[]string{`ignored key "HOOKSPECIFICOUTPUT": keys are case-sensitive; did you mean "hookSpecificOutput"?`}},
		{"Continue is not continue", event.PostToolUse, `{"Continue":false,"StopReason":"halt"}`,
			func(t *testing.T, r hooks.Result) {
				require.True(t, r.Continue)
				require.Empty(t, r.StopReason)
			},
			[]string{`ignored key "Continue": keys are case-sensitive; did you mean "continue"?`,
				`ignored key "StopReason": keys are case-sensitive; did you mean "stopReason"?`}},
		{"a nested key in the wrong case", event.PreToolUse,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","PermissionDecision":"deny","permissionDecisionReason":"x"}}`,
			func(t *testing.T, r hooks.Result) { require.Equal(t, hooks.PermissionNone, r.Permission) },
			[]string{`ignored key "hookSpecificOutput.PermissionDecision": keys are case-sensitive; did you mean "hookSpecificOutput.permissionDecision"?`}},
		{"the exact key wins beside its miscased twin", event.Stop, `{"Decision":"approve","decision":"block","reason":"tests are red"}`,
			func(t *testing.T, r hooks.Result) {
				require.True(t, r.Blocked)
				require.Equal(t, "tests are red", r.Reason)
			},
			[]string{`ignored key "Decision": keys are case-sensitive; did you mean "decision"?`}},
		{"a miscased key does not hide a type error", event.Stop, `{"SystemMessage":"x","continue":"no"}`,
			func(t *testing.T, r hooks.Result) { require.True(t, r.Continue) },
			[]string{"hook output ignored: continue must be a boolean, not string",
				`ignored key "SystemMessage": keys are case-sensitive; did you mean "systemMessage"?`}},
		{"unknown keys stay silent", event.Stop, `{"continueX":false,"somethingNew":1}`,
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
