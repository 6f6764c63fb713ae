//go:build linux

package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
)

// A minimal MCP server (stdio, newline-delimited JSON-RPC) so that the
// suite can check matchers on MCP tool names (mcp__<server>__<tool>). It is
// the test binary started again with mcpEnv set; its one tool, "touch",
// creates a marker file in its working directory, so the suite sees whether
// the tool ran.

// mcpEnv makes the test binary an MCP server; TestMain checks IsMCPServer.
const mcpEnv = "WAVEHOOKS_CONFORMANCE_MCP"

// IsMCPServer reports whether this process was started as the MCP server.
func IsMCPServer() bool { return os.Getenv(mcpEnv) != "" }

// MCPServerConfig is the --mcp-config JSON that starts this binary as the
// MCP server named name.
func MCPServerConfig(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]any{name: map[string]any{
		"type": "stdio", "command": self, "args": []string{}, "env": map[string]string{mcpEnv: "1"}}}})
	return string(b), err
}

var markerName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// MCPServerMain serves MCP on stdin and stdout until stdin ends.
func MCPServerMain(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // notifications need no answer
		}
		var result any
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.ProtocolVersion == "" {
				p.ProtocolVersion = "2025-06-18"
			}
			result = map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "conformance", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{
				"name": "touch", "description": "Create an empty file in the working directory.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
					"required": []string{"name"}}}}}
		case "tools/call":
			var p struct {
				Name      string `json:"name"`
				Arguments struct {
					Name string `json:"name"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			text, isError := "touched "+p.Arguments.Name, false
			if !markerName.MatchString(p.Arguments.Name) {
				text, isError = fmt.Sprintf("bad file name %q", p.Arguments.Name), true
			} else if err := os.WriteFile(filepath.Clean(p.Arguments.Name), nil, 0o644); err != nil {
				text, isError = err.Error(), true
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isError}
		case "ping":
			result = map[string]any{}
		default:
			_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32601, "message": "method not found: " + req.Method}})
			continue
		}
		_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	return 0
}
