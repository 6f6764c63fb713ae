package transcript

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

// checkJSONLLines reads lines as a jsonl resume does (appendJSONLLine:
// segmentio's decoder without copies, then the arena) and requires what
// encoding/json reads from them through APIMessage.UnmarshalJSON, line by
// line: the same lines refused (torn), and the same messages, a tool result
// set on the call it answers in an earlier line. Every line is overwritten
// once read, as the next line read overwrites the reader's buffer, so a
// string left pointing into it fails the comparison.
func checkJSONLLines(t *testing.T, lines []string) {
	var (
		dec   apiLineDecoder
		arena msgArena
		got   []Message
		want  []Message
	)
	for i, line := range lines {
		buf := []byte(line)
		var ok bool
		got, ok = appendJSONLLine(got, buf, &dec, &arena)
		for k := range buf {
			buf[k] = 'X'
		}
		var m APIMessage
		wantOK := json.Unmarshal([]byte(line), &m) == nil && m.Role != ""
		require.Equal(t, wantOK, ok, "line %d %q: read", i, line)
		if !ok {
			return // a resume stops at a torn line
		}
		want = appendFromAPI(want, &m, nil)
		require.Equal(t, want, got, "line %d %q", i, line)
	}
}

// TestResumeJSONLLinesReadAsEncodingJSONReadsThem holds a jsonl resume's
// line decoder to encoding/json (checkJSONLLines) on lines of every shape
// the API allows and on broken ones.
func TestResumeJSONLLinesReadAsEncodingJSONReadsThem(t *testing.T) {
	long := strings.Repeat(`long é \"q\" \\ `, arenaString/8)
	longPlain := strings.Repeat("p", arenaString+10)
	for _, seq := range jsonlLineSeeds(long, longPlain) {
		t.Run("", func(t *testing.T) { checkJSONLLines(t, seq) })
	}
}

// jsonlLineSeeds are sequences of jsonl lines: each is read from the start.
func jsonlLineSeeds(long, longPlain string) [][]string {
	call := `{"role":"assistant","content":[{"type":"text","text":"look"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]}`
	return [][]string{
		{`{"role":"user","content":"hello"}`, call,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false},{"type":"text","text":"next"}]}`},
		{call, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"failed","is_error":true}]}`},
		{call, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}]}`},
		{call, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"orphan"}]}`},
		{call, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":null,"is_error":"yes"}]}`},
		{call, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":5}]}`},
		{`{"role":"assistant","content":[{"type":"tool_use","id":"` + longPlain + `","name":"` + longPlain + `","input":{"command":"` + long + `"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + longPlain + `","content":"` + long + `"}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + longPlain + `","content":"` + longPlain + `"}]}`},
		{`{"role":"user","content":"` + long + `"}`, `{"role":"assistant","content":"` + longPlain + `"}`},
		{`{"role":"user","content":"[Hook:SessionStart] context"}`, `{"role":"user","content":"[Warning] careful"}`,
			`{"role":"assistant","content":[{"type":"text","text":"[Hook:PostToolUse] ` + longPlain + `"}]}`},
		{`{"role":"assistant","content":[{"type":"tool_use","id":"","name":"","input":null}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"y"}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"y","input":"` + longPlain + `"}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"y","input": { "a" : [1, 2] } }]}`},
		{`{"role":"user","content":[]}`, `{"role":"user","content":null}`, `{"role":"user"}`, `{"role":"user","content":""}`,
			`{"role":"user","content":[null,{"type":"text","text":"after null"}]}`, `{"role":"user","content":[{"type":"image","source":{}}]}`},
		{`{"ROLE":"user","Content":[{"TYPE":"text","Text":"case"}]}`, `{"role":"user","content":"x","content":"y"}`,
			`{"role":"user","content":[{"type":"text","text":"x","text":"y"}]}`, `{"role":"user","role":"assistant","content":"r"}`},
		{"{\"role\":\"user\",\"content\":\"bad \xff utf-8 \\ud800 \\u00e9\"}",
			"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff \\ud800\"}]}"},
		{`{"role":"user","content":5}`},
		{`{"role":"user","content":{"type":"text"}}`},
		{`{"role":"user","content":[{"type":"text","text":5}]}`},
		{`{"role":"user","content":[5]}`},
		{`{"role":"user","content":"x"}x`},
		{`{"role":"user","content":"x"} `},
		{` {"role":"user","content":"x"}`},
		{`{"role":"user","content":"x"},`},
		{`{"role":"","content":"x"}`},
		{`{"role":"user","content":"unterminated`},
		{`{"role":"user","content":[{"type":"text","text":"x"}`},
		{`{"role":"user","content":"x","extra":{"deep":[1,{"a":"b"}]}}`},
		{`{"role":"user","content":"x","extra":{"broken":[1,}}`},
		{`null`}, {`[]`}, {`"user"`}, {``},
	}
}

// FuzzResumeJSONLLines runs checkJSONLLines on any two lines (make fuzz):
// the second may answer a tool call of the first.
func FuzzResumeJSONLLines(f *testing.F) {
	for _, seq := range jsonlLineSeeds(strings.Repeat(`é\n`, arenaString), strings.Repeat("p", arenaString+1)) {
		second := ""
		if len(seq) > 1 {
			second = seq[1]
		}
		f.Add(seq[0], second)
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		checkJSONLLines(t, []string{first, second})
	})
}
