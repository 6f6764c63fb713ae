package acp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// message is one JSON-RPC message as read from one side: the line itself,
// which is what gets forwarded, and the envelope fields the proxy routes on.
type message struct {
	// line is the message's bytes as read, ending in "\n".
	line []byte
	// passed: the message was passed on, changed, answered or taken by the
	// proxy (set by the worker that handles it).
	passed bool
	// settingsRead: a prompt's workspace settings were read again for it
	// already (promptMayWait).
	settingsRead bool

	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// errNotObject: a line that is not a JSON object cannot be a JSON-RPC message.
var errNotObject = errors.New("not a JSON object")

// parseMessage decodes a line's envelope. The line must stay unchanged while
// the message is in use: nothing is copied out of it but the envelope fields.
func parseMessage(line []byte) (*message, error) {
	body := bytes.TrimSpace(line)
	if len(body) == 0 || body[0] != '{' {
		return nil, errNotObject
	}
	m := &message{line: line}
	// The method is read without a copy and then replaced by the constant
	// it equals, or copied: a streamed update costs no string of its own,
	// and a method kept past the message (an open call's) never holds the
	// whole line, which can be a 50 MB prompt.
	if err := parse(body, m, fastjson.DontCopyRawMessage|fastjson.ZeroCopy); err != nil {
		return nil, err
	}
	m.Method = ownMethod(m.Method)
	if isNull(m.ID) {
		m.ID = nil
	} else {
		m.ID = append(json.RawMessage(nil), m.ID...) // kept while a call is open; the line need not be
	}
	return m, nil
}

// ownMethod is method as a string that does not point into a message's line:
// the constant it equals (its row's name in methods), or a copy.
func ownMethod(method string) string {
	if method == "" {
		return ""
	}
	if row := methods[method]; row != nil {
		return row.name
	}
	return strings.Clone(method)
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// isRequest: a method and an id; the peer must answer it.
func (m *message) isRequest() bool { return m.Method != "" && m.ID != nil }

// isNotification: a method without an id.
func (m *message) isNotification() bool { return m.Method != "" && m.ID == nil }

// isResponse: an id without a method.
func (m *message) isResponse() bool { return m.Method == "" && m.ID != nil }

// idKey is the map key of a request id. Peers echo ids as they got them, so
// the id's bytes identify it.
func idKey(id json.RawMessage) string { return string(id) }

// ownIDPrefix starts the ids of the requests the proxy itself sends (a Stop
// hook's follow-up prompt, a hook's "ask" about a file operation, the trust
// question). They are strings, so they cannot collide with the numbers
// editors and agents use; docs/acp.md says so for peers that use string ids.
const ownIDPrefix = "wavehooks-"

// randomOwnID is the id of one of the proxy's own requests: its kind and 128
// random bits, so that the peer the request was not sent to cannot answer
// it by guessing the id (issue #35 item 3: an agent answered the trust
// question the proxy put to the editor). The answer is also taken only from
// the side it was sent to (answerOwnCall).
func randomOwnID(kind string) json.RawMessage {
	return json.RawMessage(strconv.Quote(ownIDPrefix + kind + "-" + rand.Text()))
}

// encodeLine encodes v as one message line: JSON without newlines, ending in "\n".
func encodeLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only values built by the proxy get here; they always encode.
		panic(fmt.Sprintf("acp: cannot encode a message: %v", err))
	}
	return append(b, '\n')
}

// resultLine answers request id with a result.
func resultLine(id json.RawMessage, result any) []byte {
	raw, ok := result.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			panic(fmt.Sprintf("acp: cannot encode a result: %v", err))
		}
	}
	return encodeLine(acpmsg.Response{JSONRPC: acpmsg.JSONRPCVersion, ID: id, Result: raw})
}

// errorLine answers request id (null when unknown) with an error; data,
// when not nil, says what the error is about (_meta-like: which hook decided).
func errorLine(id json.RawMessage, code int, msg string, data *acpmsg.Meta) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	e := &acpmsg.Error{Code: code, Message: msg}
	if data != nil {
		e.Data = mustRaw(data)
	}
	return encodeLine(acpmsg.Response{JSONRPC: acpmsg.JSONRPCVersion, ID: id, Error: e})
}

