//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeBridge is a proxy's hook socket that reads one connection and writes
// answer (nothing when answer is empty); got receives what it read.
func fakeBridge(t *testing.T, answer string) (sock string, got <-chan string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "acphook-") // short: a unix socket path is at most ~104 bytes
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock = filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	ch := make(chan string, 1)
	go func() {
		defer ln.Close()
		conn, err := ln.Accept()
		if err != nil {
			ch <- "accept: " + err.Error()
			return
		}
		defer conn.Close()
		data, _ := io.ReadAll(conn)
		_, _ = io.WriteString(conn, answer)
		ch <- string(data)
	}()
	return sock, ch
}

// The hook `wavehooks acp` gives claude-agent-acp fails closed: whatever
// keeps it from getting the proxy's answer, it exits 2 (Claude Code's
// PreToolUse block) with the reason on stderr, and prints nothing Claude
// Code could read as an allow. With the proxy's answer, it prints it and
// exits 0.
func TestACPHookFailsClosed(t *testing.T) {
	input := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"toolu_1","session_id":"s"}`
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`
	bin := e2eBinary(t)
	cases := []struct {
		name     string
		args     func(t *testing.T) ([]string, <-chan string)
		code     int
		stdout   string
		stderr   string
		received string // what the proxy side read, when there is one
	}{
		{name: "the proxy answers", code: 0, stdout: deny, received: "TOKEN\n" + input,
			args: func(t *testing.T) ([]string, <-chan string) {
				sock, got := fakeBridge(t, deny)
				return []string{"--socket", sock, "--token", "TOKEN"}, got
			}},
		{name: "the socket is gone", code: 2, stderr: "the wavehooks proxy is not reachable",
			args: func(t *testing.T) ([]string, <-chan string) {
				return []string{"--socket", filepath.Join(t.TempDir(), "gone.sock"), "--token", "TOKEN"}, nil
			}},
		{name: "the proxy closes without an answer (a wrong token)", code: 2, stderr: "gave no answer", received: "WRONG\n" + input,
			args: func(t *testing.T) ([]string, <-chan string) {
				sock, got := fakeBridge(t, "")
				return []string{"--socket", sock, "--token", "WRONG"}, got
			}},
		{name: "the answer is not JSON", code: 2, stderr: "gave no answer", received: "TOKEN\n" + input,
			args: func(t *testing.T) ([]string, <-chan string) {
				sock, got := fakeBridge(t, "allow")
				return []string{"--socket", sock, "--token", "TOKEN"}, got
			}},
		{name: "no token", code: 2, stderr: "usage: wavehooks acp-hook",
			args: func(t *testing.T) ([]string, <-chan string) { return []string{"--socket", "/nonexistent"}, nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, got := c.args(t)
			cmd := exec.Command(bin, append([]string{"acp-hook"}, args...)...)
			cmd.Stdin = strings.NewReader(input)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, c.code, code, "stderr: %s", stderr.String())
			if c.code != 0 {
				require.Empty(t, stdout.String(), "a failing hook prints no decision")
				require.Contains(t, stderr.String(), "the tool is not allowed")
				require.Contains(t, stderr.String(), c.stderr)
			} else {
				require.JSONEq(t, c.stdout, stdout.String())
				require.True(t, json.Valid(stdout.Bytes()))
			}
			if got != nil {
				require.Equal(t, c.received, <-got)
			}
		})
	}
}
