//go:build linux

package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue #35 item 4: the Claude Code settings file an editor names in
// session/new's _meta.claudeCode.options.settings is read like every other
// workspace file (internal/safefile), and not on the editor's reader.

// bridgedRig is a rig whose scripted agent calls itself claude-agent-acp, so
// that the proxy bridges its sessions; initialize has run.
func bridgedRig(t *testing.T) *rig {
	t.Helper()
	r := startRig(t, rigOptions{script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[{"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = "/usr/bin/wavehooks" }})
	r.initialize(map[string]any{})
	require.NotNil(t, r.proxy.bridgeOf(), "the bridge runs")
	return r
}

// answersWithin reads the proxy's output until it has answered every one of
// ids, or fails the test once d has passed: a proxy that stopped reading its
// editor must fail the test, not hang it. The reading goroutine stops at the
// last answer, so the rig reads what follows; it does not use the test's
// require.
func answersWithin(t *testing.T, r *rig, d time.Duration, ids ...json.RawMessage) map[string]*testMsg {
	t.Helper()
	want := map[string]bool{}
	for _, id := range ids {
		want[string(id)] = true
	}
	type result struct {
		got map[string]*testMsg
		err error
	}
	done := make(chan result, 1)
	go func() {
		got := map[string]*testMsg{}
		for len(got) < len(want) {
			line, err := r.out.ReadString('\n')
			if err != nil {
				done <- result{err: fmt.Errorf("the proxy's output ended: %w", err)}
				return
			}
			m := &testMsg{Line: strings.TrimSuffix(line, "\n")}
			if err := json.Unmarshal([]byte(line), m); err != nil {
				done <- result{err: fmt.Errorf("the proxy wrote a line that is not JSON: %q", line)}
				return
			}
			if m.Method == "" && want[string(m.ID)] {
				got[string(m.ID)] = m
			}
		}
		done <- result{got: got}
	}()
	select {
	case res := <-done:
		require.NoError(t, res.err)
		return res.got
	case <-time.After(d):
		t.Fatalf("the proxy did not answer the editor's %d requests within %s: its editor side is stalled", len(want), d)
		return nil
	}
}

// sendAsync sends the editor's request without waiting for the proxy to
// read it (its stdin is an io.Pipe, whose writes wait for the reader): a
// proxy whose editor reader is stuck must fail the test, not hang it. The
// requests go out in the order of the calls.
func sendAsync(r *rig, method string, params any) json.RawMessage {
	r.mu.Lock()
	r.nextID++
	id := json.RawMessage(strings.TrimSpace(string(mustRaw(r.nextID))))
	r.mu.Unlock()
	line := string(mustRaw(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})) + "\n"
	prev, _ := asyncSends.Load(r)
	done := make(chan struct{})
	asyncSends.Store(r, done)
	go func() {
		defer close(done)
		if prev != nil {
			<-prev.(chan struct{}) // the order of the calls is the order of the writes
		}
		_, _ = io.WriteString(r.in, line)
	}()
	return id
}

// asyncSends holds, per rig, a channel closed once its last sendAsync wrote.
var asyncSends sync.Map

// A FIFO at the named path is refused at once, with the reason, and the
// proxy goes on: the editor's next session/new, sent right behind, is
// answered and started. Before, os.ReadFile opened the FIFO on the editor's
// reader and waited there for a writer that never came: nothing the editor
// sent was read again.
func TestBridgeSettingsFIFOIsRefusedAndTheEditorKeepsFlowing(t *testing.T) {
	r := bridgedRig(t)
	fifo := filepath.Join(r.project, "settings.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() {
		// Before the rig's own cleanup: a proxy stuck opening the FIFO
		// (the bug) gets a writer, and then its end, so it can stop.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})
	withFIFO := sendAsync(r, "session/new", map[string]any{"cwd": r.project, "mcpServers": []any{},
		"_meta": map[string]any{"claudeCode": map[string]any{"options": map[string]any{"settings": "settings.fifo"}}}})
	plain := sendAsync(r, "session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	got := answersWithin(t, r, 10*time.Second, withFIFO, plain)

	refused := got[string(withFIFO)]
	require.NotNil(t, refused.Error, "the session naming a FIFO is refused: %s", refused.Line)
	require.Contains(t, refused.Error.Message, "FIFO")
	require.Contains(t, refused.Error.Message, "settings.fifo")
	started := got[string(plain)]
	require.Nil(t, started.Error, "the next session/new is started: %s", started.Line)
	require.Len(t, r.agentGot("session/new"), 1, "only the second session/new reached the agent")
	require.Eventually(t, func() bool {
		return strings.Contains(r.stderr.String(), "the session was refused") && strings.Contains(r.stderr.String(), "FIFO")
	}, waitFor, tick, "the proxy's log says why")
}

// /dev/zero at the named path is refused before a byte is read, and an
// oversize regular file before it is read: memory stays flat. Before,
// os.ReadFile read /dev/zero until memory ran out (1.5 GB and growing in
// the review); the test then ends the test binary at 256 MiB rather than
// let it take the machine down.
func TestBridgeSettingsDevZeroAndLargeFilesAreRefusedInBoundedMemory(t *testing.T) {
	r := bridgedRig(t)
	large := filepath.Join(r.project, "large.json")
	f, err := os.Create(large)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(5<<20)) // sparse: larger than a settings file's 4 MiB cap
	require.NoError(t, f.Close())

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	peak.Store(base)
	done := make(chan struct{})
	defer close(done)
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			if ms.HeapInuse > base+256<<20 {
				fmt.Fprintf(os.Stderr, "FAIL: %s: the proxy's heap grew by %d MiB reading the settings file; ending the test binary\n",
					t.Name(), (ms.HeapInuse-base)>>20)
				os.Exit(1)
			}
		}
	}()

	for _, c := range []struct{ path, why string }{
		{"/dev/zero", "a character device"},
		{"large.json", "larger than 4 MiB"},
	} {
		id := sendAsync(r, "session/new", map[string]any{"cwd": r.project, "mcpServers": []any{},
			"_meta": map[string]any{"claudeCode": map[string]any{"options": map[string]any{"settings": c.path}}}})
		res := answersWithin(t, r, 10*time.Second, id)[string(id)]
		require.NotNil(t, res.Error, "%s is refused: %s", c.path, res.Line)
		require.Contains(t, res.Error.Message, c.why)
		require.Contains(t, res.Error.Message, "cannot add its PreToolUse hook")
	}
	require.Less(t, peak.Load()-base, uint64(64<<20), "the heap grew by %d MiB", (peak.Load()-base)>>20)
	require.Empty(t, r.agentGot("session/new"), "neither session reached the agent")
	require.Contains(t, r.stderr.String(), "a character device")

	// The proxy goes on: a session/new with no file is started.
	id := r.request("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.Nil(t, answersWithin(t, r, 10*time.Second, id)[string(id)].Error)
}

// The editor's reader hands every request that opens a session to the
// worker, which may read a file for it; a prompt for a session the proxy
// knows with no hook to wait for, and other requests, stay on the reader.
func TestSessionOpeningRequestsLeaveTheReader(t *testing.T) {
	for _, m := range []string{methodSessionNew, methodSessionLoad, methodSessionResume, methodSessionFork} {
		require.True(t, opensSession(m), m)
	}
	for _, m := range []string{methodSessionClose, methodSessionPrompt, methodInitialize, "session/set_mode"} {
		require.False(t, opensSession(m), m)
	}
}
