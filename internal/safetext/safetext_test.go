package safetext

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLine: what Line shows of a repository's or a hook's text is one
// line that says what the text says: nothing is interpreted, hidden or
// reordered, and a cut says how much is left out.
func TestLine(t *testing.T) {
	cases := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"plain text is kept", "npm test -- --watch=false", 200, "npm test -- --watch=false"},
		{"newlines, returns and tabs", "a\nb\r\nc\td", 200, `a\nb\r\nc\td`},
		{"control characters", "a\x00b\x1b[31mc\x7f", 200, `a\u0000b\u001b[31mc\u007f`},
		{"an OSC 52 clipboard write and a screen clear", "x\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2Jy", 200, `x\u001b]52;c;ZWNobyBoaQ==\u0007\u001b[2Jy`},
		{"C1 controls, as characters and as lone bytes", "a\u009b2Jb\x9b2J", 200, `a\u009b2Jb\x9b2J`},
		{"bidi overrides and isolates", "x\u202ey\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", 200,
			`x\u202ey\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"marks, zero-width and separators", "a\u200eb\u200fc\u200bd\u2028e\u2029f\ufeff\u061c", 200,
			`a\u200eb\u200fc\u200bd\u2028e\u2029f\ufeff\u061c`},
		{"tag characters", "a\U000e0041", 200, `a\U000e0041`},
		{"bytes that are not UTF-8", "a\xffb", 200, `a\xffb`},
		{"other scripts are kept", "échec → 失敗", 200, "échec → 失敗"},
		{"a cut counts what is left", strings.Repeat("x", 10) + "yyy", 10, "xxxxxxxxxx… (3 more characters)"},
		{"escapes count towards the limit", strings.Repeat("\n", 10), 6, `\n\n\n… (7 more characters)`},
		{"no limit", strings.Repeat("x", 1000) + "\x1b", 0, strings.Repeat("x", 1000) + `\u001b`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Line(c.in, c.limit)
			require.Equal(t, c.want, got)
			require.NotContains(t, got, "\n")
			require.False(t, Needed(got), "the result is plain printable text: %q", got)
		})
	}
}

// TestBlock: a hook's output keeps its lines and tabs; everything else that
// Line escapes is escaped, a carriage return (which overwrites a line) included.
func TestBlock(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"lines and tabs are kept", "a\tb\nc\n", "a\tb\nc\n"},
		{"a return that would overwrite the line", "ok\rFAIL", `ok\rFAIL`},
		{"ESC, BEL and C1", "\x1b]52;c;aGk=\x07\x1b[2J\u009b", `\u001b]52;c;aGk=\u0007\u001b[2J\u009b`},
		{"bidi and zero-width", "\u202eabc\u200b", `\u202eabc\u200b`},
		{"plain text is the same string", "échec → 失敗", "échec → 失敗"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Block(c.in)
			require.Equal(t, c.want, got)
			require.False(t, Needed(strings.NewReplacer("\n", "", "\t", "").Replace(got)))
		})
	}
}
