package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"time"
)

// acpHookMaxAnswer bounds the proxy's answer.
const acpHookMaxAnswer = 16 << 20

// acpHook is the hidden `wavehooks acp-hook --socket PATH --token TOKEN`: the
// command hook `wavehooks acp` gives claude-agent-acp's Claude Code and
// codex-acp's Codex (the hook bridge, acp/bridge.go and
// acp/agents/codex.go). It hands the hook's stdin to the proxy over
// the proxy's unix socket and prints the proxy's answer, Claude Code hook
// JSON. Whatever goes wrong (no socket, a refused token, no answer), it
// fails closed: exit 2 with the reason on stderr, which Claude Code and Codex
// read as a PreToolUse block and show the model.
func acpHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp-hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", "", "the proxy's hook socket")
	token := fs.String("token", "", "the proxy's token for the socket")
	if err := fs.Parse(args); err != nil {
		return acpHookFail(stderr, err)
	}
	if *socket == "" || *token == "" || fs.NArg() > 0 {
		return acpHookFail(stderr, errors.New("usage: wavehooks acp-hook --socket PATH --token TOKEN"))
	}
	answer, err := acpHookAsk(*socket, *token, stdin)
	if err != nil {
		return acpHookFail(stderr, err)
	}
	if _, err := stdout.Write(answer); err != nil {
		return acpHookFail(stderr, err)
	}
	return 0
}

// acpHookAsk sends the token and the hook input to the proxy and returns
// its answer, which must be a JSON object.
func acpHookAsk(socket, token string, stdin io.Reader) ([]byte, error) {
	conn, err := net.DialTimeout("unix", socket, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the wavehooks proxy is not reachable: %w", err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, token+"\n"); err != nil {
		return nil, fmt.Errorf("writing to the wavehooks proxy: %w", err)
	}
	if _, err := io.Copy(conn, stdin); err != nil {
		return nil, fmt.Errorf("writing to the wavehooks proxy: %w", err)
	}
	if uc, ok := conn.(*net.UnixConn); ok {
		if err := uc.CloseWrite(); err != nil {
			return nil, fmt.Errorf("writing to the wavehooks proxy: %w", err)
		}
	}
	answer, err := io.ReadAll(io.LimitReader(conn, acpHookMaxAnswer))
	if err != nil {
		return nil, fmt.Errorf("reading the wavehooks proxy's answer: %w", err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(answer, &obj); err != nil {
		return nil, fmt.Errorf("the wavehooks proxy gave no answer (%d bytes): it refused the token or ended", len(answer))
	}
	return answer, nil
}

// acpHookFail blocks the tool call: Claude Code treats a PreToolUse hook's
// exit code 2 as a deny and gives the model its stderr.
func acpHookFail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "wavehooks: the tool is not allowed: its hooks could not run (%v)\n", err)
	return 2
}
