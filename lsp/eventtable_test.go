package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestEditorReadsEveryRow checks hover and completion against the event
// table (event.Table), through the server: a settings file with a hook on
// every event, whose event keys hover with the row's documentation, whose
// matchers complete with the row's matcher values, and whose event keys
// complete with exactly the table's events and their summaries. A row the
// editor ignores fails here.
func TestEditorReadsEveryRow(t *testing.T) {
	rows := event.Table()
	var b strings.Builder
	b.WriteString("{\n  \"hooks\": {\n")
	prefix := make([]string, len(rows))
	for i, row := range rows {
		prefix[i] = fmt.Sprintf("    %q: [{\"matcher\": \"", row.Event)
		fmt.Fprintf(&b, "%s\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}],\n", prefix[i])
	}
	b.WriteString("    \n  }\n}\n")
	e := startEditor(t, editorOpts{settings: b.String()})
	u := uri.File(filepath.Join(e.home, "settings.json"))
	at := func(line, col int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col}}
	}
	complete := func(line, col int) map[string]string {
		var list protocol.CompletionList
		require.NoError(t, e.call("textDocument/completion", at(line, col), &list))
		out := map[string]string{}
		for _, it := range list.Items {
			out[it.Label] = it.Detail
		}
		return out
	}

	events := complete(2+len(rows), 4)
	require.Len(t, events, len(rows), "completion offers exactly the table's events")
	for i, row := range rows {
		t.Run(string(row.Event), func(t *testing.T) {
			require.Equal(t, row.Summary, events[string(row.Event)], "completion offers %s with its summary", row.Event)

			var hover protocol.Hover
			require.NoError(t, e.call("textDocument/hover", at(2+i, 6), &hover))
			want, ok := settings.EventDoc(row.Event)
			require.True(t, ok)
			require.Equal(t, want, hover.Contents.Value, "hover on %s is its row's documentation", row.Event)

			if len(row.MatcherValues) > 0 {
				vals := complete(2+i, len(prefix[i]))
				for _, v := range row.MatcherValues {
					require.Contains(t, vals, v, "matcher completion offers the row's values")
				}
			}
		})
	}
}
