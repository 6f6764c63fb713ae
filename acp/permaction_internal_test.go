package acp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/session"
)

// One table decides a permission request for PreToolUse and
// PermissionRequest alike; the rows differ only where Claude Code's order
// of events does (PreToolUse with no decision hands over to
// PermissionRequest, which hands over to the editor's prompt).
func TestPermissionAction(t *testing.T) {
	answer := func(decision, permission string, cont bool, rewritten bool) *session.Outcome {
		out := &session.Outcome{Answer: flow.Answer{Decision: decision, Permission: permission, Continue: cont}}
		if rewritten {
			out.Result.UpdatedInput = json.RawMessage(`{"command":"ls"}`)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		cancelled     bool
		notRun        bool
		pre, perm     *session.Outcome // the answer as flow gives it for PreToolUse and for PermissionRequest
		wantPre, want permAction
	}{
		{name: "the editor cancelled", cancelled: true, pre: answer("allow", "allow", true, false), perm: answer("", "allow", true, false),
			wantPre: permCancel, want: permCancel},
		{name: "the hooks could not run", notRun: true, pre: &session.Outcome{}, perm: &session.Outcome{},
			wantPre: permDeny, want: permDeny},
		{name: "deny", pre: answer("deny", "deny", true, false), perm: answer("", "deny", true, false),
			wantPre: permDeny, want: permDeny},
		{name: "continue:false", pre: answer("deny", "deny", false, false), perm: answer("", "deny", false, false),
			wantPre: permDeny, want: permDeny},
		{name: "allow", pre: answer("allow", "allow", true, false), perm: answer("", "allow", true, false),
			wantPre: permAllow, want: permAllow},
		{name: "allow with a rewritten input", pre: answer("allow", "allow", true, true), perm: answer("", "allow", true, true),
			wantPre: permAskRewritten, want: permAskRewritten},
		{name: "no decision", pre: answer("none", "allow", true, false), perm: answer("", "", true, false),
			wantPre: permNext, want: permAskEditor},
		{name: "no decision, a rewritten input", pre: answer("none", "allow", true, true), perm: answer("", "", true, true),
			wantPre: permAskRewritten, want: permAskRewritten},
		{name: "ask (asked elsewhere: the answer stays ask)", pre: answer("ask", "ask", true, false), perm: answer("", "", true, false),
			wantPre: permNext, want: permAskEditor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.wantPre, permissionAction(event.PreToolUse, tc.cancelled,
				flow.Decide(event.PreToolUse, "Bash", nil, !tc.notRun, &tc.pre.Answer)), "PreToolUse")
			require.Equal(t, tc.want, permissionAction(event.PermissionRequest, tc.cancelled,
				flow.Decide(event.PermissionRequest, "Bash", nil, !tc.notRun, &tc.perm.Answer)), "PermissionRequest")
		})
	}
	t.Run("defer denies", func(t *testing.T) {
		require.Equal(t, permDeny, permissionAction(event.PreToolUse, false, flow.Decide(event.PreToolUse, "Bash", nil, true, &answer("defer", "deny", true, false).Answer)))
	})
}
