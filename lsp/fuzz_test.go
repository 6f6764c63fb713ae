package lsp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/lsp"
)

// frame wraps a body in LSP's Content-Length framing.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// FuzzFraming feeds arbitrary bytes to a server as if an editor had sent
// them. The server must never panic or hang: it keeps reading (the bytes
// are all taken, or the connection is closed), every frame it sends is
// well-formed JSON-RPC, and once the editor goes away it stops promptly.
//
//	go test -run '^$' -fuzz '^FuzzFraming$' -fuzztime 30s ./lsp
func FuzzFraming(f *testing.F) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	initialized := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	for _, seed := range []string{
		frame(initialize) + frame(initialized) + frame(`{"jsonrpc":"2.0","id":2,"method":"wave/sessionStart","params":{}}`),
		frame(initialize) + frame(initialized) + frame(`{"jsonrpc":"2.0","id":"x","method":"wave/listPermissions"}`) +
			frame(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		frame(`{"jsonrpc":"2.0","id":1,"method":"wave/getSession","params":{"sessionId":"abc"}}`),
		frame(`not json`) + frame(`[1,2]`) + frame(`{"jsonrpc":"2.0","id":99999999999,"method":"x"}`),
		frame(`{"jsonrpc":"2.0","id":"","method":"initialize"}`) + frame(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`),
		frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`) + frame(`{"jsonrpc":"2.0","id":1,"result":null}`),
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(`{"jsonrpc":"2.0","id":1,"method":"wave/hookRuns"}`),
		"Content-Length: 5\n\n{}{}{" + "Content-Length: 2\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 268435457\r\n\r\n",
		"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"",
		"garbage without a colon\r\n\r\n",
		"Content-Length: 2\r\n" + strings.Repeat("X-Padding: 1\r\n", 50) + "\r\n{}",
		frame("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}"),
		frame(`{"jsonrpc":"2.0","id":1,"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x/.wave/settings.json","text":"{"}}}`),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := startEditor(t, editorOpts{noInit: true, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
		// The server must take every byte or close: a write that blocks
		// means its read loop is stuck.
		if err := c.writeRaw(data); err != nil && strings.Contains(err.Error(), "deadline") {
			t.Fatalf("the server stopped reading its input: %v", err)
		}
		switch framing(data) {
		case framesComplete:
			// A request after whole frames is answered, unless the frames
			// ended the connection (exit): the server answers or closes.
			if _, err := c.callRaw("wave/listPermissions", nil, 10*time.Second); err != nil && !strings.Contains(err.Error(), "closed") {
				t.Fatalf("after whole frames the server neither answered nor closed: %v", err)
			}
		case framingBroken:
			select {
			case <-c.done:
			case <-time.After(10 * time.Second):
				t.Fatalf("the server kept a connection whose framing is broken")
			}
		case frameOpen:
			// The server waits for the rest of the frame: nothing to ask.
		}
		c.close(10 * time.Second)
		<-c.done
		c.checkFrames(t)
	})
}

// How the server must read a byte stream.
const (
	framesComplete = iota // whole frames only: the next byte starts a frame
	frameOpen             // whole frames, then the start of one more
	framingBroken         // a header the server cannot read: it must close
)

// framing reads data with LSP's base protocol as the server's stream does
// (header lines ended by LF or CRLF and at most 64 KiB long, a positive
// Content-Length of at most 256 MiB, repeated only with the same value,
// other headers ignored), independently
// of its code, to know what the server must do with it.
func framing(data []byte) int {
	const maxLine, maxBody = 64 << 10, 256 << 20
	for len(data) > 0 {
		length := -1
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if len(data) >= maxLine {
					return framingBroken
				}
				return frameOpen
			}
			if i+1 > maxLine {
				return framingBroken
			}
			line := bytes.TrimRight(data[:i+1], "\r\n")
			data = data[i+1:]
			if len(line) == 0 {
				if length < 0 {
					return framingBroken
				}
				break
			}
			colon := bytes.IndexByte(line, ':')
			if colon < 0 {
				return framingBroken
			}
			if !bytes.EqualFold(bytes.TrimSpace(line[:colon]), []byte("Content-Length")) {
				continue
			}
			n, err := strconv.Atoi(string(bytes.TrimSpace(line[colon+1:])))
			if err != nil || n <= 0 || n > maxBody || (length >= 0 && n != length) {
				return framingBroken // a repeated Content-Length may only repeat the value
			}
			length = n
		}
		if len(data) < length {
			return frameOpen
		}
		data = data[length:]
	}
	return framesComplete
}

