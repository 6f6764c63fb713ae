package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// `wavehooks acp` reads a piped stdin through the runtime's poller, as serve
// does (internal/pollstdio): between the editor's messages no thread of it waits in
// read(2) on descriptor 0, which would hold a processor in a system call
// and keep the runtime's monitor polling every 20 µs (BenchmarkForwarding in
// acp). Each thread's current system call is in /proc/PID/task/TID/syscall,
// read(2) being number 0 and its first argument the descriptor.
func TestACPReadsAPipedStdinThroughThePoller(t *testing.T) {
	agent := buildScriptAgent(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`{}`), 0o600))
	ed := startACPEditor(t, t.TempDir(), t.TempDir(), agent, script, t.TempDir())
	defer func() {
		_ = ed.stdin.Close()
		_ = ed.cmd.Wait()
	}()
	pid := ed.cmd.Process.Pid
	if _, err := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid)); err != nil {
		t.Skipf("no /proc/PID/syscall here: %v", err)
	}
	seen := 0
	for i := 0; i < 20; i++ { // the proxy waits for the editor all along
		time.Sleep(10 * time.Millisecond)
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
		require.NoError(t, err)
		for _, task := range tasks {
			data, err := os.ReadFile(task)
			if err != nil {
				continue // the thread ended
			}
			seen++
			require.False(t, strings.HasPrefix(string(data), "0 0x0 "), "a thread waits in read(2) on stdin: %s", data)
		}
	}
	require.Positive(t, seen, "no thread's system call could be read")
}
