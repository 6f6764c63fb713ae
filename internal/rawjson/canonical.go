package rawjson

import (
	"bytes"
	"encoding/json"
)

// Canonical is a JSON value with object keys sorted, no insignificant space
// and strings escaped one way; numbers keep their text (1 and 1.0 differ,
// as a hook could read them differently). Two encodings of one value —
// key order, spacing, escapes — are one Canonical text, and any other
// difference is not. A value that is not JSON is kept as it is, behind a
// byte no JSON text starts with, so it never equals a JSON one. The ACP
// proxy binds a decision to a hash of this (acp/binding.go).
func Canonical(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return append([]byte{0}, raw...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // cannot fail for a decoded value
		return append([]byte{0}, raw...)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// SameValue says whether two JSON texts are one value (Canonical).
func SameValue(a, b json.RawMessage) bool { return bytes.Equal(Canonical(a), Canonical(b)) }
