package acp

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// A message the proxy edits keeps the bytes of every value it does not
// edit (issue #37 item 4): encoding/json, which encodeLine uses, compacts a
// json.RawMessage and escapes its HTML characters, so an editor's _meta of
// "<b>" reached the agent as "\u003cb\u003e", and a big number or a
// spaced-out member came out rewritten. The lines below are put together
// from the values' bytes instead.

// rawMember is one member of a message line: its name, a JSON string the
// proxy wrote, and its value's bytes (nil: left out).
type rawMember struct {
	key   string
	value []byte
}

// rawLine is a message line of members in order, each value as its bytes.
func rawLine(members ...rawMember) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, m := range members {
		if m.value == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(m.key)
		b.WriteByte(':')
		b.Write(bytes.TrimSpace(m.value))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// rawObject encodes an object the proxy edited as encodeObject does —
// members sorted by name — but with each value's bytes as they are.
func rawObject(obj acpmsg.Object) json.RawMessage {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustRaw(k))
		b.WriteByte(':')
		v := bytes.TrimSpace(obj[k])
		if len(v) == 0 {
			v = []byte("null")
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// rawArray is a JSON array of values, each as its bytes.
func rawArray(values []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(bytes.TrimSpace(v))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// rawRequestLine is a request (a notification when id is nil) whose id
// and params keep their bytes.
func rawRequestLine(id json.RawMessage, method string, params json.RawMessage) []byte {
	return rawLine(rawMember{`"jsonrpc"`, []byte(`"2.0"`)}, rawMember{`"id"`, id},
		rawMember{`"method"`, mustRaw(method)}, rawMember{`"params"`, params})
}
