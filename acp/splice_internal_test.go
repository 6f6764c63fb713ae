package acp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// withToolTitle changes the tool call's title and nothing else: spacing,
// key order, number spelling and escapes of the rest stay the agent's.
func TestWithToolTitleKeepsEveryOtherByte(t *testing.T) {
	add := func(old string) string { return old + "+" }
	for _, c := range []struct {
		name, line, want string
		ok               bool
	}{
		{"a title", `{"id":1, "params" : {"toolCall": {"z":1.50, "title" : "a\u00e9", "x":[1,{"title":"inner"}]}}}`,
			`{"id":1, "params" : {"toolCall": {"z":1.50, "title" : "aé+", "x":[1,{"title":"inner"}]}}}`, true},
		{"no title", `{"params":{"toolCall":{ "toolCallId":"t"}}}`, `{"params":{"toolCall":{"title":"+", "toolCallId":"t"}}}`, true},
		{"an empty tool call", `{"params":{"toolCall":{ }}}`, `{"params":{"toolCall":{"title":"+" }}}`, true},
		{"a repeated key: the last counts", `{"params":{"toolCall":{"title":"a","title":"b"}}}`, `{"params":{"toolCall":{"title":"a","title":"b+"}}}`, true},
		{"an escaped key", `{"params":{"toolCall":{"t\u0069tle":"a"}}}`, `{"params":{"toolCall":{"t\u0069tle":"a+"}}}`, true},
		{"a title in a string is not a member", `{"params":{"toolCall":{"x":"\"title\":\"a\""}}}`, `{"params":{"toolCall":{"title":"+","x":"\"title\":\"a\""}}}`, true},
		{"no tool call", `{"params":{}}`, `{"params":{}}`, false},
		{"not an object", `{"params":{"toolCall":[1]}}`, `{"params":{"toolCall":[1]}}`, false},
		{"broken", `{"params":{"toolCall":{"title":`, `{"params":{"toolCall":{"title":`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := withToolTitle([]byte(c.line), add)
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.want, string(got))
		})
	}
}
