package acp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
)

// One decision (issue #36 item 1): every answer shape a PreToolUse hook
// can give goes through flow's rules once and flow.Decide once, and every
// path acts on that one decision — serve and `wavehooks run` (the wire
// result), a permission request, a file or terminal request, the Claude
// Code bridge, the Codex bridge, and a decided call whose input changed.
// Each path's action is read back as what happens to the call: it runs, is
// refused, stops the turn, asks the user, or is left to the agent's or the
// editor's own flow. The rows say what each path must do; where paths
// differ, it is only in what their peer can take (an ask the agent puts
// itself, an updatedInput the agent cannot run), never in the verdict.
func TestEveryPathActsOnTheSameDecision(t *testing.T) {
	const (
		run      = "run"
		rewrite  = "run rewritten"
		refuse   = "refuse"
		stop     = "stop"
		ask      = "ask"
		handOver = "hand over" // the agent's mode, or the editor's own prompt, decides
	)
	rewritten := json.RawMessage(`{"command":"ls -la"}`)
	type paths struct{ wire, permission, operation, claude, codex, changed string }
	for _, c := range []struct {
		name    string
		res     hooks.Result
		verdict flow.Verdict
		want    paths
	}{
		{"no hook decided", hooks.Result{Continue: true, Permission: hooks.PermissionNone}, flow.VerdictNone,
			paths{wire: "allow", permission: handOver, operation: handOver, claude: handOver, codex: handOver, changed: ask}},
		{"allow", hooks.Result{Continue: true, Permission: hooks.PermissionAllow}, flow.VerdictAllow,
			paths{wire: "allow", permission: run, operation: run, claude: run, codex: run, changed: run}},
		{"allow with updatedInput", hooks.Result{Continue: true, Permission: hooks.PermissionAllow, UpdatedInput: rewritten}, flow.VerdictAllow,
			paths{wire: "allow", permission: ask, operation: rewrite, claude: rewrite, codex: ask, changed: ask}},
		{"ask", hooks.Result{Continue: true, Permission: hooks.PermissionAsk, Reason: "sure?"}, flow.VerdictAsk,
			paths{wire: "ask", permission: handOver, operation: ask, claude: ask, codex: ask, changed: ask}},
		{"deny", hooks.Result{Continue: true, Permission: hooks.PermissionDeny, Reason: "no"}, flow.VerdictDeny,
			paths{wire: "deny", permission: refuse, operation: refuse, claude: refuse, codex: refuse, changed: refuse}},
		{"defer", hooks.Result{Continue: true, Permission: hooks.PermissionDefer}, flow.VerdictDefer,
			paths{wire: "defer", permission: refuse, operation: refuse, claude: refuse, codex: refuse, changed: refuse}},
		{"continue:false", hooks.Result{Continue: false, StopReason: "enough", Permission: hooks.PermissionAllow}, flow.VerdictStop,
			paths{wire: "deny", permission: stop, operation: stop, claude: stop, codex: stop, changed: stop}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := event.Input{Event: event.PreToolUse, ToolName: "Bash", ToolUseID: "t1", ToolInput: json.RawMessage(`{"command":"ls"}`)}
			// What the session makes of the answer where the user is asked
			// outside it (ACP, `wavehooks run`); serve asks inside, which
			// turns an ask into allow or stop before anyone reads it.
			out := session.Outcome{Answer: flow.After(in, c.res, nil, flow.Facts{Ask: flow.AskedElsewhere}).Answer}
			d := flow.Decide(event.PreToolUse, in.ToolName, in.ToolInput, true, &out.Answer)
			require.Equal(t, c.verdict, d.Verdict, "the one decision")

			got := paths{wire: wire.PreToolUse(out, in.ToolInput).Permission}
			switch permissionAction(event.PreToolUse, false, d) {
			case permAllow:
				got.permission = run
			case permDeny:
				got.permission = refuse
				if d.Verdict == flow.VerdictStop {
					got.permission = stop
				}
			case permAskRewritten:
				got.permission = ask
			case permNext, permAskEditor:
				got.permission = handOver
			}
			read := func(a toolAction) string {
				switch {
				case a.refuse != "" && a.stop:
					return stop
				case a.refuse != "":
					return refuse
				case a.askAgent != "" || a.askUser != "":
					return ask
				case a.allow && a.rewrite:
					return rewrite
				case a.allow:
					return run
				}
				return handOver
			}
			// clientOperation: the session asks the user itself there, so
			// the row's ask is a question of the session's own, which the
			// action reads back as one.
			got.operation = read(actionFor(d, false, operationPoint))
			got.claude = read(actionFor(d, false, bridgePoint(agents.For("claude-agent-acp", nil))))
			got.codex = read(actionFor(d, false, bridgePoint(agents.For("", []string{"codex-acp"}))))
			got.changed = read(actionFor(d, false, changedInputPoint))
			require.Equal(t, c.want, got)

			// Hooks that could not run, and a turn the editor cancelled, are
			// refusals on every path.
			failed := flow.Decide(event.PreToolUse, in.ToolName, in.ToolInput, false, &out.Answer)
			require.Equal(t, flow.VerdictDeny, failed.Verdict)
			require.Equal(t, permDeny, permissionAction(event.PreToolUse, false, failed))
			for _, at := range []decisionPoint{bridgePoint(agents.For("claude-agent-acp", nil)), bridgePoint(agents.For("", []string{"codex-acp"})), changedInputPoint} {
				require.NotEmpty(t, actionFor(failed, false, at).refuse)
				require.NotEmpty(t, actionFor(d, true, at).refuse, "cancelled")
			}
		})
	}
}
