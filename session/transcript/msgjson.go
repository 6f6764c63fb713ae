package transcript

import (
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// encodeMessage encodes a message exactly as encodeJSON would (encoding/json,
// HTML escaping off), by hand, so that a tool input, which can be a 100 MB
// string, is copied rather than validated and compacted once more per save
// (docs/performance.md, "Large frames"). Tool.Input always holds JSON that
// was validated when it was set (flow.NormJSON, a hook's parsed output, a loaded
// file); it is compacted here only if it has whitespace.
func encodeMessage(m *Message) ([]byte, error) {
	n := 64
	for i := range m.Blocks {
		b := &m.Blocks[i]
		n += 128 + len(b.Content)
		if t := b.tool; t != nil {
			n += len(t.Input) + len(t.Result) + len(t.Error)
		}
	}
	dst := make([]byte, 0, n)
	dst = append(dst, `{"role":`...)
	dst = appendJSONString(dst, m.Role)
	dst = append(dst, `,"blocks":`...)
	if m.Blocks == nil {
		return append(dst, "null}"...), nil
	}
	dst = append(dst, '[')
	for i := range m.Blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendBlock(dst, &m.Blocks[i]); err != nil {
			return nil, err
		}
	}
	return append(dst, "]}"...), nil
}

// appendBlock appends a block with Block's field order and omitempty rules.
func appendBlock(dst []byte, b *Block) ([]byte, error) {
	str := func(key, v string) {
		if v != "" {
			dst = append(dst, key...)
			dst = appendJSONString(dst, v)
		}
	}
	t, h := b.Tool(), b.Hook()
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, b.Type)
	str(`,"content":`, b.Content)
	str(`,"id":`, t.ID)
	str(`,"name":`, t.Name)
	if len(t.Input) > 0 {
		dst = append(dst, `,"input":`...)
		var err error
		if dst, err = rawjson.AppendCompact(dst, t.Input); err != nil {
			return nil, err
		}
	}
	str(`,"result":`, t.Result)
	if t.Success != nil {
		dst = append(dst, `,"success":`...)
		if *t.Success {
			dst = append(dst, "true"...)
		} else {
			dst = append(dst, "false"...)
		}
	}
	str(`,"error":`, t.Error)
	str(`,"hookEvent":`, h.Event)
	if len(h.Metadata) > 0 {
		meta, err := encodeJSON(h.Metadata)
		if err != nil {
			return nil, err
		}
		dst = append(append(dst, `,"metadata":`...), meta...)
	}
	return append(dst, '}'), nil
}
