package rawjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendCompactIsJSONCompact(t *testing.T) {
	for _, raw := range []string{
		`{}`, `{"a":1}`, `{ "a": 1 }`, "{\n\t\"a\": [1, 2]\r\n}", `"x y"`, `" "`, `"\" }"`, `"\\"`, `"\\\" ,"`,
		`{"a":"b \\\\\" c","d":[ ]}`, `[1,"\u0020",{"k":"v w"}]`, `null`, ` null`, `true `, `{"a":"<&>"}`,
	} {
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, []byte(raw)), raw)
		got, err := AppendCompact([]byte("prefix:"), []byte(raw))
		require.NoError(t, err, raw)
		require.Equal(t, "prefix:"+want.String(), string(got), raw)
		require.Equal(t, want.String() == raw, IsCompact([]byte(raw)), raw)
	}
}

func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{"a": "b"}`, `"\\\\\" "`, `[ 1 ]`, `{"k":"\u00e9 \n"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, raw))
		got, err := AppendCompact(nil, raw)
		require.NoError(t, err)
		require.Equal(t, want.String(), string(got))
	})
}

func TestTooDeep(t *testing.T) {
	cases := []struct {
		json  string
		limit int
		deep  bool
	}{
		{`[[1]]`, 2, false},
		{`[[[1]]]`, 2, true},
		{`{"a":{"b":[]}}`, 3, false},
		{`{"a":{"b":[{}]}}`, 3, true},
		{`"[[[[[[[["`, 1, false},             // brackets in a string are text
		{`["\"[[[[", "\\", [[1]]]`, 2, true}, // an escaped quote does not end the string; \\ does
		{`["\\\"[[[[[[", 1]`, 2, false},      // \\ then \" : still inside the string
		{`[[[[[[[[[[`, 9, true},              // unbalanced: what counts is the depth reached
		{`"unterminated [[[[[[[[`, 1, false}, // not JSON: left to the decoder
		{`]]]]][[[`, 3, false},               // closers that match nothing: a decoder stops at the first
		{`[[1],[2],{"a":[3]}]`, 3, false},    // more openers than the limit, none deeper than it
		{`[[1],[2],{"a":[[3]]}]`, 3, true},
		{`[[[1]]]`, 3, false}, // as many openers as the limit
	}
	for _, c := range cases {
		require.Equal(t, c.deep, TooDeep([]byte(c.json), c.limit), c.json)
	}
}

// TooDeepAt reads settings files, which hujson parses with comments: a
// bracket or quote in a comment is text, and the offset it returns is the
// bracket that went one level too deep.
func TestTooDeepAt(t *testing.T) {
	cases := []struct {
		json  string
		limit int
		at    int
	}{
		{`[[1]]`, 2, -1},
		{`[[[1]]]`, 2, 2},
		{`{"a":{"b":[{}]}}`, 3, 11},
		{"// [[[[[[ \"\n[[1]]", 2, -1},    // a line comment's brackets and quote are text
		{"/* [[[[ \" */ [[[1]]]", 2, 15},  // so are a block comment's
		{"[/* ] */ [[1]]]", 2, 10},        // a closer in a comment closes nothing
		{`["//", [[1]]]`, 2, 8},           // "//" in a string is not a comment
		{"[[ // unterminated", 1, 1},      // found before the comment
		{"/* unterminated [[[[[[", 1, -1}, // not JSON: left to the parser
		{`"unterminated [[[[[[[[`, 1, -1},
		{"[1 / 2]", 0, 0}, // a lone slash is not a comment
		{"[1 /", 1, -1},   // nor a slash at the end
	}
	for _, c := range cases {
		require.Equal(t, c.at, TooDeepAt([]byte(c.json), c.limit), c.json)
		if !bytes.Contains([]byte(c.json), []byte("/")) {
			require.Equal(t, c.at >= 0, TooDeep([]byte(c.json), c.limit), c.json)
		}
	}
}

// Every "must be …, not …" message names kinds with the same words, whether
// it describes the value that came or the type it should have been.
func TestKindNamesValuesAndTypesAlike(t *testing.T) {
	values := []struct{ raw, want string }{
		{`"x"`, "a string"}, {` true`, "a boolean"}, {`false`, "a boolean"}, {`[1]`, "an array"},
		{`{"a":1}`, "an object"}, {`null`, "null"}, {`-1.5`, "a number"}, {``, "nothing"}, {"  \n", "nothing"},
	}
	for _, v := range values {
		require.Equal(t, v.want, Kind([]byte(v.raw)), "%q", v.raw)
	}
	types := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[string](), "a string"}, {reflect.TypeFor[*string](), "a string"}, {reflect.TypeFor[bool](), "a boolean"},
		{reflect.TypeFor[*bool](), "a boolean"}, {reflect.TypeFor[int](), "a number"}, {reflect.TypeFor[float64](), "a number"},
		{reflect.TypeFor[[]string](), "an array"}, {reflect.TypeFor[map[string]any](), "an object"},
		{reflect.TypeFor[struct{}](), "an object"}, {reflect.TypeFor[json.RawMessage](), "a JSON value"},
	}
	for _, c := range types {
		require.Equal(t, c.want, KindOf(c.typ), "%s", c.typ)
	}
	require.JSONEq(t, `{}`, string(OrEmptyObject(nil)))
	require.JSONEq(t, `{}`, string(OrEmptyObject(json.RawMessage("null"))))
	require.JSONEq(t, `{"a":1}`, string(OrEmptyObject(json.RawMessage(`{"a":1}`))))
}

// BenchmarkTooDeep is the check every ACP message and serve frame takes
// before it is decoded: a streamed text chunk, and a tool call's update
// with a diff of forwardTurn's size (acp).
func BenchmarkTooDeep(b *testing.B) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the function 12 reads the file and returns "}}}}`
	old := strings.Repeat(`\tif err != nil {\n\t\treturn err\n\t}\n`, 20)
	tool := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[{"type":"diff","path":"/p/x.go","oldText":"` + old + `","newText":"` + old + `"}]}}}`
	for _, c := range []struct{ name, line string }{{"chunk", chunk}, {"tool", tool}} {
		b.Run(c.name, func(b *testing.B) {
			line := []byte(c.line)
			b.SetBytes(int64(len(line)))
			for i := 0; i < b.N; i++ {
				if TooDeep(line, MaxDepth) {
					b.Fatal("too deep")
				}
			}
		})
	}
}
