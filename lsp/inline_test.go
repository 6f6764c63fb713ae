package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// A tool call no hook can see is answered before the server reads the
// message after it (Server.inlineRequest): a client that sends the call,
// then $/cancelRequest for it, then a read of the session, all in one
// write, gets the call's real answer — the cancel came after it was
// answered, as LSP allows — and a session that holds the call. On a worker
// the cancel overtook the call, which then answered RequestCancelled.
func TestNoHookToolCallIsAnsweredBeforeTheNextMessage(t *testing.T) {
	for _, method := range []string{"wave/preToolUse", "wave/postToolUse"} {
		t.Run(method, func(t *testing.T) {
			// A hook of another event: a settings file with hooks, none for this call.
			e := startEditor(t, editorOpts{keep: true, settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null"}})})
			sid, _ := e.startSession()
			for i := range 20 {
				tool := fmt.Sprintf("toolu_%d", i)
				call := fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":%q,"params":{"sessionId":%q,"toolUseId":%q,"toolName":"Bash","toolInput":{"command":"ls"},"toolResponse":{"stdout":""}}}`, i, method, sid, tool)
				cancel := fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c%d"}}`, i)
				get := fmt.Sprintf(`{"jsonrpc":"2.0","id":"g%d","method":"wave/getSession","params":{"sessionId":%q}}`, i, sid)
				var b []byte
				for _, body := range []string{call, cancel, get} {
					b = fmt.Appendf(b, "Content-Length: %d\r\n\r\n%s", len(body), body)
				}
				require.NoError(t, e.writeRaw(b))
				answer := e.waitResponse(fmt.Sprintf("c%d", i))
				require.Nil(t, answer["error"], "call %d was answered with an error: %v", i, answer["error"])
				require.Equal(t, true, answer["result"].(map[string]any)["continue"])
				got, err := json.Marshal(e.waitResponse(fmt.Sprintf("g%d", i))["result"])
				require.NoError(t, err)
				var session struct {
					Messages []struct {
						Blocks []struct {
							ID string `json:"id"`
						} `json:"blocks"`
					} `json:"messages"`
				}
				require.NoError(t, json.Unmarshal(got, &session))
				var ids []string
				for _, m := range session.Messages {
					for _, bl := range m.Blocks {
						ids = append(ids, bl.ID)
					}
				}
				require.Contains(t, ids, tool, "the read after call %d does not see it", i)
			}
		})
	}
}

// A hook added by a reload after tool calls were answered on the read loop
// runs, and its "ask" reaches the user and comes back: requests for an
// event that has a hook go to a worker again, so the read loop is free to
// read the user's answer. While that ask waits, a tool call of an event no
// hook sees is still answered.
func TestHookAddedAfterReadLoopAnswersStillAsks(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null"}})})
	sid, _ := e.startSession()
	call := func(id string) map[string]any {
		return e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Bash",
			"toolInput": map[string]any{"command": "make deploy"}})
	}
	before := call("toolu_before")
	require.Equal(t, "allow", before["permission"])
	require.Equal(t, false, before["asked"], "no hook: nobody asked")
	announced := e.countNotifications("wave/hooksChanged", "")
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"),
		[]byte(hookSettings(map[string][]string{"PreToolUse": {askHook}})), 0o644))
	e.waitNotificationAfter("wave/hooksChanged", announced, nil)

	done := make(chan map[string]any, 1)
	go func() { done <- call("toolu_after") }()
	p := e.nextPrompt()
	require.Contains(t, p.params.Message, "please confirm")
	post := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_before", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make deploy"}, "toolResponse": map[string]any{"stdout": ""}})
	require.Equal(t, true, post["continue"], "a call no hook sees is answered while the ask waits")
	p.reply <- &protocol.MessageActionItem{Title: "Allow"}
	r := <-done
	require.Equal(t, "allow", r["permission"])
	require.Equal(t, true, r["asked"])
}
