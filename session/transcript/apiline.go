package transcript

import (
	"bytes"
	"encoding/json"

	fastjson "github.com/segmentio/encoding/json"
)

// apiLineJSON is a jsonl line as a resume decodes it first: its content is
// a string or a list of blocks, so it is kept raw (APIMessage.UnmarshalJSON).
type apiLineJSON struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// apiBlockJSON is an API block as it is decoded first, by a resume and by
// APIBlock.UnmarshalJSON: its content raw (a string or a list of texts).
type apiBlockJSON struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// apiLineDecoder reads the lines of a jsonl transcript as
// json.Unmarshal into an APIMessage reads them, but without copies:
// segmentio's decoder with ZeroCopy leaves the strings in the line, so
// that a resume makes little garbage (docs/performance.md, "100,000 small
// messages"); the caller copies what it keeps (msgArena.apiMessage) before
// the line is reused. A line the fast path does not take (a tool result
// whose content is a list, anything the decoder refuses) is decoded again
// with encoding/json, which decides. Its lists are reused from line to
// line: a decoded message is valid until the next decode.
type apiLineDecoder struct {
	// What the decoder writes into is here rather than in locals, which
	// would each be an allocation (the decoder takes them as interfaces).
	line   apiLineJSON
	raw    []apiBlockJSON
	blocks []APIBlock
	str    string
}

// decode reads one line; ok is false when encoding/json would not read it
// as a message with a role (a torn line).
func (d *apiLineDecoder) decode(line []byte) (APIMessage, bool) {
	if m, ok := d.fast(line); ok {
		return m, true
	}
	var m APIMessage // escapes: allocated only here
	if json.Unmarshal(line, &m) != nil || m.Role == "" {
		return APIMessage{}, false
	}
	return m, true
}

// fast is decode for the lines it takes: ok is false for any other.
func (d *apiLineDecoder) fast(line []byte) (m APIMessage, ok bool) {
	d.line = apiLineJSON{}
	if rest, err := fastjson.Parse(line, &d.line, fastjson.ZeroCopy); err != nil || len(rest) != 0 || d.line.Role == "" {
		return APIMessage{}, false
	}
	m.Role = d.line.Role
	c := bytes.TrimSpace(d.line.Content)
	switch {
	case len(c) == 0 || string(c) == "null":
		return m, true
	case c[0] == '"':
		if !d.parseString(c) {
			return APIMessage{}, false
		}
		m.Text = d.str
		return m, true
	case c[0] != '[':
		return APIMessage{}, false
	}
	clear(d.raw[:cap(d.raw)]) // the decoder keeps the fields of a reused block that a line leaves out
	d.raw = d.raw[:0]
	if rest, err := fastjson.Parse(c, &d.raw, fastjson.ZeroCopy); err != nil || len(rest) != 0 {
		return APIMessage{}, false
	}
	blocks := d.blocks[:0]
	if blocks == nil {
		blocks = []APIBlock{}
	}
	for i := range d.raw {
		r := &d.raw[i]
		if len(r.Content) > 0 && r.Content[0] == '[' {
			return APIMessage{}, false // a list of texts: rare, encoding/json joins them
		}
		var content string
		if len(r.Content) > 0 && r.Content[0] == '"' {
			if !d.parseString(r.Content) {
				return APIMessage{}, false
			}
			content = d.str
		}
		blocks = append(blocks, APIBlock{Type: r.Type, Text: r.Text, ID: r.ID, Name: r.Name, Input: r.Input,
			ToolUseID: r.ToolUseID, Content: content, IsError: r.IsError})
	}
	d.blocks = blocks
	m.Blocks = blocks
	return m, true
}

// parseString decodes the JSON string s into d.str, without copying when
// it has no escapes.
func (d *apiLineDecoder) parseString(s []byte) bool {
	d.str = ""
	rest, err := fastjson.Parse(s, &d.str, fastjson.ZeroCopy)
	return err == nil && len(rest) == 0
}
