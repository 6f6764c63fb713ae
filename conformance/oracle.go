//go:build linux

package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Oracle plays scenarios through the real Claude Code CLI, offline.
type Oracle struct {
	Binary string
	// Netns runs the CLI in a network namespace of its own (see netns_linux.go).
	Netns   bool
	Timeout time.Duration
}

// Run plays s in dir (which it fills: project/, home/, tmp/) and returns
// what the hooks recorded, which tools ran and what the model received.
// sockDir is a short directory for the fake API's Unix socket (their
// paths are limited to about 100 bytes).
func (o *Oracle) Run(ctx context.Context, s *Scenario, dir, sockDir string) (*Observation, error) {
	proj, home, tmp := filepath.Join(dir, "project"), filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := s.WriteProject(proj); err != nil {
		return nil, err
	}
	sock := filepath.Join(sockDir, "api.sock")
	api, err := StartFakeAPI(s.Turns, sock)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	args := append([]string{"--allowedTools", strings.Join(s.AllowedTools(), ",")}, s.Args...)
	if s.MCP {
		cfg, err := MCPServerConfig("conf")
		if err != nil {
			return nil, err
		}
		args = append(args, "--mcp-config", cfg, "--strict-mcp-config")
	}
	prompt := s.Prompt
	if prompt == "" {
		prompt = defaultPrompt
	}
	run := &ClaudeRun{Binary: o.Binary, Dir: proj, Home: home, TmpDir: tmp, Prompt: prompt, Args: args,
		API: api, Socket: sock, Netns: o.Netns, Timeout: o.Timeout}
	res, err := run.Run(ctx)
	_ = os.WriteFile(filepath.Join(dir, "stdout.jsonl"), res.Stdout, 0o644)
	_ = os.WriteFile(filepath.Join(dir, "stderr.txt"), res.Stderr, 0o644)
	if err != nil {
		return nil, err
	}
	if res.TimedOut {
		return nil, fmt.Errorf("claude did not exit within %v; stderr: %s", o.Timeout, tail(res.Stderr))
	}
	if res.ExitCode != s.ExitCode {
		return nil, fmt.Errorf("claude exited with %d (the scenario expects %d); stderr: %s; stdout: %s", res.ExitCode, s.ExitCode, tail(res.Stderr), tail(res.Stdout))
	}
	obs := &Observation{Dirs: map[string]string{proj: "$PROJECT", home: "$HOME"}}
	if obs.Calls, err = s.ReadCalls(proj); err != nil {
		return nil, err
	}
	if obs.Markers, err = Markers(proj); err != nil {
		return nil, err
	}
	var log strings.Builder
	var bodies []byte
	for _, r := range api.Requests() {
		fmt.Fprintf(&log, "%s %s %d bytes\n", r.Method, r.Path, len(r.Body))
		if IsConversationRequest(r) {
			obs.ModelCalls++
			obs.Model = append(obs.Model, requestTexts(r.Body)...)
			bodies = append(append(bodies, bytes.TrimSpace(r.Body)...), '\n')
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "api-requests.txt"), []byte(log.String()), 0o644)
	// The model calls' bodies, one a line: what the model received, word for word.
	_ = os.WriteFile(filepath.Join(dir, "model-requests.jsonl"), bodies, 0o644)
	return obs, nil
}

// defaultPrompt is the user's prompt when a scenario names none.
const defaultPrompt = "Do the task."

func tail(b []byte) string {
	const n = 2000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
