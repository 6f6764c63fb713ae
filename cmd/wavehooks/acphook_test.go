//go:build !windows

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// hookClientBinary builds cmd/wavehooks-hook once, in a directory of its
// own (so that e2eBinary's wavehooks keeps `wavehooks acp-hook` as its
// bridge's hook).
var hookClientBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "wavehooks-hook-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "wavehooks-hook")
	if out, err := exec.Command("go", "build", "-o", bin, "../wavehooks-hook").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// staleSocket is a socket file nothing listens on any more, as a proxy
// killed with SIGKILL leaves it: connecting is refused.
func staleSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "acphook-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	require.NoError(t, err)
	ln.SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())
	require.FileExists(t, sock)
	return sock
}

// The command hook `wavehooks acp` gives a bridged agent (claude-agent-acp's
// Claude Code, codex-acp's Codex) fails closed, as wavehooks-hook and as
// `wavehooks acp-hook` alike: whatever keeps it from the proxy's whole
// answer, it exits 2 (a PreToolUse block) with the reason on stderr, and
// prints nothing the agent could read as an allow. With the proxy's answer,
// it prints it and exits 0.
func TestACPHookFailsClosed(t *testing.T) {
	input := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"toolu_1","session_id":"s"}`
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`
	// An allow longer than the client takes: cut, it is no answer.
	huge := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"` +
		strings.Repeat("x", 16<<20) + `"}}`
	bin := e2eBinary(t)
	client, err := hookClientBinary()
	require.NoError(t, err)
	clients := []struct {
		name  string
		argv  []string // the program and its arguments before the flags
		usage string
	}{
		{name: "wavehooks-hook", argv: []string{client}, usage: "usage: wavehooks-hook --socket"},
		{name: "acp-hook", argv: []string{bin, "acp-hook"}, usage: "usage: wavehooks acp-hook --socket"},
	}
	withSocket := func(answer string) func(t *testing.T) (string, <-chan string) {
		return func(t *testing.T) (string, <-chan string) { return fakeBridge(t, answer) }
	}
	cases := []struct {
		name     string
		socket   func(t *testing.T) (string, <-chan string) // nil: no --socket
		token    string
		code     int
		stdout   string
		stderr   string
		received string // what the proxy side read, when there is one
	}{
		{name: "the proxy answers", socket: withSocket(deny), token: "TOKEN", code: 0, stdout: deny, received: "TOKEN\n" + input},
		{name: "the socket is gone", token: "TOKEN", code: 2, stderr: "the wavehooks proxy is not reachable",
			socket: func(t *testing.T) (string, <-chan string) { return filepath.Join(t.TempDir(), "gone.sock"), nil }},
		{name: "the socket refuses (the proxy was killed)", token: "TOKEN", code: 2, stderr: "the wavehooks proxy is not reachable",
			socket: func(t *testing.T) (string, <-chan string) { return staleSocket(t), nil }},
		{name: "the proxy closes without an answer (a wrong token)", socket: withSocket(""), token: "WRONG", code: 2,
			stderr: "gave no answer (0 bytes)", received: "WRONG\n" + input},
		{name: "the answer is not JSON", socket: withSocket("allow"), token: "TOKEN", code: 2, stderr: "gave no answer", received: "TOKEN\n" + input},
		{name: "the answer is torn", socket: withSocket(deny[:40]), token: "TOKEN", code: 2, stderr: "gave no answer (40 bytes)", received: "TOKEN\n" + input},
		{name: "the answer is JSON but no object", socket: withSocket("null"), token: "TOKEN", code: 2, stderr: "gave no answer", received: "TOKEN\n" + input},
		{name: "the answer is longer than the client takes", socket: withSocket(huge), token: "TOKEN", code: 2,
			stderr: "gave no answer (16777216 bytes)", received: "TOKEN\n" + input},
		{name: "no token", token: "", code: 2, stderr: "usage: ",
			socket: func(t *testing.T) (string, <-chan string) { return "/nonexistent", nil }},
		{name: "no socket", token: "TOKEN", code: 2, stderr: "usage: "},
	}
	for _, cl := range clients {
		for _, c := range cases {
			t.Run(cl.name+"/"+c.name, func(t *testing.T) {
				args := append([]string{}, cl.argv[1:]...)
				var got <-chan string
				if c.socket != nil {
					var sock string
					sock, got = c.socket(t)
					args = append(args, "--socket", sock)
				}
				if c.token != "" {
					args = append(args, "--token", c.token)
				}
				stdout, stderr, code := runWithStdin(t, exec.Command(cl.argv[0], args...), input)
				require.Equal(t, c.code, code, "stderr: %s", stderr)
				if c.code != 0 {
					require.Empty(t, stdout, "a failing hook prints no decision")
					require.Contains(t, stderr, "the tool is not allowed")
					require.Contains(t, stderr, c.stderr)
					if c.stderr == "usage: " {
						require.Contains(t, stderr, cl.usage)
					}
				} else {
					require.JSONEq(t, c.stdout, stdout)
					require.True(t, json.Valid([]byte(stdout)))
				}
				if got != nil {
					require.Equal(t, c.received, <-got)
				}
			})
		}
	}
}

// wavehooks-hook says what it is, which the proxy checks once before it
// hands it to an agent (acp/hookclient.go), and takes nothing else.
func TestHookClientVersion(t *testing.T) {
	client, err := hookClientBinary()
	require.NoError(t, err)
	out, err := exec.Command(client, "--version").Output()
	require.NoError(t, err)
	require.Regexp(t, `^wavehooks-hook \S+`, string(out))
}
