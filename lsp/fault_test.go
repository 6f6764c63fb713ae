package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
	"github.com/wavehooks/wavehooks/session"
)

// startFaultServer starts an editor for the fault tests, with these user
// settings: every prompt is dismissed, and the server keeps its own debounce.
func startFaultServer(t *testing.T, settings string) *editor {
	t.Helper()
	return startEditor(t, editorOpts{settings: settings, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
}

// loadSession loads a session file the way a new server would, after the
// test's server ended, and returns its messages' text contents in order.
func loadSession(t *testing.T, home, id, path string) []string {
	t.Helper()
	if path != "" {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, utf8.Valid(data), "the session file is not valid UTF-8")
		require.True(t, json.Valid(data), "the session file is not valid JSON")
	}
	st, err := session.NewStore(session.Options{WaveHome: home})
	require.NoError(t, err)
	defer st.Close()
	sess, err := st.Open(id)
	require.NoError(t, err, "the session file does not load")
	var texts []string
	for _, m := range sess.Messages() {
		for _, b := range m.Blocks {
			texts = append(texts, m.Role+":"+string(b.Type)+":"+b.Content)
		}
	}
	return texts
}

func blocksText(r map[string]any) string {
	b, _ := json.Marshal(r["blocks"])
	return string(b)
}

// TestFaultEditorGoneWhileARequestIsRefused is the regression test of the
// crash FuzzFraming found: a request refused on the read loop (here: before
// initialize) whose reply cannot be written because the editor is gone made
// jsonrpc2 panic, taking the server down without its cleanup.
func TestFaultEditorGoneWhileARequestIsRefused(t *testing.T) {
	for i := 0; i < 20; i++ {
		serverSide, clientSide := net.Pipe()
		exit := make(chan int, 1)
		go func() {
			exit <- lsp.NewServer(lsp.Options{WaveHome: t.TempDir()}).Serve(context.Background(), serverSide)
		}()
		_, err := clientSide.Write([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"wave/getSession","params":{}}`)))
		require.NoError(t, err)
		// The server now blocks writing the refusal nobody reads.
		time.Sleep(time.Millisecond)
		require.NoError(t, clientSide.Close())
		select {
		case code := <-exit:
			require.Equal(t, 1, code)
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop")
		}
	}
}

// TestFaultInvalidUTF8FromHooks: hooks print bytes that are not UTF-8 on
// stdout and stderr, as context, deny reasons, JSON strings and errors.
// Every frame the editor gets must still be valid UTF-8 JSON (the bad bytes
// become U+FFFD), and so must the session file.
func TestFaultInvalidUTF8FromHooks(t *testing.T) {
	bad := `printf 'bad \377\376 bytes \300 end'`
	s := startFaultServer(t, hookSettings(map[string][]string{
		"UserPromptSubmit": {"cat >/dev/null; " + bad},
		"PreToolUse":       {"cat >/dev/null; " + bad + " >&2; exit 2"},
		"PostToolUse":      {`cat >/dev/null; printf '{"systemMessage":"json \377 string","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx \300\200"}}'`},
		"Stop":             {"cat >/dev/null; " + bad + " >&2; exit 1"},
	}))
	id, path := s.startSession()

	r := s.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "hi"})
	require.Contains(t, r["additionalContext"].([]any)[0], "\uFFFD")
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{
		map[string]any{"type": "tool", "id": "t1", "name": "Bash", "input": map[string]any{"command": "ls"}}}})
	r = s.mustCall("wave/preToolUse", map[string]any{"sessionId": id, "toolUseId": "t1", "toolName": "Bash", "toolInput": map[string]any{"command": "ls"}})
	require.Equal(t, "deny", r["permission"])
	require.Contains(t, r["reason"], "\uFFFD")
	r = s.mustCall("wave/postToolUse", map[string]any{"sessionId": id, "toolUseId": "t1", "toolName": "Bash", "toolInput": map[string]any{}, "toolResponse": "ok"})
	require.Contains(t, blocksText(r), "json \uFFFD string")
	r = s.mustCall("wave/stop", map[string]any{"sessionId": id})
	require.Contains(t, blocksText(r), "\uFFFD")
	runs := s.mustCall("wave/hookRuns", map[string]any{"sessionId": id})
	require.NotEmpty(t, runs["runs"])
	s.mustCall("wave/getSession", map[string]any{"sessionId": id})
	s.mustCall("wave/apiMessages", map[string]any{"sessionId": id})
	s.checkFrames(t)
	require.Positive(t, s.countNotifications("window/showMessage", ""), "warnings and errors are shown")

	s.close(10 * time.Second)
	texts := loadSession(t, s.home, id, path)
	require.Contains(t, strings.Join(texts, "\n"), "user:text:hi")
}

// TestFaultHugeJSONOutput: a hook prints 5 MB of JSON. Its output is cut at
// 1 MiB, so the JSON cannot be read: the editor gets an error block naming
// the cap, the exit code decides (PostToolUse; PreToolUse would deny), and
// the server carries on.
func TestFaultHugeJSONOutput(t *testing.T) {
	huge := `cat >/dev/null; printf '{"systemMessage":"'; head -c 5000000 /dev/zero | tr '\0' a; printf '"}'`
	s := startFaultServer(t, hookSettings(map[string][]string{"PostToolUse": {huge}}))
	id, path := s.startSession()
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{
		map[string]any{"type": "tool", "id": "t1", "name": "Bash", "input": map[string]any{}}}})
	start := time.Now()
	r := s.mustCall("wave/postToolUse", map[string]any{"sessionId": id, "toolUseId": "t1", "toolName": "Bash", "toolInput": map[string]any{}, "toolResponse": "x"})
	t.Logf("5 MB of hook output handled in %s", time.Since(start))
	blocks := blocksText(r)
	require.Contains(t, blocks, "longer than the 1048576-byte output cap: it was cut and cannot be read")
	require.Less(t, len(blocks), 100<<10, "the truncated output is not pasted into the conversation")
	require.Equal(t, true, r["continue"])
	runs := s.mustCall("wave/hookRuns", map[string]any{"sessionId": id, "limit": 1})
	run := runs["runs"].([]any)[0].(map[string]any)
	b, _ := json.Marshal(run)
	require.Contains(t, string(b), `"stdoutTruncated":true`)
	s.mustCall("wave/getSession", map[string]any{"sessionId": id}) // still answering
	s.close(10 * time.Second)
	loadSession(t, s.home, id, path)
}

// TestFaultHangingHookTimesOut: a hook that never ends is killed at its
// timeout; the editor gets an error block and the next request works.
func TestFaultHangingHookTimesOut(t *testing.T) {
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"exec sleep 60","timeout":1}]}]}}`
	s := startFaultServer(t, settings)
	id, _ := s.startSession()
	start := time.Now()
	r := s.mustCall("wave/stop", map[string]any{"sessionId": id})
	require.Less(t, time.Since(start), 5*time.Second)
	require.Contains(t, blocksText(r), "hook timed out after 1s")
	require.Equal(t, false, r["blocked"])
	s.mustCall("wave/getSession", map[string]any{"sessionId": id})
}

// TestFaultEditorDisconnectsMidHook: the editor goes away while a hook
// runs. The server ends promptly, the hook is killed, and the session file
// loads with every message the server acknowledged.
func TestFaultEditorDisconnectsMidHook(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "hook.pid")
	hook := `p=$(jq -r .prompt); case "$p" in *hang*) echo $$ > ` + pidFile + `; exec sleep 60;; esac`
	s := startFaultServer(t, hookSettings(map[string][]string{"UserPromptSubmit": {hook}}))
	id, path := s.startSession()
	s.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "first"})
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": "answer"}}})

	go func() {
		_ = s.call("wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "please hang"}, nil)
	}()
	require.Eventually(t, func() bool { _, err := os.Stat(pidFile); return err == nil }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond) // the pid is written before exec
	pid := readPid(t, pidFile)
	require.True(t, alive(pid))

	start := time.Now()
	s.close(5 * time.Second)
	t.Logf("server ended %s after the editor went away", time.Since(start))
	require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond, "the running hook was not killed")

	texts := loadSession(t, s.home, id, path)
	require.Subset(t, texts, []string{"user:text:first", "assistant:text:answer"})
}

