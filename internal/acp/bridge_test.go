//go:build !windows

package acp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
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

// The bridge adds its one hook to the session's settings and keeps
// everything the editor sent in _meta: other keys, other options, its own
// settings and hooks, or the settings file it names.
func TestBridgeSettingsKeepTheEditorsMeta(t *testing.T) {
	_, b := bridgeProxy(t)
	cwd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "s.json"), []byte(`{"model":"m1","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"own"}]}]}}`), 0o600))
	ours := map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": b.command, "timeout": float64(bridgeHookTimeout)}}}
	own := map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "own"}}}
	cases := []struct {
		name     string
		meta     string // the editor's _meta ("" for none)
		settings map[string]any
		kept     func(t *testing.T, meta map[string]any)
	}{
		{name: "no _meta", settings: map[string]any{"disableAllHooks": false, "hooks": map[string]any{"PreToolUse": []any{ours}}}},
		{name: "the editor's keys and options", meta: `{"steering":{"x":1},"claudeCode":{"emitRawSDKMessages":true,"options":{"model":"opus"}}}`,
			settings: map[string]any{"disableAllHooks": false, "hooks": map[string]any{"PreToolUse": []any{ours}}},
			kept: func(t *testing.T, meta map[string]any) {
				require.Equal(t, map[string]any{"x": float64(1)}, meta["steering"])
				cc := meta["claudeCode"].(map[string]any)
				require.Equal(t, true, cc["emitRawSDKMessages"])
				require.Equal(t, "opus", cc["options"].(map[string]any)["model"])
			}},
		{name: "the editor's own settings and hooks", meta: `{"claudeCode":{"options":{"settings":{"model":"m2","disableAllHooks":true,"hooks":{"Stop":[1],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"own"}]}]}}}}}`,
			settings: map[string]any{"model": "m2", "disableAllHooks": false, "hooks": map[string]any{"Stop": []any{float64(1)}, "PreToolUse": []any{own, ours}}}},
		{name: "the settings file the editor names", meta: `{"claudeCode":{"options":{"settings":"s.json"}}}`,
			settings: map[string]any{"model": "m1", "disableAllHooks": false, "hooks": map[string]any{"PreToolUse": []any{own, ours}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			params := `{"cwd":` + string(mustRaw(cwd)) + `,"mcpServers":[]`
			if c.meta != "" {
				params += `,"_meta":` + c.meta
			}
			line, err := b.bridgeSettings([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":` + params + "}}\n"))
			require.NoError(t, err)
			require.True(t, strings.HasSuffix(string(line), "}\n"), "one line: %s", line)
			var msg struct {
				ID     int            `json:"id"`
				Method string         `json:"method"`
				Params map[string]any `json:"params"`
			}
			require.NoError(t, json.Unmarshal(line, &msg))
			require.Equal(t, 7, msg.ID)
			require.Equal(t, "session/new", msg.Method)
			require.Equal(t, cwd, msg.Params["cwd"])
			meta := msg.Params["_meta"].(map[string]any)
			require.Equal(t, c.settings, meta["claudeCode"].(map[string]any)["options"].(map[string]any)["settings"])
			if c.kept != nil {
				c.kept(t, meta)
			}
		})
	}
	require.True(t, strings.HasPrefix(b.command, `'/opt/wave hooks/wavehooks' acp-hook --socket `), "the path is quoted for the shell: %s", b.command)
}

// A request whose _meta the bridge cannot extend is refused, not passed on
// without the hook: that session would run tools no hook sees.
func TestBridgeSettingsRefuseWhatTheyCannotExtend(t *testing.T) {
	_, b := bridgeProxy(t)
	for _, meta := range []string{`"x"`, `{"claudeCode":[]}`, `{"claudeCode":{"options":{"settings":"missing.json"}}}`,
		`{"claudeCode":{"options":{"settings":{"hooks":{"PreToolUse":{}}}}}}`} {
		_, err := b.bridgeSettings([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","_meta":` + meta + "}}\n"))
		require.Error(t, err, meta)
	}
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

// Adding the bridge's hook keeps the bytes of every member of the request
// it does not touch: an editor's MCP server entry keeps its key order, and
// a large number in _meta is not rounded through a float.
func TestBridgeSettingsKeepTheBytesOfWhatTheyDoNotTouch(t *testing.T) {
	_, b := bridgeProxy(t)
	mcp := `[{"name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/p"],"env":[]}]`
	meta := `{"zed":{"requestId":12345678901234567891,"b":1,"a":2},"claudeCode":{"options":{"model":"opus"}}}`
	line, err := b.bridgeSettings([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/p","mcpServers":` + mcp + `,"_meta":` + meta + "}}\n"))
	require.NoError(t, err)
	require.Contains(t, string(line), `"mcpServers":`+mcp)
	require.Contains(t, string(line), `"zed":{"requestId":12345678901234567891,"b":1,"a":2}`)
	require.Contains(t, string(line), `"model":"opus"`)
	require.Contains(t, string(line), b.command)
}
