// Package testjson builds the large JSON inputs that the tests and
// benchmarks of several packages send through the server and the CLI.
package testjson

import (
	"bytes"
	"fmt"
	"strings"
)

// LargeObject returns a JSON object of about n bytes in one of two shapes:
// "string", one long string (a Write tool's content), or "members", many
// short members (a big structured input, the costly shape for a decoder).
func LargeObject(shape string, n int) []byte {
	var buf bytes.Buffer
	buf.Grow(n + 64)
	switch shape {
	case "string":
		buf.WriteString(`{"file_path":"/tmp/big.txt","content":"`)
		line := strings.Repeat("x", 62) + `\n`
		for buf.Len() < n {
			buf.WriteString(line)
		}
		buf.WriteString(`"}`)
	case "members":
		buf.WriteByte('{')
		for i := 0; buf.Len() < n; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `"k%d":"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"`, i)
		}
		buf.WriteByte('}')
	default:
		panic("unknown shape " + shape)
	}
	return buf.Bytes()
}
