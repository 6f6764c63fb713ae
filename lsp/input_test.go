package lsp_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/lsp"
)

// notFileURIs are document URIs editors really send that name no local file.
var notFileURIs = []string{
	"untitled:Untitled-1",
	"git:/home/u/p/.wave/settings.json?%7B%22ref%22%3A%22HEAD%22%7D",
	"fugitive:///home/u/p/.git//0/.wave/settings.json",
	"vscode-notebook-cell:/home/u/p/a.ipynb#W0sZmlsZQ%3D%3D",
	"file:relative/settings.json",
	"file://fileserver/share/settings.json",
	"",
	"%zz not a uri",
}

// TestDocumentsThatAreNotFilesAreIgnored sends the document notifications
// for URIs of other schemes: the server ignores them (before the fix the
// first one panicked on the read loop and ended the process), and it still
// diagnoses a real settings file opened after them.
func TestDocumentsThatAreNotFilesAreIgnored(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {}}`})
	for _, u := range notFileURIs {
		doc := map[string]any{"uri": u, "languageId": "jsonc", "version": 1, "text": `{"hooks": {"Stop": [ broken`}
		require.NoError(t, e.notify("textDocument/didOpen", map[string]any{"textDocument": doc}))
		require.NoError(t, e.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
			"contentChanges": []any{map[string]any{"text": "{"}}}))
		require.NoError(t, e.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": u}}))
		require.NoError(t, e.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}}))
		e.mustCall("wave/listPermissions", nil) // still serving
	}
	settings := filepath.Join(e.home, "settings.json")
	require.NoError(t, e.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri.File(settings), "languageId": "jsonc", "version": 1, "text": `{"hooks": {"Stop": [ broken`}}))
	e.diagnosticsFor(settings, hasCode("syntax"))
}

// TestRequestsAboutDocumentsThatAreNotFiles: every request that names a
// document gets InvalidParams naming textDocument.uri, not an internal
// error, for a URI that names no local file; initialize the same for its root.
func TestRequestsAboutDocumentsThatAreNotFiles(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {}}`})
	pos := map[string]any{"line": 0, "character": 0}
	for _, u := range notFileURIs {
		doc := map[string]any{"uri": u}
		for method, params := range map[string]map[string]any{
			"textDocument/hover":      {"textDocument": doc, "position": pos},
			"textDocument/completion": {"textDocument": doc, "position": pos},
			"textDocument/codeLens":   {"textDocument": doc},
			"textDocument/codeAction": {"textDocument": doc, "range": map[string]any{"start": pos, "end": pos},
				"context": map[string]any{"diagnostics": []any{}}},
		} {
			err := e.call(method, params, nil)
			require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, err), "%s %q", method, u)
			require.ErrorContains(t, err, "textDocument.uri", "%s %q", method, u)
		}
	}
	// The same requests about a real settings file still work.
	var lenses []protocol.CodeLens
	require.NoError(t, e.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{
		"uri": uri.File(filepath.Join(e.home, "settings.json"))}}, &lenses))

	for _, root := range []string{"http://example.com/project", "untitled:x", "file://fileserver/share"} {
		fresh := startEditor(t, editorOpts{noInit: true})
		err := fresh.call("initialize", map[string]any{"rootUri": root, "capabilities": map[string]any{}}, nil)
		require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, err), root)
		require.ErrorContains(t, err, "rootUri", root)
	}
	fresh := startEditor(t, editorOpts{noInit: true})
	err := fresh.call("initialize", map[string]any{"workspaceFolders": []any{map[string]any{"uri": "git:/x", "name": "x"}},
		"capabilities": map[string]any{}}, nil)
	require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, err))
	require.ErrorContains(t, err, "workspaceFolders[0].uri")
}

