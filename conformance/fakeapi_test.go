//go:build linux

package conformance

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fake model is what both sides of every scenario talk to: its stream
// must be what a Messages API client parses, and its script must answer by
// turn. These tests run without the CLI, also under -short.

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvents reads a server-sent event stream into (event, data) pairs,
// checking that each data line's type matches its event line.
func sseEvents(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data))
			require.Equal(t, event, data["type"], "the event line names the data's type")
			out = append(out, data)
		case line == "":
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	return out
}

func TestFakeAPIStreamsTheScriptedTurn(t *testing.T) {
	api, err := StartFakeAPI([][]Block{
		{Say("first"), Call("toolu_1", "Bash", map[string]any{"command": "touch ran-1"})},
		{Say("second")},
	}, filepath.Join(t.TempDir(), "api.sock"))
	require.NoError(t, err)
	defer api.Close()
	base := "http://" + api.Addr()

	tests := []struct {
		name      string
		messages  string
		wantTypes []string
		wantStop  string
	}{
		{"turn 0: text and a tool call", `[{"role":"user","content":"go"}]`,
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, "tool_use"},
		{"turn 1, with system entries and a retry's shape", `[{"role":"user","content":"go"},{"role":"system","content":"ctx"},{"role":"assistant","content":[]},{"role":"user","content":"x"}]`,
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, "end_turn"},
		{"after the script: Done.", `[{"role":"assistant","content":[]},{"role":"assistant","content":[]},{"role":"assistant","content":[]}]`,
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, "end_turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, base+"/v1/messages?beta=true", `{"model":"m","stream":true,"thinking":{"type":"enabled"},"context_management":{},"output_config":{},"tools":[{"name":"Bash"}],"messages":`+tt.messages+`}`)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			events := sseEvents(t, resp.Body)
			var types []string
			for _, e := range events {
				types = append(types, e["type"].(string))
			}
			require.Equal(t, tt.wantTypes, types)
			delta := events[len(events)-2]["delta"].(map[string]any)
			require.Equal(t, tt.wantStop, delta["stop_reason"])
		})
	}

	// The tool call's input arrives whole in one input_json_delta.
	resp := post(t, base+"/v1/messages", `{"stream":true,"tools":[{}],"messages":[{"role":"user","content":"go"}]}`)
	events := sseEvents(t, resp.Body)
	require.Equal(t, "tool_use", events[4]["content_block"].(map[string]any)["type"])
	require.JSONEq(t, `{"command":"touch ran-1"}`, events[5]["delta"].(map[string]any)["partial_json"].(string))

	// Without stream, one JSON message with the same content.
	resp = post(t, base+"/v1/messages", `{"tools":[{}],"messages":[{"role":"user","content":"go"}]}`)
	var msg struct {
		Content []map[string]any `json:"content"`
		Stop    string           `json:"stop_reason"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	require.Len(t, msg.Content, 2)
	require.Equal(t, "tool_use", msg.Stop)

	// A side request (no tools) is not part of the script.
	resp = post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"title?"}]}`)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	require.Equal(t, "ok", msg.Content[0]["text"])

	// Other paths get minimal answers; everything is logged.
	resp = post(t, base+"/v1/messages/count_tokens", `{}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp = post(t, base+"/api/anything", `{}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	reqs := api.Requests()
	require.Len(t, reqs, 8)
	require.Equal(t, "/v1/messages?beta=true", reqs[0].Path)
	require.Equal(t, "/api/anything", reqs[7].Path)
	conversation := 0
	for _, r := range reqs {
		if IsConversationRequest(r) {
			conversation++
		}
	}
	require.Equal(t, 5, conversation)
}

func TestFakeAPIRefusesToProxy(t *testing.T) {
	api, err := StartFakeAPI(nil, "")
	require.NoError(t, err)
	defer api.Close()
	req, err := http.NewRequest(http.MethodConnect, "http://"+api.Addr(), nil)
	require.NoError(t, err)
	req.Host = "example.invalid:443"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	http.DefaultClient.CloseIdleConnections()
}
