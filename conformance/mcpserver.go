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
// the test binary started again with mcpEnv set. Its tool "touch" creates a
// marker file in its working directory, so the suite sees whether the tool
// ran; its tool "ask" asks the user a question first (an MCP elicitation,
// which Elicitation hooks answer) and names the marker after the answer:
// ran-<name>-<action>[-<content.answer>].

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
	m := &mcpServer{sc: bufio.NewScanner(in), enc: json.NewEncoder(out)}
	m.sc.Buffer(make([]byte, 1<<20), 16<<20)
	for {
		msg, ok := m.next()
		if !ok {
			return 0
		}
		if len(msg.ID) == 0 || msg.Method == "" {
			continue // notifications (and stray responses) need no answer
		}
		result, err := m.handle(msg)
		if err != "" {
			_ = m.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
				"error": map[string]any{"code": -32601, "message": err}})
			continue
		}
		_ = m.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
}

// mcpMessage is a request, notification or response of either side.
type mcpMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type mcpServer struct {
	sc  *bufio.Scanner
	enc *json.Encoder
}

func (m *mcpServer) next() (mcpMessage, bool) {
	for m.sc.Scan() {
		var msg mcpMessage
		if json.Unmarshal(m.sc.Bytes(), &msg) == nil {
			return msg, true
		}
	}
	return mcpMessage{}, false
}

// elicitationRequest is the question the "ask" tool puts to the user.
var elicitationRequest = map[string]any{
	"message": "Which name should the file have?",
	"requestedSchema": map[string]any{"type": "object",
		"properties": map[string]any{"answer": map[string]any{"type": "string"}}, "required": []string{"answer"}},
}

func (m *mcpServer) handle(req mcpMessage) (any, string) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "conformance", "version": "1.0.0"}}, ""
	case "tools/list":
		schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required": []string{"name"}}
		return map[string]any{"tools": []any{
			map[string]any{"name": "touch", "description": "Create an empty file in the working directory.", "inputSchema": schema},
			map[string]any{"name": "ask", "description": "Ask the user, then create a file named after the answer.", "inputSchema": schema},
		}}, ""
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		name := p.Arguments.Name
		if p.Name == "ask" && markerName.MatchString(name) {
			name += "-" + m.elicit()
		}
		text, isError := "touched "+name, false
		if !markerName.MatchString(name) {
			text, isError = fmt.Sprintf("bad file name %q", name), true
		} else if err := os.WriteFile(filepath.Clean(name), nil, 0o644); err != nil {
			text, isError = err.Error(), true
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isError}, ""
	case "ping":
		return map[string]any{}, ""
	}
	return nil, "method not found: " + req.Method
}

// elicit asks the client (elicitation/create) and waits for its answer,
// answering the client's own requests meanwhile. It returns the action and
// the answer given, as a marker name's tail ("accept-blue", "decline").
func (m *mcpServer) elicit() string {
	_ = m.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create", "params": elicitationRequest})
	for {
		msg, ok := m.next()
		if !ok {
			return "eof"
		}
		if msg.Method != "" {
			if len(msg.ID) > 0 {
				result, err := m.handle(msg)
				if err != "" {
					_ = m.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": err}})
				} else {
					_ = m.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
				}
			}
			continue
		}
		if string(msg.ID) != `"elicit-1"` {
			continue
		}
		if len(msg.Error) > 0 {
			return "error"
		}
		var r struct {
			Action  string `json:"action"`
			Content struct {
				Answer string `json:"answer"`
			} `json:"content"`
		}
		_ = json.Unmarshal(msg.Result, &r)
		out := r.Action
		if r.Content.Answer != "" {
			out += "-" + r.Content.Answer
		}
		if !markerName.MatchString(out) {
			return "unreadable"
		}
		return out
	}
}
