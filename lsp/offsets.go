package lsp

import (
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// offsets converts between byte offsets of a text and LSP positions (lines
// and UTF-16 columns).
type offsets struct {
	text   []byte
	starts []int
}

func newOffsets(text []byte) *offsets {
	o := &offsets{text: text, starts: []int{0}}
	for i, c := range text {
		if c == '\n' {
			o.starts = append(o.starts, i+1)
		}
	}
	return o
}

func (o *offsets) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(o.starts) {
		return len(o.text)
	}
	i, col := o.starts[line], 0
	for i < len(o.text) && o.text[i] != '\n' && col < int(p.Character) {
		r, n := utf8.DecodeRune(o.text[i:])
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += n
	}
	return i
}

func (o *offsets) position(off int) protocol.Position {
	off = min(max(off, 0), len(o.text))
	line := 0
	for line+1 < len(o.starts) && o.starts[line+1] <= off {
		line++
	}
	col := 0
	for b := o.text[o.starts[line]:off]; len(b) > 0; {
		r, n := utf8.DecodeRune(b)
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		b = b[n:]
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}
