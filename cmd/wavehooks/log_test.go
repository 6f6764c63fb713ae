package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// logSettings deny `rm` in Bash with a hook whose command carries an
// escape sequence (a comment a repository could hide one in), and add
// context to every prompt.
const logSettings = `{"hooks": {
  "PreToolUse": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh # \u001b]0;owned\u0007\u001b[31m"}]},
    {"matcher": "Write", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}
  ],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$SCRIPTS/prompt-context.sh"}]}]
}}`

// serveSession starts a session in a running serve and returns its ID.
func serveSession(p *lspProc) string {
	return p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)["sessionId"].(string)
}

func startServeInitialized(t *testing.T, env cliEnv) *lspProc {
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	return p
}

func stopServe(t *testing.T, p *lspProc) {
	require.Contains(t, p.call("shutdown", nil, ""), "result")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	require.NoError(t, p.cmd.Wait())
}

func lines(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// The runs a real serve session recorded are what `wavehooks log` prints,
// oldest first, filtered by session, event and limit; as JSON lines they
// decode to the runs with their decisions; --explain says what each hook
// did, with the escape sequence in a hook's command shown, never played.
func TestLogShowsServeRuns(t *testing.T) {
	env := newCLIEnv(t, logSettings)
	out, stderr, code := env.run(t, "", "log")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, out, "no run recorded yet: nothing to print")

	p := startServeInitialized(t, env)
	s1 := serveSession(p)
	deny := p.call("wave/preToolUse", map[string]any{"sessionId": s1, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}}, "")["result"].(map[string]any)
	require.Equal(t, "deny", deny["permission"])
	p.call("wave/preToolUse", map[string]any{"sessionId": s1, "toolUseId": "t2", "toolName": "Write",
		"toolInput": map[string]any{"file_path": filepath.Join(env.project, "a.txt"), "content": "hi"}}, "")
	p.call("wave/userPromptSubmit", map[string]any{"sessionId": s1, "prompt": "hello"}, "")
	s2 := serveSession(p)
	p.call("wave/userPromptSubmit", map[string]any{"sessionId": s2, "prompt": "again"}, "")
	stopServe(t, p)

	for _, tc := range []struct {
		name string
		args []string
		want []string // a regexp per line, in order
	}{
		{"one session's tool calls", []string{"--session", s1, "--event", "PreToolUse"}, []string{
			`^\S+Z  ` + s1 + `  PreToolUse Bash: deny.*\(hooks: 1 ran, 1 skipped\)$`,
			`^\S+Z  ` + s1 + `  PreToolUse Write: .*\(hooks: 1 ran, 1 skipped\)$`}},
		{"the newest only", []string{"--session", s1, "--event", "PreToolUse", "--limit", "1"}, []string{
			`  PreToolUse Write: `}},
		{"an event of every session, case as typed", []string{"--event", "userpromptsubmit"}, []string{
			`  ` + s1 + `  UserPromptSubmit: `, `  ` + s2 + `  UserPromptSubmit: `}},
		{"another session", []string{"--session", s2}, []string{`  ` + s2 + `  UserPromptSubmit: `}},
		{"an unknown session", []string{"--session", "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := env.run(t, "", append([]string{"log"}, tc.args...)...)
			require.Equal(t, 0, code, stderr)
			got := lines(out)
			require.Len(t, got, len(tc.want), out)
			for i, re := range tc.want {
				require.Regexp(t, re, got[i])
			}
		})
	}

	out, stderr, code = env.run(t, "", "log", "--format", "json", "--session", s1)
	require.Equal(t, 0, code, stderr)
	var events []event.Event
	for _, l := range lines(out) {
		var r hooks.RunRecord
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		require.Equal(t, s1, r.SessionID)
		events = append(events, r.Event)
		if r.Event == event.PreToolUse && r.MatchValue == "Bash" {
			require.NotNil(t, r.Decision)
			require.Equal(t, hooks.PermissionDeny, r.Decision.Permission)
			require.Contains(t, r.Hooks[0].Command, "\x1b]0;owned", "JSON keeps the command as it is, escaped by JSON")
		}
	}
	require.Subset(t, events, []event.Event{event.PreToolUse, event.UserPromptSubmit})
	require.Less(t, strings.Index(out, `"PreToolUse"`), strings.Index(out, `"UserPromptSubmit"`), "oldest first")

	out, stderr, code = env.run(t, "", "log", "--explain", "--session", s1, "--event", "PreToolUse", "--limit", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `deny-rm.sh # \u001b]0;owned\u0007\u001b[31m`)
	require.NotContains(t, out, "\x1b", "no escape sequence reaches the terminal")
	require.NotContains(t, out, "\a")
	require.Contains(t, out, "did not run: the matcher does not match")
	require.Regexp(t, `ran in \d`, out)
	require.NotContains(t, out, "ran in 0s", "the duration the log keeps (durationNs) is shown")

	for _, bad := range [][]string{{"--format", "xml"}, {"--event", "NoSuchEvent"}, {"--limit", "-1"}, {"--explain", "--format", "json"}, {"extra"}} {
		_, stderr, code := env.run(t, "", append([]string{"log"}, bad...)...)
		require.Equal(t, 2, code, "%v", bad)
		require.Contains(t, stderr, "wavehooks log", "%v", bad)
	}
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `wavehooks log --follow`, started before any run was recorded (no runs
// directory yet), prints a run serve records after it started, keeps
// following when the log rotates (runs.jsonl renamed to runs.1.jsonl, a
// new runs.jsonl begun), prints only what the filter keeps, and exits 0 on
// SIGINT and on SIGTERM.
func TestLogFollow(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			env := newCLIEnv(t, logSettings)
			cmd := exec.Command(e2eBinary(t), "log", "--follow", "--event", "PreToolUse")
			cmd.Env = append(os.Environ(), "WAVE_HOME="+env.home, "HOME="+env.home)
			var out, errOut syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Start())
			exited := false
			t.Cleanup(func() {
				if !exited {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
			})

			p := startServeInitialized(t, env)
			sid := serveSession(p)
			p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
				"toolInput": map[string]any{"command": "rm -rf build"}}, "")
			require.Eventually(t, func() bool { return strings.Contains(out.String(), "PreToolUse Bash: deny") },
				10*time.Second, 20*time.Millisecond, "stdout: %s\nstderr: %s", &out, &errOut)

			// Rotation as RunLog.Append does it past its bound.
			dir := hooks.RunLogDir(env.home)
			require.NoError(t, os.Rename(filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "runs.1.jsonl")))
			p.call("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "filtered out"}, "")
			p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
				"toolInput": map[string]any{"file_path": filepath.Join(env.project, "a.txt"), "content": "hi"}}, "")
			require.Eventually(t, func() bool { return strings.Contains(out.String(), "PreToolUse Write") },
				10*time.Second, 20*time.Millisecond, "stdout: %s\nstderr: %s", &out, &errOut)
			stopServe(t, p)

			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			exited = true
			require.NoError(t, err, "exit 0 on %v; stderr: %s", sig, &errOut)
			got := lines(out.String())
			require.Len(t, got, 2, out.String())
			require.Contains(t, got[0], "PreToolUse Bash: deny")
			require.Contains(t, got[1], "PreToolUse Write")
			require.Empty(t, errOut.String())
		})
	}
}

