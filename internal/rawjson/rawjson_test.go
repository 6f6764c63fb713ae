package rawjson

import (
	"bytes"
	"encoding/json"
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
	}
	for _, c := range cases {
		require.Equal(t, c.deep, TooDeep([]byte(c.json), c.limit), c.json)
	}
}