// TestNotificationHandlerPanicIsRecovered sends a notification whose handler
// panics (one the test binary registers): the server logs it and goes on.
func TestNotificationHandlerPanicIsRecovered(t *testing.T) {
	var log proctest.Output
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}})
	require.NoError(t, e.notify(lsp.MethodTestPanic, map[string]any{}))
	e.mustCall("wave/listPermissions", nil)
	require.Contains(t, log.String(), "a bug in a notification handler")
	e.waitNotification("window/logMessage", func(m json.RawMessage) bool { return strings.Contains(string(m), "panic") })
	require.Equal(t, 0, e.shutdown())
}

// nested returns JSON arrays nested depth deep around inner.
func nested(depth int, inner string) string {
	return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
}

func errorOf(t *testing.T, resp map[string]any) (int, string) {
	t.Helper()
	e, ok := resp["error"].(map[string]any)
	require.True(t, ok, "an error response: %v", resp)
	return int(e["code"].(float64)), e["message"].(string)
}

// TestDeeplyNestedMessages: a message nested 2,000,000 deep (4 MB) used to
// overflow the decoder's stack and kill the process, before initialize too.
// Now a request is refused with its own id, anything else with a null id,
// the server allocates a small multiple of the message, and the connection
// goes on; brackets inside strings do not count, and 128 levels pass, all
// the way to a hook whose jq (1.6, which counts an object as two levels of
// its 256) reads them.
func TestDeeplyNestedMessages(t *testing.T) {
	t.Run("before initialize", func(t *testing.T) {
		c := startEditor(t, editorOpts{noInit: true, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
		m, err := c.callRaw("wave/listPermissions", json.RawMessage(nested(2_000_000, "")), 20*time.Second)
		require.NoError(t, err)
		require.NotNil(t, m.Error)
		require.Equal(t, jsonrpc2.InvalidRequest, m.Error.Code)
		require.Contains(t, m.Error.Message, "nest deeper than 128 levels")
		c.initialize(editorOpts{})
		c.checkFrames(t)
	})

	r := startRaw(t, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command",
		"command":"jq -e .tool_input.a >/dev/null || { echo 'jq could not read its input' >&2; exit 2; }"}]}]}}`)
	sid, _ := r.startSession()
	deep := nested(2_000_000, "")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r.sendBytes([]byte(frame(`{"jsonrpc":"2.0","id":"deep","method":"wave/preToolUse","params":` + deep + `}`)))
	code, msg := errorOf(t, r.waitResponse("deep"))
	runtime.ReadMemStats(&after)
	require.Equal(t, -32600, code)
	require.Contains(t, msg, "nest deeper than 128 levels")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16*len(deep)), "bytes allocated for a %d-byte message", len(deep))

	cases := []struct {
		name, body string
		id         any // the id of the answer; nil for null
	}{
		{"notification", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":` + deep + `}`, nil},
		{"deep id", `{"jsonrpc":"2.0","id":` + nested(600, "1") + `,"method":"wave/listPermissions"}`, nil},
		{"not an object", nested(100_000, ""), nil},
		{"objects", `{"jsonrpc":"2.0","id":9,"method":"wave/listPermissions","params":` + strings.Repeat(`{"a":`, 100_000) + "1" +
			strings.Repeat("}", 100_000) + `}`, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			since := r.receivedCount()
			r.sendBytes([]byte(frame(c.body)))
			code, msg := errorOf(t, r.waitResponseAfter(since, c.id))
			require.Equal(t, -32600, code)
			require.Contains(t, msg, "nest deeper than 128 levels")
		})
	}

	// 128 levels in all pass (the envelope and params are two), end to end,
	// objects only, the worst case for jq: the hook's jq reads them (it
	// allows), and the effective tool input comes back whole.
	call := func(id string, depth int) map[string]any {
		input := strings.Repeat(`{"a":`, depth-2) + `"x"` + strings.Repeat("}", depth-2)
		r.sendBytes([]byte(frame(`{"jsonrpc":"2.0","id":"` + id + `","method":"wave/preToolUse","params":{"sessionId":"` + sid +
			`","toolUseId":"` + id + `","toolName":"Bash","toolInput":` + input + `}}`)))
		return r.waitResponse(id)
	}
	ok := call("at-limit", 128)
	require.Contains(t, ok, "result", "%v", ok["error"])
	result := ok["result"].(map[string]any)
	require.Equal(t, "allow", result["permission"], "the hook's jq read the input: %v", result["blocks"])
	require.Equal(t, 126, strings.Count(mustJSON(result["toolInput"]), "{"))
	_, msg = errorOf(t, call("over-limit", 129))
	require.Contains(t, msg, "nest deeper than 128 levels")

	// Brackets in strings, escaped quotes included, are text.
	text := strings.Repeat(`[{\"`, 300_000)
	r.sendBytes([]byte(frame(`{"jsonrpc":"2.0","id":"text","method":"wave/preToolUse","params":{"sessionId":"` + sid +
		`","toolUseId":"t","toolName":"Bash","toolInput":{"command":"` + text + `"}}}`)))
	require.Contains(t, r.waitResponse("text"), "result")
}

