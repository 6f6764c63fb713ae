package wire

import (
	fastjson "github.com/segmentio/encoding/json"
)

// Marshal encodes a result as the server writes it on the wire
// (segmentio's encoder, map keys sorted, without HTML escaping), into a
// buffer of about its size: a result for a large tool input holds it twice.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, SizeHint(v)+64), v)
}

// Append appends v's wire encoding to b.
func Append(b []byte, v any) ([]byte, error) {
	return fastjson.Append(b, v, fastjson.SortMapKeys)
}