// rawErrorLine answers request id with an error object received from a peer, unchanged.
func rawErrorLine(id, rawErr json.RawMessage) []byte {
	return encodeLine(acpmsg.RawErrorResponse{JSONRPC: acpmsg.JSONRPCVersion, ID: id, Error: rawErr})
}

// requestLine is a request the proxy sends.
func requestLine(id json.RawMessage, method string, params any) []byte {
	return encodeLine(acpmsg.Request{JSONRPC: acpmsg.JSONRPCVersion, ID: id, Method: method, Params: params})
}

// notificationLine is a notification the proxy sends.
func notificationLine(method string, params any) []byte {
	return encodeLine(acpmsg.Request{JSONRPC: acpmsg.JSONRPCVersion, Method: method, Params: params})
}

// withParams is the request m with other params, the rest of its envelope
// kept; an edited object's values keep their bytes (rawObject).
func withParams(m *message, params any) []byte {
	if obj, ok := params.(acpmsg.Object); ok {
		return rawRequestLine(m.ID, m.Method, rawObject(obj))
	}
	return requestLine(m.ID, m.Method, params)
}

// decodeTransient is decode for values used only while the message is
// handled: strings also point into raw instead of being copied. The hot
// path of a streamed text chunk allocates nothing for them.
func decodeTransient(raw json.RawMessage, v any) error {
	if isNull(raw) {
		return nil
	}
	rest, err := fastjson.Parse(raw, v, fastjson.ZeroCopy)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return fmt.Errorf("invalid character %q after a JSON value", rest[0])
	}
	return nil
}

// decodeObject decodes a JSON object into its members, keeping each value's
// bytes, so that a changed message keeps every member the proxy does not touch.
//
// The map is made here, not by the decoder: segmentio's makes every
// map[string]RawMessage it fills with room for 64 members, a table of a few
// KiB that a tool's input of three members, or a session/update's params,
// paid for at every decoding, and every copy after (BenchmarkForwarding).
func decodeObject(raw json.RawMessage) (acpmsg.Object, error) {
	obj := acpmsg.Object{}
	if err := decode(raw, &obj); err != nil {
		return nil, err
	}
	if obj == nil { // a null
		obj = acpmsg.Object{}
	}
	return obj, nil
}

// decodeExact is decode with member names matched exactly, as the editor
// matches them: for the requests the proxy judges and then passes on, where
// a "Path" beside a "path" must not become what the hooks judge while the
// editor acts on the other.
func decodeExact(raw json.RawMessage, v any) error {
	return parse(raw, v, fastjson.DontCopyRawMessage|fastjson.DontMatchCaseInsensitiveStructFields)
}

// decode decodes raw JSON into v; empty or null leaves v as it is.
// RawMessage fields of v point into raw instead of copying it: a message's
// line is never changed or reused, and a 50 MB prompt is not copied again
// at every step.
func decode(raw json.RawMessage, v any) error {
	return parse(raw, v, fastjson.DontCopyRawMessage)
}

func parse(raw json.RawMessage, v any, flags fastjson.ParseFlags) error {
	if isNull(raw) {
		return nil
	}
	rest, err := fastjson.Parse(raw, v, flags)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return fmt.Errorf("invalid character %q after a JSON value", rest[0])
	}
	return nil
}

// encodeObject encodes an object the proxy edited: the bytes encoding/json
// gives (members sorted by name, each value compacted with HTML characters
// escaped), by segmentio's encoder, which does not check and compact each
// member twice as encoding/json does. A tool's input goes through here at
// least twice per tool call (when it is recorded and when it finishes), and
// its members are the agent's whole old and new file text.
func encodeObject(obj acpmsg.Object) json.RawMessage {
	b, err := fastjson.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("acp: cannot encode: %v", err))
	}
	return b
}

// mustRaw encodes a value the proxy built.
func mustRaw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("acp: cannot encode: %v", err))
	}
	return b
}