// TestFaultEditorDisconnectsMidAsk: a PreToolUse hook asks, the editor shows
// the prompt and goes away before the user answers. The ask resolves as
// deny, the server ends, and the session file loads.
func TestFaultEditorDisconnectsMidAsk(t *testing.T) {
	ask := `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`
	s := startFaultServer(t, hookSettings(map[string][]string{"PreToolUse": {ask}}))
	s.beSilent()
	id, path := s.startSession()
	s.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "write it"})
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{
		map[string]any{"type": "tool", "id": "t1", "name": "Write", "input": map[string]any{"file_path": filepath.Join(s.root, "a.txt")}}}})
	go func() {
		_ = s.call("wave/preToolUse", map[string]any{"sessionId": id, "toolUseId": "t1", "toolName": "Write",
			"toolInput": map[string]any{"file_path": filepath.Join(s.root, "a.txt")}}, nil)
	}()
	require.Eventually(t, func() bool { return s.countRequests("window/showMessageRequest") > 0 }, 10*time.Second, 10*time.Millisecond)
	pending := s.mustCall("wave/listPermissions", nil)
	require.Len(t, pending["pending"], 1)

	s.close(5 * time.Second)
	texts := loadSession(t, s.home, id, path)
	require.Subset(t, texts, []string{"user:text:write it"})
}

