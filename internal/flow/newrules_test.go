package flow_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
)

// TestSkillShellCommandRules: only a refusal keeps a skill's shell command
// from running; each refusal gives the host a reason to show.
func TestSkillShellCommandRules(t *testing.T) {
	in := event.Input{Event: event.PreSkillShellCommand, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	with := func(f func(*hooks.Result)) hooks.Result {
		r := ok(event.PreSkillShellCommand)
		f(&r)
		return r
	}
	cases := []struct {
		name           string
		res            hooks.Result
		perm, reason   string
		blocked, stops bool
	}{
		{"no answer runs it", ok(event.PreSkillShellCommand), "allow", "", false, false},
		{"allow adds nothing", with(func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionAllow, "fine" }), "allow", "", false, false},
		{"deny", with(func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionDeny, "no" }), "deny", "no", true, false},
		{"ask", with(func(r *hooks.Result) { r.Permission, r.Reason = hooks.PermissionAsk, "sure?" }), "deny", flow.SkillAskRefused + ": sure?", true, false},
		{"defer", with(func(r *hooks.Result) { r.Permission = hooks.PermissionDefer }), "deny", flow.SkillDeferRefused, true, false},
		{"updatedInput with allow", with(func(r *hooks.Result) {
			r.Permission, r.UpdatedInput = hooks.PermissionAllow, json.RawMessage(`{"command":"echo"}`)
		}), "deny", flow.SkillRewriteRefused, true, false},
		{"continue:false", with(func(r *hooks.Result) { r.Continue, r.StopReason = false, "halt" }), "deny", "stopped by hook: halt", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := flow.After(in, c.res, state{}, flow.Facts{})
			require.Equal(t, c.perm, e.Permission)
			require.Equal(t, c.reason, e.Reason)
			require.Equal(t, c.blocked, e.Blocked)
			require.Equal(t, !c.stops, e.Continue)
		})
	}
}

// TestPreToolUseDefer: a deferred call does not run, stays pending (no
// result in its block), ignores updatedInput and additionalContext, and
// reads as a deny to anyone who knows no defer.
func TestPreToolUseDefer(t *testing.T) {
	res := ok(event.PreToolUse)
	res.Permission, res.UpdatedInput, res.AdditionalContext = hooks.PermissionDefer, json.RawMessage(`{"command":"rm"}`), []string{"ctx"}
	e := flow.After(bash, res, state{}, flow.Facts{})
	require.Equal(t, "deny", e.Permission)
	require.Equal(t, "defer", e.Decision)
	require.Equal(t, flow.DeferReason, e.Reason)
	require.JSONEq(t, `{"command":"ls"}`, string(e.ToolInput))
	require.Empty(t, e.AdditionalContext)
	require.True(t, e.Continue)
	for _, c := range e.Changes {
		require.NotEqual(t, flow.SetToolResult, c.Kind, "the call stays pending")
		require.NotEqual(t, flow.Context, c.Kind)
	}
	require.Nil(t, flow.QuestionsFor(bash, res).Ask, "nobody is asked")
}
