package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeLineStd is what a resume did before it decoded lines with
// segmentio's decoder without copies: encoding/json, which copies every
// string. It is the oracle the fast path is held to.
func decodeLineStd(unit []byte) (Message, bool) {
	var lm lineMessage
	if json.Unmarshal(unit, &lm) != nil || lm.Role == "" {
		return Message{}, false
	}
	m := Message{Role: lm.Role}
	for i := range lm.Blocks {
		m.Blocks = append(m.Blocks, lm.Blocks[i].Block())
	}
	return m, true
}

// checkLineDecode decodes line as a resume does and requires the message
// encoding/json reads from it, and that nothing in it points into the line:
// the line is overwritten before the two are compared, as the next line
// read overwrites the reader's buffer.
func checkLineDecode(t *testing.T, line string) {
	buf := []byte(line)
	var arena msgArena
	lm, unit, after, ok := decodeMessageLine(buf, nil)
	var got Message
	if ok {
		got = arena.message(&lm, buf)
	}
	unitStd := []byte(line)
	if n := len(unitStd); n > 0 && unitStd[n-1] == ',' {
		unitStd = unitStd[:n-1]
	}
	want, wantOK := decodeLineStd(unitStd)
	if wantOK {
		require.True(t, ok, "encoding/json reads %q", line)
		require.Equal(t, string(unitStd), string(unit))
		require.Equal(t, line[len(unitStd):], string(after))
	}
	if !ok {
		return
	}
	if !wantOK { // a torn tail: the message encoding/json's Decoder reads first
		want, wantOK = decodeLineStd(unit)
		require.True(t, wantOK, "the decoder read %q from %q", unit, line)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if len(got.Blocks) == 0 {
		got.Blocks = nil
	}
	require.Equal(t, want, got, "line %q", line)
}

// TestResumeLinesReadAsEncodingJSONReadsThem holds the resume's line decoder
// (segmentio's, strings left in the line until the arena copies them) to
// encoding/json: the same message from every line, nothing kept that points
// into the line, the same lines refused.
func TestResumeLinesReadAsEncodingJSONReadsThem(t *testing.T) {
	long := strings.Repeat(`long é \"q\" \\ `, arenaString/8)
	longPlain := strings.Repeat("p", arenaString+10)
	for _, line := range resumeLineSeeds(long, longPlain) {
		t.Run("", func(t *testing.T) { checkLineDecode(t, line) })
	}
}

func resumeLineSeeds(long, longPlain string) []string {
	return []string{
		`{"role":"user","blocks":[{"type":"text","content":"hello"}]},`,
		`{"role":"assistant","blocks":[{"type":"text","content":"a\nb \u00e9 \"q\""},{"type":"tool","id":"toolu_1","name":"Read","input":{"file_path":"/a.go"},"result":"ok","success":true}]}`,
		`{"role":"assistant","blocks":[{"type":"tool","id":"t","name":"Bash","input":{"command":"` + long + `"},"result":"` + long + `","success":false,"error":"` + longPlain + `"}]},`,
		`{"role":"assistant","blocks":[{"type":"tool","id":"` + longPlain + `","name":"` + longPlain + `","input":"` + longPlain + `"}]}`,
		`{"role":"user","blocks":[{"type":"hook","content":"ctx","hookEvent":"SessionStart","metadata":{"k":"v","n":[1,"two",{"x":"` + longPlain + `"}]}}]},`,
		`{"role":"user","blocks":[{"type":"` + longPlain + `","content":"` + longPlain + `"}]}`,
		`{"role":"` + longPlain + `","blocks":[]}`,
		`{"role":"user","blocks":null},`,
		`{"role":"user"}`,
		`{"role":"user","blocks":[{"TYPE":"text","Content":"case"}]}`,
		`{"role":"user","blocks":[{"type":"text","content":"x","content":"y"}]}`,
		"{\"role\":\"user\",\"blocks\":[{\"type\":\"text\",\"content\":\"bad \xff utf-8 \\ud800\"}]}",
		`{"role":"user","blocks":[{"type":"text","content":5}]}`,
		`{"role":"user","blocks":[{"type":"text","success":"yes"}]}`,
		`{"role":"user","blocks":[{"type":"text","content":"x"}]},]}}`,
		`{"role":"user","blocks":[{"type":"text","content":"x"}]}x`,
		`{"role":"user","blocks":[{"type":"text","content":"x"}]} ,`,
		`{"role":"","blocks":[]}`,
		`{"role":"user","blocks":[{"type":"text","content":"unterminated`,
		`[]`,
		``,
	}
}

// FuzzResumeLine runs checkLineDecode on any line (make fuzz).
func FuzzResumeLine(f *testing.F) {
	for _, line := range resumeLineSeeds(strings.Repeat(`é\n`, arenaString), strings.Repeat("p", arenaString+1)) {
		f.Add(line)
	}
	f.Fuzz(checkLineDecode)
}
