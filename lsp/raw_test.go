package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/lsp"
)

// startRaw starts an editor set up for the tests of what a well-behaved
// client never sends: it keeps every message the server sent (messages,
// waitResponse), dismisses every prompt, and leaves the server its own
// debounce.
func startRaw(t *testing.T, settings string) *editor {
	t.Helper()
	return startEditor(t, editorOpts{settings: settings, keep: true, answer: dismiss, serverOpt: lsp.Options{Debounce: -1}})
}

func readPid(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

func TestMalformedInput(t *testing.T) {
	cases := []struct {
		name     string
		send     string
		wantCode int    // the error code answered, 0 if the connection must close instead
		wantID   string // the id of the answer, as JSON
	}{
		{"body is not JSON", "Content-Length: 9\r\n\r\nnot json!", -32700, "null"},
		{"JSON but not an object", "Content-Length: 5\r\n\r\n[1,2]", -32600, "null"},
		{"id beyond int32", `{"jsonrpc":"2.0","id":99999999999,"method":"wave/listPermissions"}`, -32600, "99999999999"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"wave/listPermissions"}`, -32600, "1.5"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"wave/listPermissions"}`, -32600, `{"a":1}`},
		{"header without a colon", "Garbage\r\n\r\n", 0, ""},
		{"missing Content-Length", "Content-Type: x\r\n\r\n{}", 0, ""},
		{"negative Content-Length", "Content-Length: -4\r\n\r\n", 0, ""},
		{"absurd Content-Length", "Content-Length: 99999999999\r\n\r\n", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := startRaw(t, "")
			msg := c.send
			if strings.HasPrefix(msg, "{") {
				msg = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
			}
			r.sendBytes([]byte(msg))
			if c.wantCode == 0 {
				// Framing is lost: the server ends the connection cleanly.
				select {
				case code := <-r.exitCode:
					require.Equal(t, 1, code)
					r.exitCode <- code
				case <-time.After(10 * time.Second):
					t.Fatal("server kept a connection whose framing is broken")
				}
				return
			}
			var id any
			require.NoError(t, json.Unmarshal([]byte(c.wantID), &id))
			resp := r.waitResponse(id)
			require.Equal(t, c.wantCode, int(resp["error"].(map[string]any)["code"].(float64)))
			// The connection survives: the next request is answered.
			r.send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "wave/listPermissions"})
			require.Contains(t, r.waitResponse(7), "result")
		})
	}
}

func TestStringAndNumberIDsAreEchoed(t *testing.T) {
	r := startRaw(t, "")
	for _, id := range []any{0, 1, 2147483647, -5, "abc", "0", "🙂"} {
		r.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "wave/listPermissions"})
		resp := r.waitResponse(id)
		require.Contains(t, resp, "result", "id %v", id)
	}
	// jsonrpc2.ID cannot hold an empty string id: it is refused, with its id, not answered as 0.
	r.send(map[string]any{"jsonrpc": "2.0", "id": "", "method": "wave/listPermissions"})
	require.Equal(t, -32600, int(r.waitResponse("")["error"].(map[string]any)["code"].(float64)))
}

func TestClientGoneEndsTheServer(t *testing.T) {
	r := startRaw(t, "")
	r.hangUp()
	select {
	case code := <-r.exitCode:
		require.Equal(t, 1, code)
		r.exitCode <- code
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit when the client went away")
	}
}
