package acp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// probe reads the envelope of a message too deep to decode from its
// top-level members alone: brackets and quotes inside strings do not
// confuse it, the last of repeated keys wins, and an id that is not a plain
// string or number is reported present but not echoed.
func TestProbeReadsTheEnvelopeOfADeepMessage(t *testing.T) {
	cases := []struct {
		name, line string
		want       envelope
	}{
		{"request", `{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s-1","path":` + deep(300) + `}}`,
			envelope{id: []byte("7"), hasID: true, method: "fs/read_text_file", sessionID: "s-1"}},
		{"string id, brackets and quotes in strings", `{ "method" : "a\"[{" , "params":{"x":"]]}}\\","sessionId":"s\u002d2"}, "id":"x]"}`,
			envelope{id: []byte(`"x]"`), hasID: true, method: `a"[{`, sessionID: "s-2"}},
		{"deep id", `{"id":` + deep(300) + `,"method":"m"}`, envelope{hasID: true, method: "m"}},
		{"null id is no id", `{"id":null,"method":"m","params":[]}`, envelope{method: "m"}},
		{"last key wins", `{"id":1,"id":2,"method":"a","method":"b"}`, envelope{id: []byte("2"), hasID: true, method: "b"}},
		{"response", `{"id":3,"result":` + deep(300) + `}`, envelope{id: []byte("3"), hasID: true}},
		{"not an object", deep(300), envelope{}},
		{"cut short", `{"id":4,"method":"m","params":{"sessionId":"s"`, envelope{id: []byte("4"), hasID: true, method: "m"}},
		{"garbage", `{"id" 4}`, envelope{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probe([]byte(c.line))
			require.Equal(t, string(c.want.id), string(got.id))
			require.Equal(t, c.want.hasID, got.hasID)
			require.Equal(t, c.want.method, got.method)
			require.Equal(t, c.want.sessionID, got.sessionID)
		})
	}
}

// FuzzProbe: probe never panics and never recurses, whatever the bytes.
func FuzzProbe(f *testing.F) {
	for _, s := range []string{`{"id":1,"method":"m","params":{"sessionId":"s"}}`, deep(1000), `{"id":"\\"","method":"\u005b"}`, `{`, `{"a":[{"b":"]"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := probe(b)
		if e.id != nil {
			require.True(t, plainID(e.id))
		}
	})
}