// TestNullIDAndRepeatedContentLength: JSON-RPC 2.0 answers a request whose
// id is null with an error whose id is null (LSP ids are numbers or
// strings); a frame with two Content-Length headers is refused — answered
// with an error when both say the same, the connection closed when they
// disagree, since no one can tell where the body ends.
func TestNullIDAndRepeatedContentLength(t *testing.T) {
	r := startRaw(t, "")
	r.send(map[string]any{"jsonrpc": "2.0", "id": nil, "method": "wave/listPermissions"})
	code, msg := errorOf(t, r.waitResponse(nil))
	require.Equal(t, -32600, code)
	require.Contains(t, msg, "id is null")
	// A response with a null id (the client could not read something) is not answered.
	r.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "parse error"}})

	body := `{"jsonrpc":"2.0","id":"twice","method":"wave/listPermissions"}`
	r.sendBytes([]byte(fmt.Sprintf("Content-Length: %d\r\nContent-Length: %d\r\n\r\n%s", len(body), len(body), body)))
	code, msg = errorOf(t, r.waitResponse("twice"))
	require.Equal(t, -32600, code)
	require.Contains(t, msg, "more than one Content-Length")
	r.send(map[string]any{"jsonrpc": "2.0", "id": "after", "method": "wave/listPermissions"})
	require.Contains(t, r.waitResponse("after"), "result")
	nulls := 0
	for _, m := range r.messages() {
		if _, isReq := m["method"]; !isReq && m["id"] == nil {
			nulls++
		}
	}
	require.Equal(t, 1, nulls, "only the request with a null id got a null-id answer")

	r.sendBytes([]byte(fmt.Sprintf("Content-Length: %d\r\nContent-Length: %d\r\n\r\n%s", len(body), len(body)-1, body)))
	select {
	case code := <-r.exitCode:
		require.Equal(t, 1, code)
		r.exitCode <- code
	case <-time.After(10 * time.Second):
		t.Fatal("the server kept a connection whose frame lengths disagree")
	}
}

// TestAskTimeoutOutOfRange: askTimeoutSeconds beyond about 9.2e9 used to
// overflow to a negative duration and 1e-12 to round to zero, so every ask
// was denied at once as if the user had said no. Values outside 1 s – 24 h
// now fail initialize with InvalidParams naming the field.
func TestAskTimeoutOutOfRange(t *testing.T) {
	for _, v := range []string{"9.3e9", "1e-12", "0", "-1", "0.5", "86401", "1e308", "1e999", `"300"`} {
		e := startEditor(t, editorOpts{noInit: true})
		params := `{"capabilities":{},"rootUri":"` + string(uri.File(t.TempDir())) + `","initializationOptions":{"askTimeoutSeconds":` + v + `}}`
		err := e.call("initialize", json.RawMessage(params), nil)
		require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, err), v)
		require.ErrorContains(t, err, "initializationOptions.askTimeoutSeconds", v)
	}
	for _, v := range []float64{1, 300.5, 86400} {
		startEditor(t, editorOpts{initOpts: map[string]any{"askTimeoutSeconds": v}})
	}
}
