// Package hookclient is the client side of the ACP proxy's hook bridge
// (acp/bridge.go): the command hook a bridged agent (codex-acp's Codex,
// claude-agent-acp's Claude Code when it cannot be given an http hook)
// runs before each tool call. It is shared by `wavehooks acp-hook` and the
// small `wavehooks-hook` program, so that both speak the one wire protocol
// and fail closed alike. It imports only the standard library packages the
// job needs: a process per tool call pays for every package's init, and
// wavehooks-hook exists to pay for no more than this.
//
// The protocol: connect to the proxy's unix socket, write the token and a
// newline, then the hook's stdin, close the writing half, and read the
// proxy's answer (Claude Code hook JSON, an object) until it closes. A
// wrong token is answered by a close with no answer.
package hookclient

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
)

// MaxAnswer bounds the proxy's answer: a longer one is cut, is then no
// JSON object, and fails closed.
const MaxAnswer = 16 << 20

// conn is a connection to the proxy whose writing half can be closed.
type conn interface {
	io.ReadWriteCloser
	CloseWrite() error
}

// Run is the whole hook command: it parses `--socket PATH --token TOKEN`,
// asks the proxy, prints its answer and returns the exit code. name is the
// command as its usage message names it. Whatever keeps it from the
// proxy's answer, it fails closed (Fail).
func Run(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", "", "the proxy's hook socket")
	token := fs.String("token", "", "the proxy's token for the socket")
	if err := fs.Parse(args); err != nil {
		return Fail(stderr, err)
	}
	if *socket == "" || *token == "" || fs.NArg() > 0 {
		return Fail(stderr, errors.New("usage: "+name+" --socket PATH --token TOKEN"))
	}
	answer, err := Ask(*socket, *token, stdin)
	if err != nil {
		return Fail(stderr, err)
	}
	if _, err := stdout.Write(answer); err != nil {
		return Fail(stderr, err)
	}
	return 0
}

// Ask sends the token and the hook input to the proxy and returns its
// answer, which must be a JSON object: anything else (nothing, a torn or
// cut answer, null) is an error, never an answer to pass on.
func Ask(socket, token string, stdin io.Reader) ([]byte, error) {
	conn, err := dial(socket)
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
	if err := conn.CloseWrite(); err != nil {
		return nil, fmt.Errorf("writing to the wavehooks proxy: %w", err)
	}
	answer, err := io.ReadAll(io.LimitReader(conn, MaxAnswer))
	if err != nil {
		return nil, fmt.Errorf("reading the wavehooks proxy's answer: %w", err)
	}
	if !isObject(answer) {
		return nil, fmt.Errorf("the wavehooks proxy gave no answer (%d bytes): it refused the token or ended", len(answer))
	}
	return answer, nil
}

// isObject says whether b is one JSON object (spaces around it allowed).
func isObject(b []byte) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(b, &obj) == nil && obj != nil
}

// Fail blocks the tool call: Claude Code and Codex read a PreToolUse
// hook's exit code 2 as a deny and give the model its stderr.
func Fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "wavehooks: the tool is not allowed: its hooks could not run (%v)\n", err)
	return 2
}
