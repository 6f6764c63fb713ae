//go:build !windows

package acp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bridgeProxy is a proxy with a running hook bridge and no agent.
func bridgeProxy(t *testing.T) (*Proxy, *bridge) {
	t.Helper()
	p := &Proxy{opts: Options{HookExe: "/opt/wave hooks/wavehooks"}, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		sessions: map[string]*sessState{}}
	b, err := p.startBridge()
	require.NoError(t, err)
	t.Cleanup(p.closeBridge)
	return p, b
}

// The bridge's hook command quotes the path of wavehooks for the shell.
func TestBridgeCommandIsQuoted(t *testing.T) {
	_, b := bridgeProxy(t)
	require.True(t, strings.HasPrefix(b.command, `'/opt/wave hooks/wavehooks' acp-hook --socket `), "the path is quoted for the shell: %s", b.command)
}

// The bridge's socket lives in a directory only its user can enter, answers
// nothing without the token, and denies what it cannot judge (no session,
// an event it does not bridge, input it cannot read): it fails closed.
func TestBridgeSocketFailsClosed(t *testing.T) {
	_, b := bridgeProxy(t)
	fi, err := os.Stat(b.dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	ask := func(token, input string) string {
		conn, err := net.Dial("unix", b.sock)
		require.NoError(t, err)
		defer conn.Close()
		_, err = io.WriteString(conn, token+"\n"+input)
		require.NoError(t, err)
		require.NoError(t, conn.(*net.UnixConn).CloseWrite())
		out, err := io.ReadAll(conn)
		require.NoError(t, err)
		return string(out)
	}
	input := `{"hook_event_name":"PreToolUse","session_id":"","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`
	require.Empty(t, ask("not-the-token", input), "a wrong token gets no answer")
	for _, in := range []string{input, `{"hook_event_name":"PostToolUse","session_id":"nobody","tool_name":"Bash","tool_use_id":"t"}`, `not json`} {
		var out struct {
			Specific struct {
				Decision string `json:"permissionDecision"`
				Reason   string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal([]byte(ask(b.token, in)), &out), in)
		require.Equal(t, "deny", out.Specific.Decision, in)
		require.NotEmpty(t, out.Specific.Reason, in)
	}
}
