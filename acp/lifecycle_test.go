//go:build unix

// The agent's end after the editor leaves is SIGTERM, then SIGKILL: Unix only.

package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pidIn reads the pid a process wrote to a file, once it is there.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	require.Eventually(t, func() bool { return strings.TrimSpace(readFile(t, path)) != "" }, waitFor, tick)
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, path)))
	require.NoError(t, err)
	return pid
}

// When the editor leaves, an agent that stopped reading its stdin (and
// ignores SIGTERM) is still ended: the write the proxy was blocked in fails
// once the agent's stdin is closed, then the agent gets SIGTERM and SIGKILL,
// SessionEnd runs and the proxy exits 0. (Before, the proxy's worker stayed
// blocked writing to the agent, so the agent was never signalled and the
// proxy never ended.)
func TestEditorLeavingEndsAnAgentThatStoppedReading(t *testing.T) {
	dir := t.TempDir()
	ended, pidFile := filepath.Join(dir, "ended"), filepath.Join(dir, "agent.pid")
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionEnd", "", end}),
		opts: func(o *Options) {
			o.AgentEnv = append(o.AgentEnv, "AGENT_STOP_READING_AFTER=2", "AGENT_PID_FILE="+pidFile)
			o.KillGrace = 300 * time.Millisecond
		},
	})
	sess := r.handshake()
	pid := pidIn(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // only if the test failed
	// A 1 MiB prompt fills the pipe to the agent, which reads no more.
	r.request("session/prompt", map[string]any{"sessionId": sess,
		"prompt": []any{map[string]string{"type": "text", "text": strings.Repeat("x", 1<<20)}}})
	require.Equal(t, 0, r.wait())
	require.Eventually(t, func() bool { return !running(pid) }, waitFor, tick, "the agent %d still runs", pid)
	require.Equal(t, "prompt_input_exit\n", readFile(t, ended))
	require.Contains(t, r.stderr.String(), "the editor closed the connection; ending the agent")
}

// The same with requests the editor's reader handles itself (handleEditor):
// three of 600 KiB each, more than the pipe to the agent takes, are sent to
// an agent that reads no more. The reader never waits on that pipe (what
// it does not take is left to the worker), so it still sees the editor
// leave, and the agent is ended.
func TestEditorLeavingEndsAnAgentThatStoppedReadingRequests(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "agent.pid")
	r := startRig(t, rigOptions{
		opts: func(o *Options) {
			o.AgentEnv = append(o.AgentEnv, "AGENT_STOP_READING_AFTER=2", "AGENT_PID_FILE="+pidFile)
			o.KillGrace = 300 * time.Millisecond
		},
	})
	r.handshake()
	pid := pidIn(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // only if the test failed
	line := `{"jsonrpc":"2.0","id":"big-%d","method":"_x/big","params":{"text":"` + strings.Repeat("x", 600<<10) + `"}}` + "\n"
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 0; i < 3; i++ {
			if _, err := fmt.Fprintf(r.in, line, i); err != nil {
				return
			}
		}
	}()
	require.Eventually(t, func() bool {
		select {
		case <-sent:
			return true
		default:
			return false
		}
	}, waitFor, tick, "the proxy's reader stopped taking the editor's messages")
	require.Equal(t, 0, r.wait())
	require.Eventually(t, func() bool { return !running(pid) }, waitFor, tick, "the agent %d still runs", pid)
	require.Contains(t, r.stderr.String(), "the editor closed the connection; ending the agent")
}

// An agent that crashes while a hook runs for its request is noticed at
// once: the editor's pending prompt gets an error naming the exit status
// while the hook would still be running, the hook (which no one waits for
// now) is killed, SessionEnd runs, and the proxy exits with the agent's
// status. (Before, nothing happened until the hook ended by itself.)
func TestAgentCrashIsNoticedWhileAHookRuns(t *testing.T) {
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	hookPid, ended := filepath.Join(dir, "hook.pid"), filepath.Join(dir, "ended")
	slow := hook(t, dir, "slow.sh", `jq -r .tool_name > /dev/null; echo $$ > `+hookPid+`; touch `+started+`
while [ ! -f `+release+` ]; do sleep 0.05; done`)
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", slow}, [3]string{"SessionEnd", "", end}),
		script: script(`[{"async":[{"permission":{"toolCallId":"t1","title":"ls","kind":"execute","rawInput":{"command":"ls"}}}]},
		  {"waitFile":` + string(mustRaw(started)) + `},{"crash":3}]`),
	})
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o600) }) // lets a proxy that waits for the hook end
	sess := r.handshake()
	id := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	got := make(chan *testMsg, 1)
	go func() {
		for {
			m := r.read()
			if m == nil || m.Method == "" && string(m.ID) == string(id) {
				got <- m
				return
			}
		}
	}()
	var res *testMsg
	select {
	case res = <-got:
	case <-time.After(waitFor):
		t.Fatal("the editor was not told that the agent exited while its hook ran")
	}
	require.NotNil(t, res)
	require.NotNil(t, res.Error, "%s", res.Line)
	require.Contains(t, res.Error.Message, "the agent exited (status 3)")
	pid := pidIn(t, hookPid)
	require.Eventually(t, func() bool { return !running(pid) }, waitFor, tick, "the hook %d still runs", pid)
	require.NoFileExists(t, release, "the hook ended without being released")
	require.Equal(t, 3, r.exitStatus())
	require.Equal(t, "other\n", readFile(t, ended))
}
