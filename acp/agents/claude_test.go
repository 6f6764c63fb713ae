package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// claudeBridge is claude-agent-acp's integration with a bridge's hook
// command, as the proxy calls it.
type claudeBridge struct{ command string }

func testBridge() claudeBridge {
	return claudeBridge{command: "'/opt/wave hooks/wavehooks' acp-hook --socket /tmp/s --token t"}
}

func (b claudeBridge) settings(line []byte) ([]byte, error) {
	return claudeAgentACP{}.SessionRequest(line, Hook{Command: b.command}, os.ReadFile)
}

// The bridge adds its one hook to the session's settings and keeps
// everything the editor sent in _meta: other keys, other options, its own
// settings and hooks, or the settings file it names.
func TestBridgeSettingsKeepTheEditorsMeta(t *testing.T) {
	b := testBridge()
	cwd := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "s.json"), []byte(`{"model":"m1","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"own"}]}]}}`), 0o600))
	ours := map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": b.command, "timeout": float64(ClaudeHookTimeout)}}}
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
			line, err := b.settings([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":` + params + "}}\n"))
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
}

// A request whose _meta the bridge cannot extend is refused, not passed on
// without the hook: that session would run tools no hook sees.
func TestBridgeSettingsRefuseWhatTheyCannotExtend(t *testing.T) {
	b := testBridge()
	for _, meta := range []string{`"x"`, `{"claudeCode":[]}`, `{"claudeCode":{"options":{"settings":"missing.json"}}}`,
		`{"claudeCode":{"options":{"settings":{"hooks":{"PreToolUse":{}}}}}}`} {
		_, err := b.settings([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","_meta":` + meta + "}}\n"))
		require.Error(t, err, meta)
	}
}

// Adding the bridge's hook keeps the bytes of every member of the request
// it does not touch: an editor's MCP server entry keeps its key order, and
// a large number in _meta is not rounded through a float.
func TestBridgeSettingsKeepTheBytesOfWhatTheyDoNotTouch(t *testing.T) {
	b := testBridge()
	mcp := `[{"name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/p"],"env":[]}]`
	meta := `{"zed":{"requestId":12345678901234567891,"b":1,"a":2},"claudeCode":{"options":{"model":"opus"}}}`
	line, err := b.settings([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/p","mcpServers":` + mcp + `,"_meta":` + meta + "}}\n"))
	require.NoError(t, err)
	require.Contains(t, string(line), `"mcpServers":`+mcp)
	require.Contains(t, string(line), `"zed":{"requestId":12345678901234567891,"b":1,"a":2}`)
	require.Contains(t, string(line), `"model":"opus"`)
	require.Contains(t, string(line), b.command)
}
