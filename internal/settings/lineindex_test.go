package settings_test

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// Positions are in UTF-16 columns, as LSP counts them: é is one column and
// 😀 (outside the BMP) two. The server maps the editor's cursor back to a
// byte offset with Offset, so the two must agree on every rune boundary.
func TestLineIndexPositionsAndOffsets(t *testing.T) {
	text := []byte("{\n  \"é\": \"😀x\",\n\n}")
	idx := settings.NewLineIndex(text)
	tests := []struct {
		offset int
		want   settings.Position
	}{
		{0, settings.Position{Line: 0, Column: 0}},
		{2, settings.Position{Line: 1, Column: 0}},
		{5, settings.Position{Line: 1, Column: 3}},   // after "  \"é" (é is 2 bytes, 1 column)
		{11, settings.Position{Line: 1, Column: 8}},  // before 😀
		{15, settings.Position{Line: 1, Column: 10}}, // after 😀 (4 bytes, 2 columns)
		{19, settings.Position{Line: 2, Column: 0}},  // the empty line
		{21, settings.Position{Line: 3, Column: 1}},  // the end
		{99, settings.Position{Line: 3, Column: 1}},  // clamped
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, settings.NewLineIndex(text).Position(tt.offset), "offset %d", tt.offset)
	}
	for off := 0; off <= len(text); off++ {
		if off < len(text) && !utf8.RuneStart(text[off]) {
			continue
		}
		require.Equal(t, off, idx.Offset(idx.Position(off)), "round trip of offset %d", off)
	}
	require.Equal(t, 18, idx.Offset(settings.Position{Line: 1, Column: 99}), "a column past the line's end stops at the newline")
	require.Equal(t, len(text), idx.Offset(settings.Position{Line: 9}), "a line past the end is the end")
}
