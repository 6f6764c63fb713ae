package hooks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// TestPermissionDecisionPerEvent: each event reads the permissionDecision
// values Claude Code 2.1.332's schema gives it, and rejects the others
// (the exit code then decides, as for any answer that does not validate).
func TestPermissionDecisionPerEvent(t *testing.T) {
	cases := []struct {
		event    event.Event
		decision string
		want     hooks.Permission
		problem  string
	}{
		{event.PreModelSwitch, "deny", hooks.PermissionDeny, ""},
		{event.PreModelSwitch, "defer", "", `permissionDecision must be "allow", "deny" or "ask", not "defer"`},
		{event.PreSkillShellCommand, "defer", hooks.PermissionDefer, ""},
		{event.PostModelSwitch, "deny", "", "permissionDecision only applies to PreToolUse, PreModelSwitch and PreSkillShellCommand, not PostModelSwitch"},
	}
	for _, c := range cases {
		t.Run(string(c.event)+" "+c.decision, func(t *testing.T) {
			e, root := setup(t, one(c.event, `jq -n --arg e "$(jq -r .hook_event_name)" --arg d "`+c.decision+
				`" '{hookSpecificOutput: {hookEventName: $e, permissionDecision: $d}}'`))
			in := event.Input{Event: c.event, Cwd: root, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
			res := e.Fire(context.Background(), in)
			require.Equal(t, c.want, res.Permission)
			if c.problem == "" {
				require.Empty(t, res.Warnings)
			} else {
				require.Equal(t, []string{"hook output ignored: " + c.problem}, res.Warnings)
			}
		})
	}
}

// TestDeferRanksBetweenDenyAndAsk: when hooks disagree, deny > defer > ask
// > allow, as Claude Code documents.
func TestDeferRanksBetweenDenyAndAsk(t *testing.T) {
	answer := func(d string) map[string]any {
		return map[string]any{"type": "command", "command": `cat >/dev/null; jq -n '{hookSpecificOutput: {hookEventName: "PreSkillShellCommand", permissionDecision: "` + d + `"}}'`}
	}
	for _, c := range []struct {
		decisions []string
		want      hooks.Permission
	}{
		{[]string{"allow", "ask", "defer"}, hooks.PermissionDefer},
		{[]string{"defer", "deny", "ask"}, hooks.PermissionDeny},
		{[]string{"allow", "ask"}, hooks.PermissionAsk},
	} {
		var hs []any
		for _, d := range c.decisions {
			hs = append(hs, answer(d))
		}
		b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreSkillShellCommand": []any{map[string]any{"hooks": hs}}}})
		e, root := setup(t, string(b))
		res := e.Fire(context.Background(), event.Input{Event: event.PreSkillShellCommand, Cwd: root, ToolName: "Bash"})
		require.Equal(t, c.want, res.Permission, c.decisions)
	}
}
