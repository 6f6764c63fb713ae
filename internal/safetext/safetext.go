// Package safetext makes text from a repository or a hook safe to show to a
// person: in a terminal (`wavehooks run --explain`, `wavehooks lint`), in an
// editor's prompt or message, or in a log. Such text is written by whoever
// wrote the repository or the hook, and printed raw it can act instead of
// being read: ESC and BEL start terminal sequences that write the clipboard
// (OSC 52), clear the screen or rewrite what was printed before, a carriage
// return overwrites the line, and bidi overrides and zero-width characters
// make the text read differently from what it says. Every human output of
// the server and the CLI goes through this package; JSON outputs do not need
// it (their encoding escapes control characters).
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line makes text one safe line: newlines, returns, tabs, control
// characters (C0, DEL, C1) and the invisible format characters that reorder
// or hide text (bidi overrides and isolates U+202A–202E and U+2066–2069,
// U+200E/U+200F marks, zero-width characters, U+FEFF, tag characters, line
// and paragraph separators) are shown as escapes (\n, \u001b, \u202e), bytes
// that are not UTF-8 as \xNN, and text longer than limit characters (limit
// > 0) is cut with a count of what was left out. The result is always one
// line, and what it shows is what the text says.
func Line(s string, limit int) string {
	return escape(s, limit, false)
}

// Block is Line for text of several lines, such as a hook's stdout or
// stderr: newlines and tabs are kept (a tab only moves the cursor right),
// everything else Line escapes is escaped, and nothing is cut.
func Block(s string) string {
	return escape(s, 0, true)
}

// Needed reports whether Line would change s (cuts aside): whether s holds
// anything that is not plain printable text.
func Needed(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size) {
			return true
		}
		i += size
	}
	return false
}

func unsafe(r rune, size int) bool {
	return (r == utf8.RuneError && size == 1) || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func escape(s string, limit int, block bool) string {
	if !Needed(s) && (limit <= 0 || utf8.RuneCountInString(s) <= limit) {
		return s
	}
	var b strings.Builder
	shown := 0
	for i := 0; i < len(s); {
		if limit > 0 && shown >= limit {
			fmt.Fprintf(&b, "… (%d more characters)", utf8.RuneCountInString(s[i:]))
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var out string
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Sprintf(`\x%02x`, s[i])
		case block && (r == '\n' || r == '\t'):
			out = s[i : i+size]
		case r == '\n':
			out = `\n`
		case r == '\r':
			out = `\r`
		case r == '\t':
			out = `\t`
		case unsafe(r, size):
			if r > 0xffff {
				out = fmt.Sprintf(`\U%08x`, r)
			} else {
				out = fmt.Sprintf(`\u%04x`, r)
			}
		default:
			out = s[i : i+size]
		}
		b.WriteString(out)
		shown += utf8.RuneCountInString(out)
		i += size
	}
	return b.String()
}
