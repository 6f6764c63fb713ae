package lsp

import "strconv"

// Location says where a cursor is in a settings file, for hover and
// completion: the path of keys and array indexes down to it, whether it is
// on an object key or a value, and the string under it. It is found with a
// tolerant scan, so it works while the user is typing and the file is not
// valid JSON yet.
type Location struct {
	// Path is the keys and indexes from the root, e.g. hooks, PreToolUse, 0, matcher.
	Path []string
	// OnKey is true when the cursor is on (or where there should be) an object key.
	OnKey bool
	// Text is the string literal under the cursor, without quotes, and Start
	// and End its byte offsets (quotes included); empty when not in a string.
	Text       string
	Start, End int
	InString   bool
}

type frame struct {
	object    bool
	key       string
	index     int
	expectKey bool // in an object, before the colon of the next member
}

// Locate finds what is at byte offset off of a settings file's text.
func Locate(text []byte, off int) Location {
	if off > len(text) {
		off = len(text)
	}
	var stack []frame
	path := func(extra ...string) []string {
		var p []string
		for _, f := range stack {
			if f.object {
				if !f.expectKey {
					p = append(p, f.key)
				}
			} else {
				p = append(p, strconv.Itoa(f.index))
			}
		}
		return append(p, extra...)
	}
	i := 0
	for i < len(text) && i < off {
		c := text[i]
		switch {
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := i + 2
			for end+1 < len(text) && !(text[end] == '*' && text[end+1] == '/') {
				end++
			}
			i = end + 2
			continue
		case c == '"':
			start := i
			i++
			for i < len(text) && text[i] != '"' && text[i] != '\n' {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			end := min(i+1, len(text))
			s, err := strconv.Unquote(string(text[start:min(i+1, len(text))]))
			if err != nil {
				s = string(text[start+1 : min(i, len(text))])
			}
			onKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
			if off > start && off <= end {
				loc := Location{Text: s, Start: start, End: end, InString: true, OnKey: onKey}
				if onKey {
					loc.Path = path(s)
				} else {
					loc.Path = path()
				}
				return loc
			}
			if onKey {
				stack[len(stack)-1].key = s
			}
			i = end
			continue
		}
		switch c {
		case '{':
			stack = append(stack, frame{object: true, expectKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ':':
			if len(stack) > 0 {
				stack[len(stack)-1].expectKey = false
			}
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.object {
					top.expectKey, top.key = true, ""
				} else {
					top.index++
				}
			}
		}
		i++
	}
	onKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
	return Location{Path: path(), OnKey: onKey, Start: off, End: off}
}
