package shellread

import (
	"errors"
	"strconv"
	"strings"
)

// This file gives the reader's tokens with their parts and places, for a
// user that expands words itself (the env-file reader, hooks): it
// reads a line exactly as readShell does for trust and the "if" rules, so
// that there is one reading of quotes and operators, and adds what readShell's
// users do not need — each word's parts with their quoting, and byte offsets.

// PartKind says how a part of a word was written.
type PartKind int

const (
	// PartLiteral is unquoted text, backslash escapes removed (a lone $ too).
	PartLiteral PartKind = iota
	// PartSingle is the text inside '…'.
	PartSingle
	// PartDouble is literal text inside "…" (escapes removed); the quotes
	// themselves are empty PartDouble parts, so "" is a word.
	PartDouble
	// PartANSIC is $'…', its backslash escapes decoded.
	PartANSIC
	// PartParam is a parameter expansion as written: $NAME, ${…}, $?.
	PartParam
	// PartCommand is a command substitution as written: $(…) or `…`.
	PartCommand
	// PartArith is an arithmetic expansion as written: $((…)).
	PartArith
)

// Part is one part of a word.
type Part struct {
	Kind PartKind
	// Text is the value for literal and quoted text, and the expansion as
	// written for PartParam, PartCommand and PartArith.
	Text string
	// Quoted reports an expansion inside "…".
	Quoted bool
	// Start and End are the part's byte offsets in the line.
	Start, End int
}

// TokenKind says what a Token is.
type TokenKind int

const (
	// Word is a word; its Parts say how it was written.
	Word TokenKind = iota
	// Separator is one of ; & | ( ) or a newline.
	Separator
	// Redirect is a redirection operator (with its file descriptor digits).
	Redirect
	// ProcessSubstitution is <(…) or >(…).
	ProcessSubstitution
)

// Token is one token of a line, with its byte offsets.
type Token struct {
	Kind TokenKind
	// Text is a word's text as readShell gives it (quotes removed,
	// expansions as written), or the operator.
	Text  string
	Parts []Part
	// Start and End are the token's byte offsets in the line: a word from
	// its first byte to the blank or operator after it.
	Start, End int
}

// UnterminatedError is a quote or substitution left open at the end of
// the line.
type UnterminatedError struct {
	// Open is what was left open: ', ", $', ${, $(, `, <( or >(.
	Open string
	// Offset is where the word that holds it starts.
	Offset int
}

func (e *UnterminatedError) Error() string { return "unterminated " + e.Open }

// TokenOptions change how Tokens reads a line.
type TokenOptions struct {
	// CRIsBlank reads a carriage return outside quotes as a blank, as for a
	// file saved with CRLF line ends.
	CRIsBlank bool
}

// Tokens reads line with the reader trust and the "if" rules use and hands
// each token to emit, in order; an error from emit stops it. A quote or
// substitution left open is an *UnterminatedError, after the tokens before
// the word that holds it (that word is not handed over).
func Tokens(line string, opts TokenOptions, emit func(Token) error) error {
	r := &shellReader{src: line, keepParts: true, blankCR: opts.CRIsBlank}
	var emitErr error
	r.emit = func(t shellToken) error {
		tok := Token{Text: t.text, Parts: t.parts, Start: t.start, End: t.end}
		switch t.kind {
		case tokWord:
			tok.Kind = Word
		case tokSeparator:
			tok.Kind = Separator
		case tokRedirect:
			tok.Kind = Redirect
		case tokSubstitution:
			if t.start >= len(line) || line[t.start] == '$' || line[t.start] == '`' {
				return nil // inside a word: the word's parts have it
			}
			tok.Kind, tok.Text = ProcessSubstitution, line[t.start:t.end]
		}
		if r.open != "" {
			return nil // the word an unterminated quote left: not a word sh would read
		}
		if err := emit(tok); err != nil {
			emitErr = err
			return err
		}
		return nil
	}
	err := r.run()
	if emitErr != nil {
		return emitErr
	}
	if errors.Is(err, errUnterminated) {
		open := r.open
		if open == "" {
			open = "quote"
		}
		return &UnterminatedError{Open: open, Offset: r.wordStart}
	}
	return err
}

// decodeANSIC decodes the backslash escapes of the text inside $'…': \n,
// \t, \xHH, \NNN (octal) and the like; an unknown escape stays as written.
func decodeANSIC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		e := s[i+1]
		i++
		if r, ok := ansiCEscapes[e]; ok {
			b.WriteByte(r)
			continue
		}
		digits, base := "", 0
		switch {
		case e == 'x':
			digits, base = takeDigits(s[i+1:], 2, "0123456789abcdefABCDEF"), 16
		case e >= '0' && e <= '7':
			digits, base = takeDigits(s[i:], 3, "01234567"), 8
			i--
		}
		if base == 0 || digits == "" {
			b.WriteByte('\\')
			b.WriteByte(e)
			continue
		}
		v, _ := strconv.ParseUint(digits, base, 8)
		b.WriteByte(byte(v))
		i += len(digits)
	}
	return b.String()
}

var ansiCEscapes = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11,
	'\\': '\\', '\'': '\'', '"': '"', '?': '?'}

// takeDigits is the longest prefix of s, at most limit bytes, of digits.
func takeDigits(s string, limit int, digits string) string {
	n := 0
	for n < len(s) && n < limit && strings.IndexByte(digits, s[n]) >= 0 {
		n++
	}
	return s[:n]
}
