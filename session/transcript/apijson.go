package transcript

import (
	"strconv"
	"unicode/utf8"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// The API form is encoded by hand: it is what a jsonl session writes on
// every event, and encoding/json's reflection plus the re-compaction of each
// MarshalJSON result cost several times the write itself. The output is what
// encoding/json gives with HTML escaping off.

func appendAPIMessage(dst []byte, m *APIMessage) ([]byte, error) {
	dst = append(dst, `{"role":`...)
	dst = appendJSONString(dst, m.Role)
	dst = append(dst, `,"content":`...)
	if m.Blocks == nil {
		dst = appendJSONString(dst, m.Text)
		return append(dst, '}'), nil
	}
	dst = append(dst, '[')
	for i := range m.Blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendAPIBlock(dst, &m.Blocks[i]); err != nil {
			return nil, err
		}
	}
	return append(dst, "]}"...), nil
}

func appendAPIBlock(dst []byte, b *APIBlock) ([]byte, error) {
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, b.Type)
	switch b.Type {
	case "tool_use":
		dst = append(dst, `,"id":`...)
		dst = appendJSONString(dst, b.ID)
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, b.Name)
		dst = append(dst, `,"input":`...)
		if len(b.Input) == 0 {
			dst = append(dst, "{}"...)
		} else {
			// Validated when it was set: copied, compacted only if need be.
			var err error
			if dst, err = rawjson.AppendCompact(dst, b.Input); err != nil {
				return nil, err
			}
		}
	case "tool_result":
		dst = append(dst, `,"tool_use_id":`...)
		dst = appendJSONString(dst, b.ToolUseID)
		dst = append(dst, `,"content":`...)
		dst = appendJSONString(dst, b.Content)
		dst = append(dst, `,"is_error":`...)
		dst = strconv.AppendBool(dst, b.IsError)
	default:
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, b.Text)
	}
	return append(dst, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does without HTML escaping:
// invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped so the
// line can be pasted into JavaScript.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
