package acp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// slowHook starts, notes it started, and would note it finished after a
// long sleep: a test that cancels it checks the second note never comes.
func slowHook(t *testing.T, dir string) (path, started, finished string) {
	started, finished = filepath.Join(dir, "started"), filepath.Join(dir, "finished")
	path = hook(t, dir, "slow.sh", `cat >/dev/null; touch `+started+`; sleep 60; touch `+finished)
	return path, started, finished
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	require.Eventually(t, func() bool { _, err := os.Stat(path); return err == nil }, waitFor, tick, "%s never appeared", path)
}

// session/cancel while UserPromptSubmit hooks run kills them; the prompt is
// answered "cancelled" and never reaches the agent.
func TestCancelKillsPromptHooks(t *testing.T) {
	dir := t.TempDir()
	slow, started, finished := slowHook(t, dir)
	r := startRig(t, rigOptions{settings: settings([3]string{"UserPromptSubmit", "", slow}), script: script(`[{"stop":"end_turn"}]`)})
	sess := r.handshake()
	id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	waitForFile(t, started)
	r.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sess}})
	require.Equal(t, "cancelled", stopReason(t, r.await(id)))
	require.Empty(t, r.agentGot("session/prompt"))
	require.Eventually(t, func() bool { return len(r.agentGot("session/cancel")) == 1 }, waitFor, tick, "the cancel itself is passed on")
	require.Empty(t, readFile(t, finished), "the hook was killed")
}

// session/cancel while PreToolUse hooks decide a permission request answers
// the agent "cancelled".
func TestCancelAnswersPermissionBeingDecided(t *testing.T) {
	dir := t.TempDir()
	slow, started, finished := slowHook(t, dir)
	target := filepath.Join(t.TempDir(), "out.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", slow}),
		script:   script(`[` + writePermission(target) + `,{"stop":"cancelled"}]`),
	})
	sess := r.handshake()
	id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	waitForFile(t, started)
	r.sendJSON(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sess}})
	require.Equal(t, "cancelled", stopReason(t, r.await(id)))
	require.Equal(t, `{"outcome":{"outcome":"cancelled"}}`, r.agentResponses()[0])
	require.Contains(t, r.chunkTexts(), "cancelled")
	require.Empty(t, r.noted(methodRequestPermission))
	require.Empty(t, readFile(t, finished))
}
