package transcript

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// encodeMessage writes byte for byte what encodeJSON (encoding/json) writes,
// so that files written before it compare equal and are not rewritten.
func TestMessageEncodingMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "quote \" backslash \\ slash /", "ctl \x00\x01\x1f\x7f \b\f\n\r\t", "<b>&amp;</b>",
		"bad utf8 \xff\xfe end", "line sep \u2028 para \u2029", "日本語 ✓ 🙂", "\xed\xa0\x80 surrogate"}
	inputs := []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`{"command":"rm -rf \"/tmp/a b\"","n":[1,2.5,null]}`),
		json.RawMessage("{\n  \"k\": \"v w\",\n\t\"x\": [ 1 ]\n}"), json.RawMessage(`"<&>"`), json.RawMessage(`null`)}
	for _, s := range strs {
		for _, in := range inputs {
			msgs := []Message{
				{Role: RoleUser, Blocks: []Block{{Type: BlockText, Content: s}}},
				{Role: RoleAssistant, Blocks: []Block{{Type: BlockText, Content: s},
					ToolBlock(Tool{ID: s, Name: s, Input: in, Result: s, Success: boolPtr(false), Error: s}),
					ToolBlock(Tool{ID: "t", Name: "Bash", Input: in, Success: boolPtr(true)}),
					Block{Type: BlockHook, Content: s}.WithHook(Hook{Event: s, Metadata: map[string]any{"b": s, "a": []any{1.5, "<x>", nil}, "c": map[string]any{}}}),
					Block{Type: BlockHook}.WithHook(Hook{Event: "Stop", Metadata: map[string]any{}}),
					{Type: BlockWarn, Content: s}, {Type: BlockError, Content: s}}},
				{Role: RoleUser, Blocks: []Block{}},
				{Role: RoleUser},
			}
			for _, m := range msgs {
				want, err := encodeJSON(m)
				require.NoError(t, err)
				got, err := encodeMessage(&m)
				require.NoError(t, err)
				require.Equal(t, string(want), string(got))
			}
		}
	}
}
