package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// procState reads a process's state and parent from /proc/PID/stat; ok is
// false when it no longer exists.
func procState(pid int) (state string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid, true
}

// readPid waits for a hook to write a pid file.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	})
	return pid
}

// A hook's child that escaped with setsid and a double fork, while the hook
// still runs, becomes the server's child (serve is the subreaper of its
// hooks) and is killed when the editor goes away and the server shuts down.
func TestServeKillsEscapedHookChildrenAtShutdown(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "escapee.pid")
	hook := `jq -r .hook_event_name >/dev/null; (setsid sh -c 'echo $$ > "$1"; exec sleep 1000' sh ` + pidFile + ` &)` + "\nsleep 1000"
	env := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": `+strconv.Quote(hook)+`}]}]}}`)
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	sid := p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)["sessionId"]
	p.write(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "wave/stop", "params": map[string]any{"sessionId": sid}})

	pid := readPid(t, pidFile)
	require.Eventually(t, func() bool {
		_, ppid, ok := procState(pid)
		return ok && ppid == p.cmd.Process.Pid
	}, 10*time.Second, 10*time.Millisecond, "the orphaned escapee was not adopted by the server")

	require.NoError(t, p.in.Close())
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("server kept running after its stdin closed")
	}
	require.Eventually(t, func() bool {
		state, _, ok := procState(pid)
		return !ok || state == "Z"
	}, 10*time.Second, 10*time.Millisecond, "the escapee outlived the server")
}

// A daemon that a hook leaves behind on purpose keeps running; once it
// ends, the server (its subreaper) reaps it: no zombie is left.
func TestServeReapsTheDaemonsOfItsHooks(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	gate := filepath.Join(t.TempDir(), "stop-daemon")
	daemon := `while [ ! -e ` + gate + ` ]; do sleep 0.01; done`
	hook := `jq -r .hook_event_name >/dev/null; (sh -c '` + daemon + `' >/dev/null 2>&1 & echo $! > ` + pidFile + `); exit 0`
	env := newCLIEnv(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": `+strconv.Quote(hook)+`}]}]}}`)
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	sid := p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)["sessionId"]
	res := p.call("wave/stop", map[string]any{"sessionId": sid}, "")["result"].(map[string]any)
	require.Equal(t, false, res["blocked"])

	pid := readPid(t, pidFile)
	state, ppid, ok := procState(pid)
	require.True(t, ok, "the daemon of a hook that exited normally was killed")
	require.NotEqual(t, "Z", state)
	require.Equal(t, p.cmd.Process.Pid, ppid, "the daemon was not adopted by the server")

	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	require.Eventually(t, func() bool {
		_, _, ok := procState(pid)
		return !ok
	}, 10*time.Second, 10*time.Millisecond, "the daemon ended but stays a zombie of the server")
	require.Contains(t, p.call("shutdown", nil, ""), "result")
}