// TestFaultSessionsPathIsAFile: $WAVE_HOME/sessions cannot be a directory
// (tests run as root here, so a read-only mode bit would not stop them;
// a file in the way fails the same for everyone). The editor gets a clear
// JSON-RPC error naming the path, not a crash.
func TestFaultSessionsPathIsAFile(t *testing.T) {
	c := startEditor(t, editorOpts{noInit: true, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
	home := c.home
	require.NoError(t, os.WriteFile(filepath.Join(home, "sessions"), []byte("in the way"), 0o644))
	defer func() {
		c.close(10 * time.Second)
		<-c.done
		c.checkFrames(t)
	}()
	err := c.call("initialize", map[string]any{"processId": nil, "rootUri": string(uri.File(c.root)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": home}}, nil)
	var rpcErr *jsonrpc2.Error
	require.ErrorAs(t, err, &rpcErr)
	t.Logf("initialize: %v", rpcErr)
	require.Contains(t, rpcErr.Message, filepath.Join(home, "sessions"))
	require.Contains(t, rpcErr.Message, "not a directory")
	// The connection survives the failed initialize.
	err = c.call("wave/listPermissions", nil, nil)
	require.ErrorAs(t, err, &rpcErr)
	require.Equal(t, jsonrpc2.Code(-32002), rpcErr.Code, "not initialized")
}

// TestFaultSessionsDirectoryGoesAway: while sessions are open, the sessions
// directory is moved away and a file put in its place, so nothing can be
// written (the same for root and everyone else). Each write gets a clear
// JSON-RPC error; the moved files stay valid and hold every acknowledged
// message; once the directory is back, the session carries on.
func TestFaultSessionsDirectoryGoesAway(t *testing.T) {
	s := startFaultServer(t, "")
	id, path := s.startSession()
	s.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "acknowledged 1"})
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": "acknowledged 2"}}})

	dir := filepath.Join(s.home, "sessions")
	aside := filepath.Join(s.home, "sessions.aside")
	require.NoError(t, os.Rename(dir, aside))
	require.NoError(t, os.WriteFile(dir, []byte("in the way"), 0o644))

	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": "not acknowledged"}},
		{"wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": "not acknowledged either"}}}},
		{"wave/sessionStart", map[string]any{}},
	} {
		err := s.call(call.method, call.params, nil)
		var rpcErr *jsonrpc2.Error
		require.ErrorAs(t, err, &rpcErr, call.method)
		t.Logf("%s: %v", call.method, rpcErr)
		require.Contains(t, rpcErr.Message, "not a directory", call.method)
	}
	// Reading still works from memory.
	s.mustCall("wave/getSession", map[string]any{"sessionId": id})

	// The files moved away are intact.
	moved := filepath.Join(aside, filepath.Base(path))
	data, err := os.ReadFile(moved)
	require.NoError(t, err)
	require.True(t, json.Valid(data))
	var file struct {
		State struct {
			Messages []session.Message `json:"messages"`
		} `json:"state"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	var texts []string
	for _, m := range file.State.Messages {
		texts = append(texts, m.Blocks[0].Content)
	}
	require.Equal(t, []string{"acknowledged 1", "acknowledged 2"}, texts)

	// The directory comes back: the session is written whole again.
	require.NoError(t, os.Remove(dir))
	require.NoError(t, os.Rename(aside, dir))
	s.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": id, "blocks": []any{map[string]any{"type": "text", "content": "acknowledged 3"}}})
	s.close(10 * time.Second)
	got := loadSession(t, s.home, id, path)
	require.Subset(t, got, []string{"user:text:acknowledged 1", "assistant:text:acknowledged 2", "assistant:text:acknowledged 3"})
	t.Logf("after the directory came back the session holds: %q", got)
}
