package transcript

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/flow"
)

func TestToAPI(t *testing.T) {
	input := json.RawMessage(`{"command":"ls"}`)
	cases := []struct {
		name string
		msgs []Message
		want string
	}{{
		name: "a single text is a string, hook blocks are labelled, warn and error blocks left out",
		msgs: []Message{
			{Role: RoleUser, Blocks: []Block{Block{Type: BlockHook, Content: "repo uses Go"}.WithHook(Hook{Event: "SessionStart"})}},
			{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "hi"}}},
			{Role: RoleAssistant, Blocks: []Block{{Type: BlockError, Content: "hook crashed"}}},
			{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Content: "hello"}, {Type: BlockWarn, Content: "slow hook"}}},
		},
		want: `[{"role":"user","content":[{"type":"text","text":"[Hook:SessionStart] repo uses Go"},{"type":"text","text":"hi"}]},
			{"role":"assistant","content":"hello"}]`,
	}, {
		name: "tool results follow in a user message, merged with the next user message",
		msgs: []Message{
			{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "list"}}},
			{Role: RoleAssistant, Blocks: []Block{
				ToolBlock(Tool{ID: "t1", Name: "Bash", Input: input, Result: "a.go", Success: boolPtr(true)}),
				ToolBlock(Tool{ID: "t2", Name: "Bash", Result: "denied", Success: boolPtr(false), Error: flow.HookBlockedTool}),
				ToolBlock(Tool{ID: "t3", Name: "Bash", Input: input}), // still running: no result yet
			}},
			{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "feedback"}}},
		},
		want: `[{"role":"user","content":"list"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},
				{"type":"tool_use","id":"t2","name":"Bash","input":{}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"ls"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go","is_error":false},
				{"type":"tool_result","tool_use_id":"t2","content":"denied","is_error":true},{"type":"text","text":"feedback"}]}]`,
	}, {
		name: "empty messages and blank text are dropped",
		msgs: []Message{
			{Role: RoleUser, Blocks: []Block{}},
			{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Content: "  \n"}}},
			{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "<b>&</b>"}}},
		},
		want: `[{"role":"user","content":"<b>&</b>"}]`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(ToAPI(tc.msgs))
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
			// and back: the API form converts to the same API form again
			var api []APIMessage
			require.NoError(t, json.Unmarshal(got, &api))
			again, err := json.Marshal(ToAPI(FromAPI(api)))
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(again))
		})
	}
	line, err := encodeJSON(ToAPI([]Message{{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "<b>"}}}})[0])
	require.NoError(t, err)
	require.Equal(t, `{"role":"user","content":"<b>"}`, string(line), "no HTML escaping in transcripts")
}

func TestFromAPIReadsForeignShapes(t *testing.T) {
	var api []APIMessage
	require.NoError(t, json.Unmarshal([]byte(`[
		{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"x"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}]},
			{"type":"tool_result","tool_use_id":"unknown","content":"orphan"}]},
		{"role":"user","content":"[Warning] not really a warning"}]`), &api))
	require.Equal(t, []Message{
		{Role: RoleAssistant, Blocks: []Block{ToolBlock(Tool{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`), Result: "line 1\nline 2", Success: boolPtr(true)})}},
		{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: "orphan"}}},
		{Role: RoleUser, Blocks: []Block{{Type: BlockWarn, Content: "not really a warning"}}},
	}, FromAPI(api))
}

// The hand-written encoder writes what encoding/json writes.
func TestAPIEncodingMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "quote \" backslash \\ slash /", "ctl \x00\x01\x1f\x7f \b\f\n\r\t", "<b>&amp;</b>",
		"bad utf8 \xff\xfe end", "line sep \u2028 para \u2029", "日本語 ✓ 🙂", "\xed\xa0\x80 surrogate"}
	for _, s := range strs {
		want, err := encodeJSON(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "%q", s)
		m := APIMessage{Role: RoleUser, Blocks: []APIBlock{{Type: "text", Text: s},
			{Type: "tool_use", ID: s, Name: s, Input: json.RawMessage("{\n  \"k\": \"" + "v" + "\"\n}")},
			{Type: "tool_result", ToolUseID: s, Content: s, IsError: true}}}
		got, err := appendAPIMessage(nil, &m)
		require.NoError(t, err)
		ref, err := encodeJSON(map[string]any{"role": RoleUser, "content": []any{
			map[string]any{"type": "text", "text": s},
			map[string]any{"type": "tool_use", "id": s, "name": s, "input": map[string]any{"k": "v"}},
			map[string]any{"type": "tool_result", "tool_use_id": s, "content": s, "is_error": true}}})
		require.NoError(t, err)
		require.JSONEq(t, string(ref), string(got))
		require.True(t, json.Valid(got))
		require.NotContains(t, string(got), "\n")
	}
}
