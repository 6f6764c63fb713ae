package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
)

// The work cut off the forwarding path (issue #39 item 3) changed no
// result: these tests pin what each shortcut must still give.

// editToolState is a tool call as forwardTurn streams it: an edit whose
// rawInput has its file path and texts.
func editToolState(t *testing.T) *toolState {
	old := strings.Repeat("\tif err != nil {\n\t\treturn err\n\t}\n", 3)
	input, err := json.Marshal(map[string]string{"file_path": "/p/x.go", "old_string": old, "new_string": old + "\treturn nil\n"})
	require.NoError(t, err)
	return &toolState{id: "call-1", title: "Edit x.go", kind: "edit", rawInput: input,
		locations: []acpmsg.ToolCallLocation{{Path: "/p/x.go"}}}
}

// describe keeps its last decoding and encoding of a tool's input; whatever
// changed since, what it gives is what a fresh description of the call as
// it is now gives, byte for byte.
func TestDescribeAgainIsDescribeAfresh(t *testing.T) {
	diff := func(oldText string) json.RawMessage {
		b, err := json.Marshal(map[string]string{"type": "diff", "path": "/p/y.go", "oldText": oldText, "newText": "new"})
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name   string
		change func(t *toolState)
	}{
		{"nothing", func(*toolState) {}},
		{"the same input in other bytes", func(t *toolState) { t.rawInput = append(json.RawMessage(nil), t.rawInput...) }},
		{"an input of the same length", func(t *toolState) { t.rawInput = bytes.Replace(t.rawInput, []byte("/p/x.go"), []byte("/p/z.go"), 1) }},
		{"another input", func(t *toolState) { t.rawInput = json.RawMessage(`{"command":"ls"}`) }},
		{"an input that is not an object", func(t *toolState) { t.rawInput = json.RawMessage(`["a"]`) }},
		{"no input", func(t *toolState) { t.rawInput = nil }},
		{"the title", func(t *toolState) { t.title = "Edit y.go" }},
		{"the kind", func(t *toolState) { t.kind = "execute" }},
		{"a diff of a new file, no input", func(t *toolState) { t.rawInput, t.content = nil, []json.RawMessage{diff("")} }},
		{"a diff beside the input", func(t *toolState) { t.content = []json.RawMessage{diff("old")} }},
		{"the agent's own tool name", func(t *toolState) { t.metaName = "MultiEdit" }},
		{"the locations", func(t *toolState) { t.locations = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := editToolState(t)
			ts.describe()
			tc.change(ts)
			name, input := ts.describe()
			fresh := *ts
			fresh.memo = describeMemo{}
			wantName, wantInput := fresh.describe()
			require.Equal(t, wantName, name)
			require.Equal(t, string(wantInput), string(input))
		})
	}
}

// decodeObject gives what decoding into a nil map gave: the members, an
// empty object for null, and an error for what is not an object.
func TestDecodeObjectMembers(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want acpmsg.Object
		err  bool
	}{
		{raw: `{"a":1,"b":{"c":[2]}}`, want: acpmsg.Object{"a": json.RawMessage(`1`), "b": json.RawMessage(`{"c":[2]}`)}},
		{raw: `{}`, want: acpmsg.Object{}},
		{raw: `null`, want: acpmsg.Object{}},
		{raw: ``, want: acpmsg.Object{}},
		{raw: `["a"]`, err: true},
		{raw: `"s"`, err: true},
	} {
		got, err := decodeObject(json.RawMessage(tc.raw))
		if tc.err {
			require.Error(t, err, tc.raw)
			require.Nil(t, got, tc.raw)
			continue
		}
		require.NoError(t, err, tc.raw)
		require.Equal(t, tc.want, got, tc.raw)
	}
}

// nextView returns a line that fits the buffer in the buffer itself, and
// any other line (longer than the buffer, the last one without its "\n")
// in a slice of its own, as next does; blank lines are skipped either way.
func TestLineReaderViews(t *testing.T) {
	long := strings.Repeat("x", readBufferSize+10) + "\n"
	lr := newLineReader(strings.NewReader("a\n\n  \nb\n"+long+"last"), 0)
	for _, want := range []struct {
		line  string
		owned bool
	}{{"a\n", false}, {"b\n", false}, {long, true}, {"last\n", true}} {
		line, owned, err := lr.nextView()
		require.NoError(t, err)
		require.Equal(t, want.line, string(line))
		require.Equal(t, want.owned, owned, "%.10q", want.line)
	}
	_, _, err := lr.nextView()
	require.ErrorIs(t, err, io.EOF)
}

// Streamed text is handled in the reader's buffer, uncopied: nothing of a
// chunk's line may be kept past its handling. Chunks enough to refill the
// buffer many times, between other messages, reach the editor unchanged and
// the gathered text whole; a reference kept into the buffer would show
// another chunk's bytes.
func TestTextChunksKeepNothingOfTheReadersBuffer(t *testing.T) {
	var in, want bytes.Buffer
	var text strings.Builder
	for i := 0; i < 4000; i++ {
		chunk := fmt.Sprintf("chunk %d of a streamed answer, ", i)
		text.WriteString(chunk)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":%q}}}}`+"\n", chunk)
		if i%100 == 0 {
			fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"_vendor/note","params":{"n":%d}}`+"\n", i)
		}
	}
	want.Write(in.Bytes())
	var out bytes.Buffer
	p := &Proxy{log: slog.New(slog.NewTextHandler(io.Discard, nil)), editorOut: newLineWriter(&out), agentIn: newLineWriter(io.Discard),
		sessions: map[string]*sessState{}, loading: map[string]int{}}
	p.sessions["s1"] = newSessState(context.Background(), "s1", nil, nil, false)
	p.readAgent(&in)
	requireSame(t, want.String(), out.String(), "the editor got every line as it came")
	requireSame(t, text.String(), p.sessions["s1"].takeText(), "the gathered text")
}

// requireSame is require.Equal for long strings: it names where they first
// differ instead of printing both.
func requireSame(t *testing.T, want, got, what string) {
	t.Helper()
	if want == got {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	t.Fatalf("%s: %d bytes, want %d; they differ from byte %d: got %.60q, want %.60q", what, len(got), len(want), i, got[i:], want[i:])
}

// fire flushes before hooks only where one may run: for an event with a
// matcher, only when a hook's matcher takes the value; for an event whose
// matcher reads a field fire is not given, always.
func TestHooksMayRunReadsTheMatcher(t *testing.T) {
	r := startRig(t, rigOptions{settings: `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`})
	ws := r.proxy.workspace(r.project)
	for _, tc := range []struct {
		ev    event.Event
		value string
		want  bool
	}{
		{event.PostToolUse, "Bash", true},
		{event.PostToolUse, "Edit", false},
		{event.PostToolUse, "", true},
		{event.PostToolUseFailure, "Bash", false},
		{event.Stop, "", true},
		{event.UserPromptSubmit, "", false},
		{event.SessionStart, "startup", false},
		{event.PreCompact, "auto", true}, // its matcher reads the trigger, which fire is not given
	} {
		require.Equal(t, tc.want, hooksMayRun(ws, tc.ev, tc.value), "%s %q", tc.ev, tc.value)
	}
}
