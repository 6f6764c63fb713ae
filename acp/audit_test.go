package acp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/audit"
)

// The proxy's decisions are in the audit log: the PreToolUse hook's ask,
// and the user's reject in the editor's permission prompt, recorded where
// the editor's answer arrives; the chain verifies with the log's key.
func TestProxyDecisionsAreInTheAuditLog(t *testing.T) {
	dir := t.TempDir()
	ask := hook(t, dir, "ask.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check this"}}'`)
	target := filepath.Join(t.TempDir(), "out.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", ask}),
		script:   script(`[` + writePermission(target) + `,{"stop":"end_turn"}]`),
	})
	r.answer = func(m *testMsg) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "cancel"}}
	}
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "write")))

	// Both are written behind the answers: they are there within moments.
	var recs []audit.Record
	require.Eventually(t, func() bool {
		var err error
		recs, err = audit.Records(audit.Dir(r.home))
		return err == nil && len(recs) >= 2
	}, 10*time.Second, 10*time.Millisecond, "the ask's run and its answer")
	require.Len(t, recs, 2)
	run, answer := recs[0], recs[1]
	if run.Kind != audit.KindRun {
		run, answer = answer, run
	}
	require.Equal(t, audit.HostACP, run.Host)
	require.Equal(t, "PreToolUse", run.Event)
	require.Equal(t, "Write", run.Tool)
	require.Equal(t, "ask", run.Answer)
	require.Equal(t, audit.KindAnswer, answer.Kind)
	require.Equal(t, audit.Deny, answer.Answer)
	require.Equal(t, "user in the editor: session/request_permission", answer.By)
	require.Equal(t, "Write", answer.Tool)

	key, err := audit.ReadKey(audit.KeyPath(audit.Dir(r.home)))
	require.NoError(t, err)
	rep, err := audit.Verify(audit.Dir(r.home), key)
	require.NoError(t, err)
	require.Nil(t, rep.Problem)
	require.Equal(t, 2, rep.Records)
}