// The runs OpenTelemetry export dropped (internal/telemetry's counter file,
// shared by every process of the wave home) end `wavehooks log` as a
// trailer line; with --format json the lines stay runs only, and the count
// goes to stderr. No drop, no line.
func TestLogShowsTelemetryDrops(t *testing.T) {
	for _, c := range []struct {
		name, counter, format string
		wantOut, wantErr      string
	}{
		{name: "no drops", format: "text"},
		{name: "text", format: "text", counter: `{"time":"2026-12-06T10:00:00Z","dropped":2,"why":"export failed"}
{"time":"2026-12-06T11:00:00Z","dropped":3,"why":"the export queue was full"}
`, wantOut: "telemetry: 5 run(s) not exported to OpenTelemetry (queue full or collector unreachable; last 2026-12-06T11:00:00Z)"},
		{name: "json", format: "json", counter: `{"time":"2026-12-06T10:00:00Z","dropped":1,"why":"export failed"}
`, wantErr: "telemetry: 1 run(s) not exported to OpenTelemetry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			if c.counter != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(home, "runs"), 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(home, "runs", telemetry.DropsFile), []byte(c.counter), 0o600))
			}
			cmd := exec.Command(e2eBinary(t), "log", "--wave-home", home, "--format", c.format)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			require.NoError(t, cmd.Run(), errOut.String())
			if c.wantOut == "" {
				require.NotContains(t, out.String(), "telemetry:")
			} else {
				require.Equal(t, c.wantOut+"\n", out.String())
			}
			if c.wantErr == "" {
				require.Empty(t, errOut.String())
			} else {
				require.Contains(t, errOut.String(), c.wantErr)
			}
		})
	}
}
