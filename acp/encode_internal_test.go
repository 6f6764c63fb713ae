package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// A tool's input is encoded to the same bytes encoding/json gives, so that
// what hooks read and the transcript holds did not change with the faster
// encoder: members sorted, values compacted, HTML characters and U+2028/U+2029
// escaped, strings and numbers kept as they came.
func TestEncodeObjectMatchesEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{}`,
		`{"b": 1, "a": "x"}`,
		`{"file_path": "/p/a.go", "old_string": "if a < b && c > d {\n\treturn\n}", "new_string": "<script>&amp;</script>"}`,
		"{\"s\": \"line\u2028sep\u2029par\", \"n\": 1.50e+10, \"z\": -0}",
		`{"nested": { "a" : [ 1 , 2 , { "b" : null } ] , "t" : true }, "e": "\u00e9\ud83d\ude00", "q": "\"\\\/"}`,
		`{"raw_input": [ "not", "an", "object" ], "title": "Edit <x>"}`,
		"{\"bad\": \"\xff\xfe utf-8\"}",
	} {
		obj, err := decodeObject(json.RawMessage(line))
		require.NoError(t, err, line)
		want, err := json.Marshal(obj)
		require.NoError(t, err, line)
		require.Equal(t, string(want), string(encodeObject(obj)), line)
	}
	require.Equal(t, `{}`, string(encodeObject(acpmsg.Object{})))
}

// BenchmarkDescribe is what the proxy does to name a tool call and build its
// input for the hooks and the transcript: an edit of the size forwardTurn
// streams (about 1.3 KB of old and new text, in the input and the diff),
// described the first time (first) and again, unchanged (again: when the
// call finishes, describeMemo).
func BenchmarkDescribe(b *testing.B) {
	old := strings.Repeat("\tif err != nil {\n\t\treturn err\n\t}\n", 20)
	input, err := json.Marshal(map[string]string{"file_path": "/p/internal/x/x.go", "old_string": old, "new_string": old + "\treturn nil\n"})
	require.NoError(b, err)
	diff, err := json.Marshal(map[string]string{"type": "diff", "path": "/p/internal/x/x.go", "oldText": old, "newText": old + "\treturn nil\n"})
	require.NoError(b, err)
	base := toolState{id: "call-1", title: "Edit internal/x/x.go", kind: "edit", status: "completed",
		rawInput: input, content: []json.RawMessage{diff}, locations: []acpmsg.ToolCallLocation{{Path: "/p/internal/x/x.go"}}}
	for _, again := range []bool{false, true} {
		b.Run(map[bool]string{false: "first", true: "again"}[again], func(b *testing.B) {
			t := base
			t.describe()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !again {
					t.memo = describeMemo{}
				}
				if name, _ := t.describe(); name != "Edit" {
					b.Fatal(name)
				}
			}
		})
	}
}

// A message's method does not point into its line, which is read without a
// copy: an open call keeps its method after the line is gone, and must not
// keep the line (a prompt can be 50 MB) or see it change.
func TestParseMessageMethodOwnsItsBytes(t *testing.T) {
	for _, method := range []string{"session/update", "session/prompt", "_vendor/custom", "x\\u002fy"} {
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}` + "\n")
		m, err := parseMessage(line)
		require.NoError(t, err)
		want := m.Method
		require.Equal(t, strings.ReplaceAll(method, `\u002f`, "/"), want)
		for i := range line {
			line[i] = 'z'
		}
		require.Equal(t, want, m.Method, "the method changed with the line it was read from")
		require.Equal(t, strings.ReplaceAll(method, `\u002f`, "/"), m.Method)
	}
}
