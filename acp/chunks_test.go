package acp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Streamed text is read in one pass (textChunk); every line that reading
// does not fit goes the general way. Either way the editor gets each update
// unchanged and the transcript gathers exactly the text blocks, per message.
func TestTextChunksReadInOnePass(t *testing.T) {
	updates := []string{
		`{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"say \"hi\" \u00e9 "}}`,
		`{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"image","data":"aGk=","mimeType":"image/png"}}`,
		`{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"there","_meta":{"deep":[[{"a":1}]]}}}`,
		`{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"next"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":[{"type":"text","text":"an array: not a content block"}]}`,
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"agent_message_chunk in a thought"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"agent_message_chunk","kind":"read","status":"pending"}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" again"}}`,
	}
	steps := ""
	for _, u := range updates {
		steps += `{"update":` + u + `},`
	}
	r := startRig(t, rigOptions{script: script(`[` + steps + `{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))

	var got []string
	for _, m := range r.noted(methodSessionUpdate) {
		var p struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		}
		require.NoError(t, json.Unmarshal(m.Params, &p))
		require.Equal(t, sess, p.SessionID)
		got = append(got, string(p.Update))
	}
	require.Len(t, got, len(updates))
	for i, u := range updates {
		require.JSONEq(t, u, got[i], "update %d passed on unchanged", i)
	}
	var texts []string
	for _, b := range blocksOf(r.transcript(sess), "text") {
		texts = append(texts, b["content"].(string))
	}
	require.Equal(t, []string{"go", "say \"hi\" é there", "next", " again"}, texts) // the text before a tool call goes in with it
}
