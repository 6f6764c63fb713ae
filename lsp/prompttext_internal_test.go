package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOneLine: what oneLine shows of a repository's or a hook's text is one
// line that says what the text says: nothing is interpreted, hidden or
// reordered, and a cut says how much is left out.
func TestOneLine(t *testing.T) {
	cases := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"plain text is kept", "npm test -- --watch=false", 200, "npm test -- --watch=false"},
		{"newlines, returns and tabs", "a\nb\r\nc\td", 200, `a\nb\r\nc\td`},
		{"control characters", "a\x00b\x1b[31mc\x7f", 200, `a\u0000b\u001b[31mc\u007f`},
		{"bidi overrides and isolates", "x\u202ey\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", 200,
			`x\u202ey\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"marks, zero-width and separators", "a\u200eb\u200fc\u200bd\u2028e\u2029f\ufeff\u061c", 200,
			`a\u200eb\u200fc\u200bd\u2028e\u2029f\ufeff\u061c`},
		{"tag characters", "a\U000e0041", 200, `a\U000e0041`},
		{"bytes that are not UTF-8", "a\xffb", 200, `a\xffb`},
		{"other scripts are kept", "échec → 失敗", 200, "échec → 失敗"},
		{"a cut counts what is left", strings.Repeat("x", 10) + "yyy", 10, "xxxxxxxxxx… (3 more characters)"},
		{"escapes count towards the limit", strings.Repeat("\n", 10), 6, `\n\n\n… (7 more characters)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := oneLine(c.in, c.limit)
			require.Equal(t, c.want, got)
			require.NotContains(t, got, "\n")
		})
	}
}
