package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// raw is the frame-level client (wireClient) set up for the tests of what
// a well-behaved client never sends: it writes bytes, keeps every message the
// server sent, and finds a response by any id, null and objects included.
type raw struct {
	*wireClient
	t          *testing.T
	root, home string
	exitCode   chan int
}

func startRaw(t *testing.T, settings string) *raw {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	if settings != "" {
		require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(strings.ReplaceAll(settings, "$SCRIPTS", scripts)), 0o644))
	}
	c, exit := startWireServer(t, home)
	c.mu.Lock()
	c.keep = true
	c.mu.Unlock()
	r := &raw{wireClient: c, t: t, root: root, home: home, exitCode: exit}
	t.Cleanup(func() {
		c.close(exit, 10*time.Second)
		c.checkFrames(t)
	})
	require.NoError(t, c.initialize(root, home))
	return r
}

// send writes msg as one frame.
func (r *raw) send(msg any) {
	b, err := json.Marshal(msg)
	require.NoError(r.t, err)
	_ = r.write(b)
}

// sendBytes writes bytes as they are: a frame, part of one, or garbage.
func (r *raw) sendBytes(b []byte) { _ = r.writeRaw(b) }

// messages are the messages the server sent so far, decoded.
func (r *raw) messages() []map[string]any {
	r.mu.Lock()
	bodies := r.log
	r.mu.Unlock()
	out := make([]map[string]any, 0, len(bodies))
	for _, b := range bodies {
		var m map[string]any
		require.NoError(r.t, json.Unmarshal(b, &m))
		out = append(out, m)
	}
	return out
}

// waitResponse waits for the response with this id (compared as JSON).
func (r *raw) waitResponse(id any) map[string]any {
	r.t.Helper()
	return r.waitResponseAfter(0, id)
}

// received is how many messages the server has sent so far.
func (r *raw) received() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

// waitResponseAfter waits for a response with this id among the messages
// after the first since, for ids that repeat (null).
func (r *raw) waitResponseAfter(since int, id any) map[string]any {
	r.t.Helper()
	want, _ := json.Marshal(id)
	var found map[string]any
	require.Eventually(r.t, func() bool {
		for _, m := range r.messages()[since:] {
			if _, isReq := m["method"]; isReq {
				continue
			}
			got, _ := json.Marshal(m["id"])
			if string(got) == string(want) {
				found = m
				return true
			}
		}
		return false
	}, 20*time.Second, 5*time.Millisecond, "no response with id %s", want)
	return found
}

func (r *raw) startSession() string {
	r.send(map[string]any{"jsonrpc": "2.0", "id": "start", "method": "wave/sessionStart", "params": map[string]any{}})
	resp := r.waitResponse("start")
	return resp["result"].(map[string]any)["sessionId"].(string)
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
	_ = r.conn.Close()
	select {
	case code := <-r.exitCode:
		require.Equal(t, 1, code)
		r.exitCode <- code
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit when the client went away")
	}
}