// waveMethods are every wave/* request of the wire contract.
var waveMethods = []string{
	"wave/sessionStart", "wave/userPromptSubmit", "wave/preToolUse", "wave/postToolUse", "wave/stop", "wave/sessionEnd",
	"wave/addAssistantMessage", "wave/getSession", "wave/apiMessages", "wave/listPermissions", "wave/resolvePermission",
	"wave/runHooks", "wave/hookRuns",
}

// fuzzSession is the session FuzzParams' seeds name, so that the fuzzer
// gets past "no such session" to the rest of each method.
const fuzzSession = "fuzz-session-0001"

// FuzzParams sends arbitrary JSON as the params of every wave/* method to
// one running server. Each request must get a result or a JSON-RPC error
// that is not an internal error: the server turns a handler's panic into an
// internal error, so one here is a crash the editor would have caused.
//
//	go test -run '^$' -fuzz '^FuzzParams$' -fuzztime 30s ./lsp
func FuzzParams(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `7`, `true`,
		`{"sessionId":"` + fuzzSession + `"}`,
		`{"sessionId":"` + fuzzSession + `","prompt":"hello"}`,
		`{"sessionId":"` + fuzzSession + `","source":"resume"}`,
		`{"sessionId":"` + fuzzSession + `","toolUseId":"t1","toolName":"Bash","toolInput":{"command":"ls"},"toolResponse":{"ok":true}}`,
		`{"sessionId":"` + fuzzSession + `","toolUseId":"t1","toolName":"Bash","toolInput":[1]}`,
		`{"sessionId":"` + fuzzSession + `","blocks":[{"type":"text","content":"hi"},{"type":"tool","id":"t2","name":"Read","input":{"file_path":"/x"}}]}`,
		`{"sessionId":"` + fuzzSession + `","blocks":[{"type":"tool","id":"t3","name":"Edit","input":"not an object","result":7,"success":"yes"}]}`,
		`{"sessionId":"` + fuzzSession + `","event":"Notification","input":{"message":"hi","notification_type":"idle"}}`,
		`{"sessionId":"` + fuzzSession + `","event":"PreToolUse","input":{"tool_name":"FuzzTool","tool_use_id":"t9","tool_input":{}}}`,
		`{"sessionId":"` + fuzzSession + `","toolUseId":"t5","toolName":"FuzzTool","toolInput":{"x":[1,"\u0000",{"y":null}]},"toolResponse":"\ud800"}`,
		`{"sessionId":"` + fuzzSession + `","event":"PostToolUseFailure","input":{"tool_name":"Bash","tool_use_id":"t1","error":"boom"}}`,
		`{"sessionId":"` + fuzzSession + `","event":"SessionStart","input":{"source":7}}`,
		`{"id":"ask-1","decision":"allow"}`, `{"id":"","decision":"maybe"}`,
		`{"sessionId":"../../etc/passwd","event":"Stop","limit":-1}`,
		`{"sessionId":"` + fuzzSession + `","limit":99999999999999999999}`,
		`{"sessionId":"` + strings.Repeat("a", 129) + `"}`,
		"{\"sessionId\":\"\xff\",\"prompt\":\"\xc3\"}",
		`{"sessionId":"` + fuzzSession + `","prompt":{"nested":[1,{"deep":null}]},"reason":1e999}`,
	} {
		f.Add([]byte(seed))
	}
	// Hooks run only for the tool FuzzTool and for Notification, so that the
	// hook input is built from fuzzed params without a process per request.
	settings := `{"hooks": {
		"PreToolUse": [{"matcher": "FuzzTool", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}],
		"PostToolUse": [{"matcher": "FuzzTool", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}],
		"Notification": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}]}}`
	c := startEditor(f, editorOpts{settings: settings, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
	if err := c.call("wave/sessionStart", map[string]any{"sessionId": fuzzSession}, nil); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // not JSON: the framing fuzzer's business
		}
		for _, method := range waveMethods {
			m, err := c.callRaw(method, params, 20*time.Second)
			if err != nil {
				t.Fatalf("params %s: %v", params, err)
			}
			if m.Error != nil && m.Error.Code == -32603 {
				t.Fatalf("%s with params %s: internal error: %s", method, params, m.Error.Message)
			}
			if m.Error == nil && (string(m.Result) == "null" || len(m.Result) == 0) {
				t.Fatalf("%s with params %s: a null result", method, params)
			}
		}
		c.checkFrames(t)
	})
}
