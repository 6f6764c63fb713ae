package hooks_test

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/hooks"
)

// Positions are in UTF-16 columns, as LSP counts them: é is one column and
// 😀 (outside the BMP) two. The server maps the editor's cursor back to a
// byte offset with Offset, so the two must agree on every rune boundary.
func TestLineIndexPositionsAndOffsets(t *testing.T) {
	text := []byte("{\n  \"é\": \"😀x\",\n\n}")
	idx := hooks.NewLineIndex(text)
	tests := []struct {
		offset int
		want   hooks.Position
	}{
		{0, hooks.Position{Line: 0, Column: 0}},
		{2, hooks.Position{Line: 1, Column: 0}},
		{5, hooks.Position{Line: 1, Column: 3}},   // after "  \"é" (é is 2 bytes, 1 column)
		{11, hooks.Position{Line: 1, Column: 8}},  // before 😀
		{15, hooks.Position{Line: 1, Column: 10}}, // after 😀 (4 bytes, 2 columns)
		{19, hooks.Position{Line: 2, Column: 0}},  // the empty line
		{21, hooks.Position{Line: 3, Column: 1}},  // the end
		{99, hooks.Position{Line: 3, Column: 1}},  // clamped
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, hooks.NewLineIndex(text).Position(tt.offset), "offset %d", tt.offset)
	}
	for off := 0; off <= len(text); off++ {
		if off < len(text) && !utf8.RuneStart(text[off]) {
			continue
		}
		require.Equal(t, off, idx.Offset(idx.Position(off)), "round trip of offset %d", off)
	}
	require.Equal(t, 18, idx.Offset(hooks.Position{Line: 1, Column: 99}), "a column past the line's end stops at the newline")
	require.Equal(t, len(text), idx.Offset(hooks.Position{Line: 9}), "a line past the end is the end")
}
