package wintest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// wineEnv returns the Wine program and prefix make test-wine prepared, or
// skips: the test needs the prefix with the stand-in bcryptprimitives.dll
// (scripts/wine/run.sh), which says SKIPPED itself when Wine is missing.
func wineEnv(t *testing.T) (wine, prefix string) {
	prefix = os.Getenv("WAVEHOOKS_WINE_PREFIX")
	if prefix == "" {
		t.Skip("runs under Wine from make test-wine (scripts/wine/run.sh), which prepares WAVEHOOKS_WINE_PREFIX")
	}
	return os.Getenv("WINE"), prefix
}

// buildWindows builds a package of this module for windows/amd64 into dir.
func buildWindows(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, msg)
	return out
}

// server is `wavehooks.exe serve` under Wine, spoken to over stdio.
type server struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	msgs   chan map[string]json.RawMessage
	stderr strings.Builder
	seq    int
}

func startServer(t *testing.T, wine, prefix, exe, cwd string, env ...string) *server {
	t.Helper()
	s := &server{msgs: make(chan map[string]json.RawMessage, 16)}
	s.cmd = exec.Command(wine, exe, "serve")
	s.cmd.Dir = cwd
	s.cmd.Env = append(os.Environ(), append([]string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all"}, env...)...)
	s.cmd.Stderr = &s.stderr
	var err error
	s.in, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go s.read(bufio.NewReader(out))
	t.Cleanup(func() {
		_ = s.in.Close()
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
			t.Errorf("wavehooks.exe did not exit after its stdin closed; stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

// read delivers every message the server sends until its stdout ends.
func (s *server) read(r *bufio.Reader) {
	defer close(s.msgs)
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, max(length, 0))
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil {
			s.msgs <- m
		}
	}
}

func (s *server) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// call sends a request and returns its result, answering the server's own
// requests (registrations, progress) with null as a plain editor would.
func (s *server) call(t *testing.T, method string, params, result any) {
	t.Helper()
	s.seq++
	id := strconv.Itoa(s.seq)
	require.NoError(t, s.send(map[string]any{"jsonrpc": "2.0", "id": s.seq, "method": method, "params": params}))
	for {
		var m map[string]json.RawMessage
		var ok bool
		select {
		case m, ok = <-s.msgs:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: no answer within two minutes; stderr:\n%s", method, s.stderr.String())
		}
		require.True(t, ok, "%s: the server ended; stderr:\n%s", method, s.stderr.String())
		if _, isRequest := m["method"]; isRequest {
			if reqID, has := m["id"]; has {
				require.NoError(t, s.send(map[string]any{"jsonrpc": "2.0", "id": reqID, "result": nil}))
			}
			continue
		}
		if string(m["id"]) != id {
			continue
		}
		require.Empty(t, string(m["error"]), "%s answered an error", method)
		require.NoError(t, json.Unmarshal(m["result"], result), "%s", method)
		return
	}
}

// TestServeOnWindowsRunsAPreToolUseHook is a Windows editor's first minutes
// with the real wavehooks.exe under Wine: `wavehooks.exe lint` accepts the
// hook (on main it called guard.exe not executable), initialize with a C: drive root
// in both spellings editors send (file:///C:/… and VS Code's
// file:///c%3A/…; on main both were refused as not absolute), then a
// session whose PreToolUse runs an exec-form hook — a real Windows program
// that reads its stdin — which denies `rm -rf build` with its reason and
// lets `dir` through, having seen each call's command and the workspace as
// its cwd.
func TestServeOnWindowsRunsAPreToolUseHook(t *testing.T) {
	wine, prefix := wineEnv(t)
	// Under the prefix's drive_c, so that the server sees C:\… paths.
	base, err := os.MkdirTemp(filepath.Join(prefix, "drive_c"), "wavehooks-e2e-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	winBase := `C:\` + filepath.Base(base)
	exe := buildWindows(t, base, "github.com/wavehooks/wavehooks/cmd/wavehooks", "wavehooks.exe")
	buildWindows(t, base, "github.com/wavehooks/wavehooks/internal/wintest/guard", "guard.exe")
	home, project := filepath.Join(base, "home"), filepath.Join(base, "project")
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.MkdirAll(project, 0o755))
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash",
		// Forward slashes, as settings files written for several systems spell a path: Windows takes them,
		// and lint checks the program (a path with no slash is looked up in PATH).
		"hooks": []any{map[string]any{"type": "command", "command": filepath.ToSlash(winBase) + "/guard.exe",
			"args": []string{winBase + `\seen.jsonl`}}},
	}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), settings, 0o644))
	env := "WAVE_HOME=" + winBase + `\home`

	// Lint accepts the hook: guard.exe runs on Windows although Windows files have no exec bit (on main:
	// "guard.exe is not executable; the hook will fail with exit 126", exit status 1).
	lint := exec.Command(wine, exe, "lint", "--project", winBase+`\project`, "--wave-home", winBase+`\home`)
	lint.Env = append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
	lintOut, err := lint.CombinedOutput()
	require.NoError(t, err, "wavehooks.exe lint: %s", lintOut)
	require.NotContains(t, string(lintOut), "not executable")

	for _, rootURI := range []string{"file:///C:/" + filepath.Base(base) + "/project",
		"file:///c%3A/" + filepath.Base(base) + "/project"} {
		t.Run(rootURI, func(t *testing.T) {
			s := startServer(t, wine, prefix, exe, project, env)
			var init struct {
				Capabilities map[string]any `json:"capabilities"`
			}
			s.call(t, "initialize", map[string]any{"processId": nil, "rootUri": rootURI, "capabilities": map[string]any{}}, &init)
			require.NotEmpty(t, init.Capabilities, "initialize answered no capabilities")
			require.NoError(t, s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
		})
	}

	s := startServer(t, wine, prefix, exe, project, env)
	var init map[string]any
	s.call(t, "initialize", map[string]any{"processId": nil,
		"rootUri": "file:///c%3A/" + filepath.Base(base) + "/project", "capabilities": map[string]any{}}, &init)
	require.NoError(t, s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
	var started struct {
		SessionID string `json:"sessionId"`
	}
	s.call(t, "wave/sessionStart", map[string]any{"source": "startup"}, &started)
	require.NotEmpty(t, started.SessionID)

	type decision struct {
		Permission string `json:"permission"`
		Decision   string `json:"decision"`
		Reason     string `json:"reason"`
	}
	var denied, allowed decision
	s.call(t, "wave/preToolUse", map[string]any{"sessionId": started.SessionID, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}}, &denied)
	require.Equal(t, decision{Permission: "deny", Decision: "deny", Reason: "guard.exe refused: rm -rf build"}, denied)
	s.call(t, "wave/preToolUse", map[string]any{"sessionId": started.SessionID, "toolUseId": "t2", "toolName": "Bash",
		"toolInput": map[string]any{"command": "dir"}}, &allowed)
	require.Equal(t, "allow", allowed.Permission)

	seen, err := os.ReadFile(filepath.Join(base, "seen.jsonl"))
	require.NoError(t, err, "the hook never ran")
	lines := strings.Split(strings.TrimSpace(string(seen)), "\n")
	require.Len(t, lines, 2, "the hook runs once per call: %s", seen)
	for i, want := range []string{"rm -rf build", "dir"} {
		var in struct {
			Cwd       string `json:"cwd"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &in))
		require.Equal(t, want, in.ToolInput.Command)
		require.Equal(t, winBase+`\project`, in.Cwd, "the hook's cwd is the workspace, as a C: path")
	}
}
