//go:build linux

package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue #35 item 6: only the sessions the editor opened get state. An agent
// that names sessions nobody opened cannot make the proxy keep a file or a
// descriptor per name, and what the hooks guard is refused for them.

// openFDs counts this process's open descriptors (the proxy runs in it).
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(entries)
}

// sessionFiles lists what is under $WAVE_HOME/sessions.
func sessionFiles(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(home, "sessions")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// A hostile agent sends, for 10,000 session ids it invented, a tool call
// update, a permission request, a file write and a terminal: the updates
// reach the editor as they came, with no state; every guarded request is
// refused with an error to the agent and never reaches the editor; the
// proxy's open descriptors stay flat and no transcript is written but the
// real session's. Before, each invented id opened a session file and kept
// it open (3,000 ids: 3,000 descriptors, 3,001 transcripts).
func TestInventedSessionsGetNoStateAndAreRefused(t *testing.T) {
	const n = 10000
	out := t.TempDir() // where the writes would land
	steps := make([]string, 0, 4*n+1)
	raw := func(v any) string { return `{"stdout":` + string(mustRaw(string(mustRaw(v)))) + `}` }
	for i := 0; i < n; i++ {
		sess := fmt.Sprintf("evil-%05d", i)
		steps = append(steps,
			raw(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": sess,
				"update": map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t", "title": "rm -rf /", "kind": "execute", "status": "completed"}}}),
			raw(map[string]any{"jsonrpc": "2.0", "id": "evil-perm-" + sess, "method": "session/request_permission", "params": map[string]any{
				"sessionId": sess, "toolCall": map[string]any{"toolCallId": "t", "title": "rm -rf /", "kind": "execute", "rawInput": map[string]any{"command": "rm -rf /"}},
				"options": []any{map[string]any{"optionId": "a", "name": "Allow", "kind": "allow_once"}, map[string]any{"optionId": "r", "name": "Reject", "kind": "reject_once"}}}}),
			raw(map[string]any{"jsonrpc": "2.0", "id": "evil-write-" + sess, "method": "fs/write_text_file", "params": map[string]any{
				"sessionId": sess, "path": filepath.Join(out, sess+".txt"), "content": "pwned"}}),
			raw(map[string]any{"jsonrpc": "2.0", "id": "evil-term-" + sess, "method": "terminal/create", "params": map[string]any{
				"sessionId": sess, "command": "touch", "args": []any{filepath.Join(out, sess+".term")}}}),
		)
	}
	steps = append(steps, `{"stop":"end_turn"}`)
	r := startRig(t, rigOptions{script: `{"turns": [[` + strings.Join(steps, ",") + `]]}`})
	sess := r.handshake()

	fdsBefore := openFDs(t)
	type answer struct {
		m   *testMsg
		err any
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if e := recover(); e != nil {
				done <- answer{err: e}
			}
		}()
		done <- answer{m: r.prompt(sess, "go")}
	}()
	var res *testMsg
	select {
	case a := <-done:
		require.Nil(t, a.err)
		res = a.m
	case <-time.After(3 * time.Minute):
		t.Fatalf("the turn of %d invented sessions did not end within 3 minutes (fds: %d before, %d now)", n, fdsBefore, openFDs(t))
	}
	require.Equal(t, "end_turn", stopReason(t, res))
	r.transcriptsWritten()
	fdsAfter := openFDs(t)
	require.LessOrEqual(t, fdsAfter-fdsBefore, 16, "open descriptors stay flat: %d before, %d after", fdsBefore, fdsAfter)

	files := sessionFiles(t, r.home)
	for _, f := range files {
		require.NotContains(t, f, "evil", "no transcript for an invented session: %v", files)
	}
	require.LessOrEqual(t, len(files), 4, "only the real session's files: %v", files)
	r.proxy.mu.Lock()
	states := len(r.proxy.sessions)
	r.proxy.mu.Unlock()
	require.Equal(t, 1, states, "state only for the session the editor opened")

	// The updates reached the editor unchanged; nothing guarded did.
	evilUpdates := 0
	for _, m := range r.noted(methodSessionUpdate) {
		if strings.Contains(string(m.Params), `"sessionId":"evil-`) {
			evilUpdates++
		}
	}
	require.Equal(t, n, evilUpdates, "session/update for an unknown session passes through")
	for _, method := range []string{methodRequestPermission, methodWriteTextFile, methodTerminalCreate} {
		require.Empty(t, r.noted(method), "no %s for an invented session reached the editor", method)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing was written or run")

	// Every guarded request was answered with an error that says why.
	refused := map[string]int{}
	for _, m := range r.agentReceived() {
		id, _ := m["id"].(string)
		if !strings.HasPrefix(id, "evil-") || m["error"] == nil {
			continue
		}
		msg := m["error"].(map[string]any)["message"].(string)
		require.Contains(t, msg, "was not opened through wavehooks", id)
		refused[strings.SplitN(id, "-", 3)[1]]++
	}
	require.Equal(t, map[string]int{"perm": n, "write": n, "term": n}, refused)
	require.Less(t, strings.Count(r.stderr.String(), "level=WARN msg=\"refused a request about a session that was never opened\""), 11,
		"the log is not flooded")
}

// The hook bridge's PreToolUse for a session nobody opened is denied, and
// makes no state: the bridge's socket is the agent's to talk to, so its
// session ids are no more trusted than the agent's messages.
func TestBridgeDeniesInventedSessions(t *testing.T) {
	r := startRig(t, rigOptions{script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[{"stop":"end_turn"}]]}`,
		opts: func(o *Options) { o.HookExe = "/usr/bin/wavehooks" }})
	r.initialize(map[string]any{})
	b := r.proxy.bridgeOf()
	require.NotNil(t, b)
	fdsBefore := openFDs(t)
	for i := 0; i < 200; i++ {
		conn, err := net.Dial("unix", b.sock)
		require.NoError(t, err)
		in := fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"evil-%d","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"toolu_%d"}`, i, i)
		_, err = io.WriteString(conn, b.token+"\n"+in)
		require.NoError(t, err)
		require.NoError(t, conn.(*net.UnixConn).CloseWrite())
		answer, err := io.ReadAll(conn)
		require.NoError(t, err)
		require.NoError(t, conn.Close())
		var out struct {
			Specific struct {
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal(answer, &out), "%s", answer)
		require.Equal(t, "deny", out.Specific.Decision)
		require.Contains(t, out.Specific.Reason, "was not opened through wavehooks")
	}
	r.proxy.mu.Lock()
	states := len(r.proxy.sessions)
	r.proxy.mu.Unlock()
	require.Zero(t, states)
	require.LessOrEqual(t, openFDs(t)-fdsBefore, 16)
	require.Empty(t, sessionFiles(t, r.home))
}
