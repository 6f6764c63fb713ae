package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeIndented lays out compact JSON exactly as json.Indent does.
func TestWriteIndentedIsJSONIndent(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,2,{"c":"d"}]}`, `"x"`, `[[[]]]`,
		`{"s":"q\"uote \\\\ {,:}[]","t":"\\"}`, `{"permission":"allow","toolInput":{"k":"v"},"blocks":[{"type":"tool","input":{}}]}`} {
		requireIndentedLikeEncoding(t, []byte(s))
	}
}

func FuzzWriteIndented(f *testing.F) {
	for _, s := range []string{`{"a": [1, {"b": "c,:\"{"}]}`, `[[], {}, ""]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, raw) != nil {
			return
		}
		requireIndentedLikeEncoding(t, compact.Bytes())
	})
}

func requireIndentedLikeEncoding(t *testing.T, compact []byte) {
	var want bytes.Buffer
	require.NoError(t, json.Indent(&want, compact, "", "  "))
	var got bytes.Buffer
	w := bufio.NewWriter(&got)
	require.NoError(t, writeIndented(w, compact))
	require.NoError(t, w.Flush())
	require.Equal(t, want.String(), got.String(), "%s", compact)
}
