package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
	"github.com/wavehooks/wavehooks/lsp"
	"github.com/wavehooks/wavehooks/session"
)

// Load: loadSessions sessions of loadEvents events each, all at once over one
// connection, with hooks on every event.
const (
	loadSessions = 50
	loadEvents   = 200
	loadCycles   = (loadEvents - 5) / 5 // full prompt-to-stop cycles; the rest is start, a last turn and end
)

// loadSettings puts a cheap hook on every event the load fires and jq on
// one tool's PreToolUse: with -race on two cores, a process per event is
// what the time goes to (jq on every prompt as well doubles the run time).
const loadSettings = `{"hooks": {
	"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}],
	"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}],
	"PreToolUse": [
		{"hooks": [{"type": "command", "command": "true"}]},
		{"matcher": "Write", "hooks": [{"type": "command", "command": "jq -e '.tool_input.file_path' >/dev/null"}]}],
	"PostToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}],
	"Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
	"SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}]}}`

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(entries)
}

// TestLoad runs loadSessions sessions concurrently over one connection,
// each with loadEvents events (sessionStart; prompt, assistant message with
// a tool call, preToolUse, postToolUse and stop, again and again; a last
// prompt, answer and stop; sessionEnd), with hooks on every event. Every
// request must succeed; afterwards every session file is complete and
// valid, and no goroutine or file descriptor is left behind (beyond the
// executor's pool of at most 12 spare in-memory files).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: 10,000 events with 8,000 hook processes")
	}
	goroutines := goleak.IgnoreCurrent()
	fdsBefore := openFDs(t)
	start := time.Now()

	c := startEditor(t, editorOpts{settings: loadSettings, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
	home := c.home

	type result struct {
		id, path string
		err      error
	}
	results := make([]result, loadSessions)
	var wg sync.WaitGroup
	for k := range loadSessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[k].id, results[k].path, results[k].err = runLoadSession(c, k)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, r := range results {
		require.NoError(t, r.err)
	}
	require.NoError(t, c.call("shutdown", nil, nil))
	require.NoError(t, c.notify("exit", nil))
	select {
	case code := <-c.exitCode:
		require.Equal(t, 0, code)
		c.exitCode <- code
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit")
	}
	c.close(10 * time.Second)
	<-c.done
	c.checkFrames(t)
	t.Logf("%d sessions × %d events over one connection in %s (%.0f events/s); %d wave/hookRun notifications",
		loadSessions, loadEvents, elapsed.Round(time.Millisecond), float64(loadSessions*loadEvents)/elapsed.Seconds(), c.countNotifications("wave/hookRun", ""))

	// Every session file is complete and valid.
	st, err := session.NewStore(session.Options{WaveHome: home})
	require.NoError(t, err)
	for k, r := range results {
		data, err := os.ReadFile(r.path)
		require.NoError(t, err)
		var file struct {
			ID    string `json:"id"`
			State struct {
				Messages []session.Message `json:"messages"`
			} `json:"state"`
		}
		require.NoError(t, json.Unmarshal(data, &file), "session file %s", r.path)
		require.Equal(t, r.id, file.ID)
		requireLoadConversation(t, k, file.State.Messages)
		s, err := st.Open(r.id)
		require.NoError(t, err)
		requireLoadConversation(t, k, s.Messages())
	}
	require.NoError(t, st.Close())

	// Nothing left behind. Closing a hook's files happens after its event
	// answered, and the executor keeps up to 12 spare files ready.
	goleak.VerifyNone(t, goroutines)
	var fdsAfter int
	require.Eventually(t, func() bool {
		fdsAfter = openFDs(t)
		return fdsAfter <= fdsBefore+12
	}, 10*time.Second, 20*time.Millisecond, "file descriptors leaked: %d before, %d after", fdsBefore, openFDs(t))
	t.Logf("file descriptors: %d before, %d after; total %s", fdsBefore, fdsAfter, time.Since(start).Round(time.Millisecond))
}

func loadTool(i int) (name string, input map[string]any) {
	switch i % 3 {
	case 0:
		return "Bash", map[string]any{"command": fmt.Sprintf("echo %d", i)}
	case 1:
		return "Read", map[string]any{"file_path": fmt.Sprintf("/src/file%d.go", i)}
	default:
		return "Write", map[string]any{"file_path": fmt.Sprintf("/src/out%d.go", i), "content": strings.Repeat("w", 200)}
	}
}

// runLoadSession plays one session's events and checks each answer.
func runLoadSession(c *editor, k int) (id, path string, err error) {
	events := 0
	call := func(method string, params map[string]any) (map[string]any, error) {
		events++
		if id != "" {
			params["sessionId"] = id
		}
		var out map[string]any
		if err := c.call(method, params, &out); err != nil {
			return nil, fmt.Errorf("session %d, event %d (%s): %w", k, events, method, err)
		}
		if b, ok := out["blocks"].([]any); ok && len(b) > 0 && method != "wave/postToolUse" {
			return nil, fmt.Errorf("session %d, event %d (%s): hooks added blocks: %v", k, events, method, b)
		}
		return out, nil
	}
	r, err := call("wave/sessionStart", map[string]any{"source": "startup"})
	if err != nil {
		return "", "", err
	}
	id, path = r["sessionId"].(string), r["transcriptPath"].(string)
	turn := func(i int, tool bool) error {
		if _, err := call("wave/userPromptSubmit", map[string]any{"prompt": fmt.Sprintf("s%d prompt %d", k, i)}); err != nil {
			return err
		}
		blocks := []any{map[string]any{"type": "text", "content": fmt.Sprintf("s%d answer %d", k, i)}}
		name, input := loadTool(i)
		toolID := fmt.Sprintf("toolu_%d_%d", k, i)
		if tool {
			blocks = append(blocks, map[string]any{"type": "tool", "id": toolID, "name": name, "input": input})
		}
		if _, err := call("wave/addAssistantMessage", map[string]any{"blocks": blocks}); err != nil {
			return err
		}
		if tool {
			r, err := call("wave/preToolUse", map[string]any{"toolUseId": toolID, "toolName": name, "toolInput": input})
			if err != nil {
				return err
			}
			if r["permission"] != "allow" {
				return fmt.Errorf("session %d: %s was not allowed: %v", k, name, r)
			}
			if _, err := call("wave/postToolUse", map[string]any{"toolUseId": toolID, "toolName": name, "toolInput": input,
				"toolResponse": map[string]any{"output": fmt.Sprintf("result %d", i)}}); err != nil {
				return err
			}
		}
		r, err := call("wave/stop", map[string]any{})
		if err == nil && r["blocked"] != false {
			err = fmt.Errorf("session %d: stop was blocked: %v", k, r)
		}
		return err
	}
	for i := range loadCycles {
		if err := turn(i, true); err != nil {
			return id, path, err
		}
	}
	if err := turn(loadCycles, false); err != nil {
		return id, path, err
	}
	if _, err := call("wave/sessionEnd", map[string]any{"reason": "other"}); err != nil {
		return id, path, err
	}
	if events != loadEvents {
		return id, path, fmt.Errorf("session %d sent %d events, not %d", k, events, loadEvents)
	}
	return id, path, nil
}

// requireLoadConversation checks a load session's messages: each turn's
// prompt, then its answer with the tool call and its result, nothing else.
func requireLoadConversation(t *testing.T, k int, msgs []session.Message) {
	t.Helper()
	require.Len(t, msgs, 2*(loadCycles+1), "session %d", k)
	for i := 0; i <= loadCycles; i++ {
		user, asst := msgs[2*i], msgs[2*i+1]
		require.Equal(t, session.RoleUser, user.Role)
		require.Len(t, user.Blocks, 1)
		require.Equal(t, fmt.Sprintf("s%d prompt %d", k, i), user.Blocks[0].Content)
		require.Equal(t, session.RoleAssistant, asst.Role)
		require.Equal(t, fmt.Sprintf("s%d answer %d", k, i), asst.Blocks[0].Content)
		if i == loadCycles {
			require.Len(t, asst.Blocks, 1)
			continue
		}
		require.Len(t, asst.Blocks, 2, "session %d turn %d", k, i)
		tool := asst.Blocks[1]
		name, _ := loadTool(i)
		require.Equal(t, session.BlockTool, tool.Type)
		require.Equal(t, name, tool.Tool().Name)
		require.Contains(t, tool.Tool().Result, fmt.Sprintf("result %d", i))
		require.NotNil(t, tool.Tool().Success)
		require.True(t, *tool.Tool().Success)
	}
}

// Reload storm: stormClients editors on one workspace while its settings
// file is rewritten every stormInterval, stormWrites times, alternating a
// trusted version and a never-trusted one.
const (
	stormClients  = 4
	stormWrites   = 30
	stormInterval = 100 * time.Millisecond
)

// TestLoadReloadStorm runs stormClients servers (each its own watcher, one
// trust store) on one workspace, each firing prompt, PreToolUse and Stop
// events without pause, while the project settings are rewritten every
// 100 ms, alternating between a version the user trusted and one they never
// did, whose hooks would leave a file. No never-trusted hook runs, no
// request fails, no server panics (each exits 0 after shutdown and sent only
// well-formed frames), and nothing is left running; -race checks the rest.
// After the storm the trusted version's hook runs again.
func TestLoadReloadStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: a few seconds of settings rewrites")
	}
	goroutines := goleak.IgnoreCurrent()
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"hooks": {
		"PreToolUse": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`), 0o644))
	project := func(marker string) string {
		hook := `[{"hooks": [{"type": "command", "command": "cat >/dev/null; echo x >> \"$WAVE_PROJECT_DIR/` + marker + `\""}]}]`
		return `{"hooks": {"UserPromptSubmit": ` + hook + `, "PreToolUse": ` + hook + `, "Stop": ` + hook + `}}`
	}
	trusted, untrusted := project("trusted-ran"), project("untrusted-ran")
	settingsJSON := filepath.Join(root, ".wave", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settingsJSON), 0o755))
	require.NoError(t, os.WriteFile(settingsJSON, []byte(trusted), 0o644))
	// The user trusted this version in an earlier session.
	paths := settings.Paths{WaveHome: home, ProjectRoot: root}
	require.NoError(t, trust.NewTrustStore(home).Trust(root, trust.WorkspaceHash(settings.Load(paths, nil))))

	clients := make([]*editor, stormClients)
	for k := range clients {
		// Every trust prompt is dismissed: "not now".
		clients[k] = startEditor(t, editorOpts{answer: dismiss, serverOpt: lsp.Options{Debounce: -1}, home: home, root: root})
	}
	event := func(c *editor, method string, params map[string]any) error {
		return c.call(method, params, nil)
	}
	stop := make(chan struct{})
	errs := make([]error, stormClients)
	counts := make([]int, stormClients)
	ids := make([]string, stormClients)
	var wg sync.WaitGroup
	for k, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var start struct {
				SessionID string `json:"sessionId"`
			}
			if errs[k] = c.call("wave/sessionStart", map[string]any{"source": "startup"}, &start); errs[k] != nil {
				return
			}
			id := start.SessionID
			ids[k] = id
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := fmt.Sprintf("toolu_%d_%d", k, i)
				for _, e := range []struct {
					method string
					params map[string]any
				}{
					{"wave/userPromptSubmit", map[string]any{"sessionId": id, "prompt": fmt.Sprint("prompt ", i)}},
					{"wave/preToolUse", map[string]any{"sessionId": id, "toolUseId": tool, "toolName": "Bash", "toolInput": map[string]any{"command": "ls"}}},
					{"wave/stop", map[string]any{"sessionId": id}},
				} {
					if err := event(c, e.method, e.params); err != nil {
						errs[k] = fmt.Errorf("client %d, %s: %w", k, e.method, err)
						return
					}
					counts[k]++
				}
			}
		}()
	}
	start := time.Now()
	for i := range stormWrites {
		text := trusted
		if i%2 == 0 {
			text = untrusted
		}
		require.NoError(t, os.WriteFile(settingsJSON, []byte(text), 0o644))
		time.Sleep(stormInterval)
	}
	close(stop)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	t.Logf("%d settings rewrites in %s while %d clients fired %d events", stormWrites, time.Since(start).Round(time.Millisecond), stormClients, total)
	require.NoFileExists(t, filepath.Join(root, "untrusted-ran"), "a never-trusted hook ran during the storm")

	// Back on the trusted version, its hook runs again: the storm did not just switch every hook off.
	require.NoError(t, os.WriteFile(settingsJSON+".tmp", []byte(trusted), 0o644))
	require.NoError(t, os.Rename(settingsJSON+".tmp", settingsJSON))
	require.NoError(t, os.RemoveAll(filepath.Join(root, "trusted-ran")))
	require.Eventually(t, func() bool {
		_ = clients[0].call("wave/stop", map[string]any{"sessionId": ids[0]}, nil)
		_, err := os.Stat(filepath.Join(root, "trusted-ran"))
		return err == nil
	}, 10*time.Second, 20*time.Millisecond)
	require.NoFileExists(t, filepath.Join(root, "untrusted-ran"))

	for k, c := range clients {
		require.NoError(t, c.call("shutdown", nil, nil))
		require.NoError(t, c.notify("exit", nil))
		require.Equal(t, 0, c.close(30*time.Second), "client %d's server", k)
		<-c.done
		c.checkFrames(t)
	}
	goleak.VerifyNone(t, goroutines)
}
