package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/lsp"
)

// A serve session's decisions are in the audit log under the wave home: the
// hook's deny of rm -rf, and the ask a hook raised with its answer and who
// gave it — the user in the editor's prompt, the user through
// wave/resolvePermission, or the ask's timeout; the chain verifies with
// the log's key.
func TestServeSessionDecisionsAreInTheAuditLog(t *testing.T) {
	askCommand, err := json.Marshal(askHook)
	require.NoError(t, err)
	settings := `{"hooks": {"PreToolUse": [
	  {"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]},
	  {"matcher": "Write", "hooks": [{"type": "command", "command": ` + string(askCommand) + `}]}]}}`
	for _, tc := range []struct {
		name       string
		askTimeout time.Duration
		answer     func(e *editor)
		want, by   string
	}{
		{name: "allowed in the prompt", answer: func(e *editor) {
			e.nextPrompt().reply <- &protocol.MessageActionItem{Title: "Allow"}
		}, want: audit.Allow, by: "user in the editor: prompt"},
		{name: "denied through wave/resolvePermission", answer: func(e *editor) {
			e.nextPrompt() // shown; answered another way
			var pending lsp.ListPermissionsResult
			require.NoError(e.tb, e.call("wave/listPermissions", nil, &pending))
			require.Len(e.tb, pending.Pending, 1)
			var res lsp.ResolvePermissionResult
			require.NoError(e.tb, e.call("wave/resolvePermission", map[string]any{"id": pending.Pending[0].ID, "decision": "deny"}, &res))
			require.True(e.tb, res.Resolved)
		}, want: audit.Deny, by: "user in the editor: wave/resolvePermission"},
		{name: "unanswered until the timeout", askTimeout: 200 * time.Millisecond, answer: func(e *editor) {
			e.nextPrompt() // shown, never answered
		}, want: audit.Deny, by: "timeout: no answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startEditor(t, editorOpts{settings: settings, serverOpt: lsp.Options{AskTimeout: tc.askTimeout}})
			sid, _ := e.startSession()

			deny := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
				"toolInput": map[string]any{"command": "rm -rf build"}})
			require.Equal(t, "deny", deny["permission"])

			asked := make(chan map[string]any, 1)
			go func() {
				asked <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
					"toolInput": map[string]any{"file_path": filepath.Join(e.root, "a.txt"), "content": "x"}})
			}()
			tc.answer(e)
			require.Equal(t, tc.want, (<-asked)["permission"])

			dir := audit.Dir(e.home)
			var recs []audit.Record
			require.Eventually(t, func() bool {
				var err error
				recs, err = audit.Records(dir)
				return err == nil && len(recs) == 3
			}, 10*time.Second, 10*time.Millisecond, "a deny, an ask's run and its answer")

			byKind := map[string]audit.Record{}
			for _, r := range recs {
				require.Equal(t, audit.HostServe, r.Host)
				require.Equal(t, sid, r.Session)
				require.Len(t, r.InputSHA256, 64)
				byKind[string(r.Kind)+" "+r.Tool] = r
			}
			require.Equal(t, "deny", byKind["run Bash"].Answer)
			require.Equal(t, "hooks", byKind["run Bash"].By)
			require.Equal(t, "ask", byKind["run Write"].Answer)
			answer := byKind["answer Write"]
			require.Equal(t, tc.want, answer.Answer)
			require.Equal(t, tc.by, answer.By)
			require.Equal(t, "please confirm", answer.Reason)

			key, err := audit.ReadKey(audit.KeyPath(dir))
			require.NoError(t, err)
			rep, err := audit.Verify(dir, key)
			require.NoError(t, err)
			require.Nil(t, rep.Problem)
			require.Equal(t, 3, rep.Records)
		})
	}
}
