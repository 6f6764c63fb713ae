package shellread

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTokensParts checks what Tokens gives a user that expands words
// itself: each word's parts with their quoting and where they are, the
// operators with their places, and what an open quote left open.
func TestTokensParts(t *testing.T) {
	line := "A=x'y'\"z $V\"$'a\\tb' ${W:-d}$(c)$((1)) 2>&1 <(p)\r;"
	var toks []Token
	err := Tokens(line, TokenOptions{CRIsBlank: true}, func(tok Token) error { toks = append(toks, tok); return nil })
	require.NoError(t, err)
	require.Len(t, toks, 6)
	require.Equal(t, Word, toks[0].Kind)
	require.Equal(t, []Part{
		{Kind: PartLiteral, Text: "A=x", Start: 0, End: 3},
		{Kind: PartSingle, Text: "y", Start: 3, End: 6},
		{Kind: PartDouble, Text: "z ", Start: 6, End: 9},
		{Kind: PartParam, Text: "$V", Quoted: true, Start: 9, End: 11},
		{Kind: PartDouble, Text: "", Start: 11, End: 12},
		{Kind: PartANSIC, Text: "a\tb", Start: 12, End: 19},
	}, toks[0].Parts)
	require.Equal(t, "A=x'y'\"z $V\"$'a\\tb'", line[toks[0].Start:toks[0].End])
	require.Equal(t, []Part{
		{Kind: PartParam, Text: "${W:-d}", Start: 20, End: 27},
		{Kind: PartCommand, Text: "$(c)", Start: 27, End: 31},
		{Kind: PartArith, Text: "$((1))", Start: 31, End: 37},
	}, toks[1].Parts)
	require.Equal(t, Token{Kind: Redirect, Text: ">&", Start: 38, End: 41}, toks[2], "the descriptor is part of the operator's place")
	require.Equal(t, "1", toks[3].Text, "the redirection's target")
	require.Equal(t, Token{Kind: ProcessSubstitution, Text: "<(p)", Start: 43, End: 47}, toks[4])
	require.Equal(t, Token{Kind: Separator, Text: ";", Start: 48, End: 49}, toks[5], "\\r is a blank")

	for _, c := range []struct{ line, open string }{
		{"A=1; B='x", "'"}, {`A="x`, `"`}, {"A=$'x", "$'"}, {"A=${x", "${"}, {"A=$(x", "$("}, {"A=`x", "`"}, {"<(x", "<("},
	} {
		var words []string
		err := Tokens(c.line, TokenOptions{}, func(tok Token) error {
			if tok.Kind == Word {
				words = append(words, tok.Text)
			}
			return nil
		})
		var open *UnterminatedError
		require.ErrorAs(t, err, &open, c.line)
		require.Equal(t, c.open, open.Open, c.line)
		require.NotContains(t, words, "x", "%q: the open word is not handed over", c.line)
	}
}

// TestTokensReadAsReadShell checks that Tokens reads a line as readShell
// does for trust and the "if" rules: the same words, in the same order.
func TestTokensReadAsReadShell(t *testing.T) {
	for _, line := range []string{
		`echo 'a; b' "c $d" e\ f $(g; h) ${i} $'j\'k' "$'l'" 2>&1 | m && n # o`,
		"a=1 b \\\n c\tx\\",
		`cat <<< "x" > y; (z)`,
	} {
		var want, got []string
		_, _ = readShell(line, func(tok shellToken) error {
			if tok.kind == tokWord {
				want = append(want, tok.text)
			}
			return nil
		})
		_ = Tokens(line, TokenOptions{}, func(tok Token) error {
			if tok.Kind == Word {
				got = append(got, tok.Text)
			}
			return nil
		})
		if len(line) > 0 && line[len(line)-1] == '\\' {
			want[len(want)-1] += `\` // sh keeps a backslash that ends the line; readShell's users drop it
		}
		require.Equal(t, want, got, line)
	}
}
