// Package rawjson works on JSON text without decoding it: it copies JSON the
// program has already validated into the JSON it writes (a session file, a
// hook's stdin) without validating and compacting it again, and it measures
// how deeply untrusted JSON nests before a recursive decoder sees it. It
// also names JSON kinds the one way every error message says them.
//
// encoding/json re-validates and re-compacts every json.RawMessage it
// encodes, a byte at a time, at about 100 MB/s: for a 100 MB tool input
// that pass, made for the transcript, the hook's stdin and each save, cost
// more than everything else a request did (docs/performance.md, "Large
// frames"). The tool inputs the server holds were validated once, when they
// came in, and are usually compact already; copying them is a memmove.
package rawjson

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// AppendCompact appends raw, which must be valid JSON, without whitespace
// outside strings: as it is when it has none (the usual case), through
// json.Compact otherwise. It does not validate raw beyond what compaction
// checks, so a caller must only pass JSON that was decoded or compacted
// before.
func AppendCompact(dst, raw []byte) ([]byte, error) {
	if IsCompact(raw) {
		return append(dst, raw...), nil
	}
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}

// IsCompact reports whether raw has no whitespace outside its strings, that
// is whether json.Compact would leave valid JSON raw unchanged. Strings are
// skipped with bytes.IndexByte, so long text costs little.
func IsCompact(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
			return false
		case '"':
			end := StringEnd(raw, i)
			if end < 0 {
				return false // not valid JSON: let json.Compact say why
			}
			i = end
		}
	}
	return len(raw) > 0
}

// StringEnd returns the index of the quote that closes the string opened at
// raw[open], or -1: a quote preceded by an odd number of backslashes is
// escaped. bytes.IndexByte finds the candidates quickly in long text.
func StringEnd(raw []byte, open int) int {
	for i := open + 1; i < len(raw); {
		q := bytes.IndexByte(raw[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		n := 0
		for j := q - 1; j > open && raw[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}

// MaxDepth bounds how deeply arrays and objects may nest in JSON the
// program reads from outside: a message from the editor, the input of
// `wavehooks run` (docs/protocol-limits.md). The decoders it uses recurse
// once per level, so a few megabytes of "[[[[…" would otherwise overflow
// the stack, which no recover catches, or cost a gigabyte of stack on the
// way there. 128 is what jq 1.6, the tool most hooks read their input with,
// is sure to parse: it accepts 256 levels but counts an object as two. A
// hook whose jq cannot parse its stdin fails without deciding anything, and
// the tool call it guards would go ahead.
const MaxDepth = 128

// TooDeep reports whether arrays and objects in b nest deeper than limit.
// It is one pass over the bytes with no allocation and no recursion, to run
// before any decoder: brackets inside strings do not count, escaped quotes
// do not end a string. It does not validate; the decoder does that.
//
// No more openers than the limit, wherever they stand, cannot nest deeper
// than it: two vectorized counts settle most messages (a streamed text
// chunk has five), which the scan reads byte by byte and string by string.
func TooDeep(b []byte, limit int) bool {
	if bytes.Count(b, openers[:1])+bytes.Count(b, openers[1:]) <= limit {
		return false
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := StringEnd(b, i)
			if end < 0 {
				return false // an unterminated string: not JSON, which the decoder will say
			}
			i = end
		case '[', '{':
			depth++
			if depth > limit {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// openers are the bytes that open a level: '{' and '['.
var openers = []byte("{[")

// TooDeepAt is TooDeep for JSON with comments and trailing commas (JWCC,
// what hujson parses: the settings files): it returns the offset of the
// first bracket that opens a level deeper than limit, or -1. A "//" or
// "/*" comment is skipped like a string, so that brackets and quotes in
// comments neither count nor throw the count off; an unterminated string or
// comment ends the scan (the parser says what is wrong). One pass, no
// allocation, no recursion.
func TooDeepAt(b []byte, limit int) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := StringEnd(b, i)
			if end < 0 {
				return -1
			}
			i = end
		case '/':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '/':
				nl := bytes.IndexByte(b[i+2:], '\n')
				if nl < 0 {
					return -1
				}
				i += 2 + nl
			case '*':
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return -1
				}
				i += 2 + end + 1
			}
		case '[', '{':
			depth++
			if depth > limit {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}

// Kind names the kind of a JSON value as an error message says it ("a
// string", "an object", "null"; "nothing" for no value). It reads only the
// first byte: raw is assumed valid.
func Kind(raw []byte) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a number"
}

// KindOf names, in the words of Kind, the JSON a Go type decodes from, for
// the "must be …, not …" of a *json.UnmarshalTypeError.
func KindOf(t reflect.Type) string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a JSON value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// emptyObject is what OrEmptyObject gives for no value.
var emptyObject = json.RawMessage(`{}`)

// OrEmptyObject is raw, or {} when raw is absent or null: a tool call's
// input and response are objects on the wire and in a hook's stdin even
// when the agent sent none.
func OrEmptyObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObject
	}
	return raw
}

// ValueEnd returns the index just past the JSON value that starts at b[i]
// (after whitespace), without recursion and without validating it, or -1.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end := StringEnd(b, i)
		if end < 0 {
			return -1
		}
		return end + 1
	case '[', '{':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := StringEnd(b, i)
				if end < 0 {
					return -1
				}
				i = end
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
	}
	return len(b)
}

// SkipSpace returns the index of the first byte at or after i that is not JSON
// whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
