package lsp

import (
	"encoding/json"
	"strings"

	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// maxNesting bounds how deeply arrays and objects may nest in one message,
// the envelope included (docs/protocol-limits.md): segmentio's decoder, which
// jsonrpc2 and the handlers use, recurses once per level, and a hook's jq
// reads the tool input that came in the message.
const maxNesting = rawjson.MaxDepth

func tooDeep(b []byte, limit int) bool { return rawjson.TooDeep(b, limit) }

func stringEnd(b []byte, open int) int { return rawjson.StringEnd(b, open) }

// envelopeProbe is what can be told of a message the decoder refused: its
// id and whether it has a method, read from the top-level object alone.
type envelopeProbe struct {
	isObject bool
	id       json.RawMessage // as sent; nil when absent
	method   bool            // a non-null "method" member is present
}

// probeEnvelope reads the top-level members of a JSON object without
// decoding (or recursing into) their values, so the id of a message too deep
// or too odd to decode can still be answered. Keys match as the decoder
// matches them (case-insensitively; the last one wins).
func probeEnvelope(b []byte) envelopeProbe {
	var p envelopeProbe
	i := rawjson.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return p
	}
	for i = rawjson.SkipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		if b[i] != '"' {
			return p
		}
		end := stringEnd(b, i)
		if end < 0 {
			return p
		}
		key := string(b[i+1 : end])
		if strings.IndexByte(key, '\\') >= 0 {
			_ = json.Unmarshal(b[i:end+1], &key)
		}
		i = rawjson.SkipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return p
		}
		start := rawjson.SkipSpace(b, i+1)
		stop := rawjson.ValueEnd(b, start)
		if stop < 0 {
			return p
		}
		switch value := b[start:stop]; {
		case strings.EqualFold(key, "id"):
			p.id = value
		case strings.EqualFold(key, "method"):
			p.method = string(value) != "null"
		}
		i = rawjson.SkipSpace(b, stop)
		if i < len(b) && b[i] == ',' {
			i = rawjson.SkipSpace(b, i+1)
		}
	}
	p.isObject = i < len(b)
	return p
}
