package acp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The work cut off the forwarding path (issue #39 item 3) changed no
// result: these tests pin what each shortcut must still give.

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
