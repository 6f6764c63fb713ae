package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/internal/audit"
)

// A serve session's decisions are in the audit log under the wave home: the
// hook's deny of rm -rf, and the ask a hook raised with the answer the
// user gave in the editor's prompt; the chain verifies with the log's key.
func TestServeSessionDecisionsAreInTheAuditLog(t *testing.T) {
	askCommand, err := json.Marshal(askHook)
	require.NoError(t, err)
	settings := `{"hooks": {"PreToolUse": [
	  {"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]},
	  {"matcher": "Write", "hooks": [{"type": "command", "command": ` + string(askCommand) + `}]}]}}`
	e := startEditor(t, editorOpts{settings: settings})
	sid, _ := e.startSession()

	deny := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}})
	require.Equal(t, "deny", deny["permission"])

	asked := make(chan map[string]any, 1)
	go func() {
		asked <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
			"toolInput": map[string]any{"file_path": filepath.Join(e.root, "a.txt"), "content": "x"}})
	}()
	e.nextPrompt().reply <- &protocol.MessageActionItem{Title: "Allow"}
	require.Equal(t, "allow", (<-asked)["permission"])

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
	require.Equal(t, audit.Allow, answer.Answer)
	require.Equal(t, "user in the editor: prompt", answer.By)
	require.Equal(t, "please confirm", answer.Reason)

	key, err := audit.ReadKey(audit.KeyPath(dir))
	require.NoError(t, err)
	rep, err := audit.Verify(dir, key)
	require.NoError(t, err)
	require.Nil(t, rep.Problem)
	require.Equal(t, 3, rep.Records)
}
