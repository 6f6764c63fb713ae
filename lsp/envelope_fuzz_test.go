package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// memConn is a connection whose input is fixed bytes and whose output is kept.
type memConn struct {
	io.Reader
	out bytes.Buffer
}

func (c *memConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *memConn) Close() error                { return nil }

// referenceDepth is how deeply arrays and objects nest in b, computed the
// plain way (one byte at a time, a flag for strings and one for escapes),
// to check the stream's faster scan against.
func referenceDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// FuzzEnvelope feeds one frame's body to the server's stream, the code every
// client message passes before any handler: the envelope decoder, the
// nesting scan, and the error answers it writes itself. It must never panic
// or recurse per level; it either passes on a message no deeper than
// maxNesting whose id jsonrpc2 holds faithfully, or answers with a
// well-formed JSON-RPC error (with the request's id when it has a usable
// one), or stays silent for a response it cannot read.
//
//	go test -run '^$' -fuzz '^FuzzEnvelope$' -fuzztime 60s ./lsp
func FuzzEnvelope(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"wave/listPermissions"}`,
		`{"jsonrpc":"2.0","id":"a","method":"wave/preToolUse","params":{"toolInput":{"command":"echo \"[{\" \\"}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:x","text":"[[["}}}`,
		`{"jsonrpc":"2.0","id":3,"result":[1,2]}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":"","method":"x"}`,
		`{"jsonrpc":"2.0","id":99999999999,"method":"x"}`,
		`{"jsonrpc":"2.0","ID":7,"Method":"x"}`,
		`{"jsonrpc":"2.0","\u0069d":8,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{"a":[1]},"method":5}`,
		`[1,2]`, `"x"`, `{`, `}`, `{"id":1,"method":"x"`, "{\"id\":\"\xff\",\"method\":\"x\"}",
		`{"jsonrpc":"2.0","id":4,"method":"x","params":` + strings.Repeat("[", 128) + strings.Repeat("]", 128) + `}`,
		`{"jsonrpc":"2.0","id":5,"method":"x","params":` + strings.Repeat("[", 127) + strings.Repeat("]", 127) + `}`,
		`{"jsonrpc":"2.0","id":6,"method":"x","params":"` + strings.Repeat(`[\"{`, 1000) + `"}`,
		`{"jsonrpc":"2.0","id":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `,"method":"x"}`,
		`{"jsonrpc":"2.0","id":7,"method":"x","params":` + strings.Repeat(`{"a":`, 20000) + "0" + strings.Repeat("}", 20000) + `}`,
		// The review's message had 2,000,000 levels (TestDeeplyNestedMessages
		// sends it to a server); seeds this size keep the fuzzer quick.
		`{"jsonrpc":"2.0","id":8,"method":"wave/listPermissions","params":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`,
		strings.Repeat("[", 20_000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		conn := &memConn{Reader: strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))}
		if len(body) == 0 {
			conn.Reader = strings.NewReader("Content-Length: 1\r\n\r\n ")
			body = []byte(" ")
		}
		s := newStream(conn)
		msg, _, err := s.Read(context.Background())
		deep := referenceDepth(body) > maxNesting
		require := func(ok bool, format string, args ...any) {
			t.Helper()
			if !ok {
				t.Fatalf("body %q: "+format, append([]any{truncateBody(body)}, args...)...)
			}
		}
		if err == nil {
			require(conn.out.Len() == 0, "a message was passed on and answered too: %q", conn.out.String())
			require(!deep, "a message %d levels deep was passed on", referenceDepth(body))
			checkPassedOn(t, body, msg)
			if req, ok := msg.(jsonrpc2.Request); ok {
				checkParams(t, body, s.takeParams(req))
			}
			return
		}
		require(errors.Is(err, io.EOF), "reading one frame ended with %v", err)
		replies := readReplies(t, conn.out.Bytes())
		require(len(replies) <= 1, "%d answers to one frame", len(replies))
		if deep && len(replies) == 0 {
			p := probeEnvelope(body)
			require(p.isObject && !p.method && p.id != nil, "a message too deep was neither answered nor a response")
		}
		if len(replies) == 0 {
			return
		}
		r := replies[0]
		if deep {
			require(r.Error.Code == int(jsonrpc2.InvalidRequest) && strings.Contains(r.Error.Message, "nest deeper than"),
				"a message too deep answered %v", r.Error)
		}
		// A request whose id is a plain string or number gets its own id back.
		var probe map[string]json.RawMessage
		if !deep && json.Unmarshal(body, &probe) == nil && probe["method"] != nil {
			var id any
			if json.Unmarshal(probe["id"], &id) == nil {
				switch id.(type) {
				case string, float64:
					require(jsonEqual(r.ID, probe["id"]), "answered with id %s, not %s", r.ID, probe["id"])
				}
			}
		}
	})
}

// checkPassedOn checks a message the stream passed on against what a
// reference decoder (encoding/json) reads in the body.
func checkPassedOn(t *testing.T, body []byte, msg jsonrpc2.Message) {
	t.Helper()
	var ref struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &ref) != nil {
		return // segmentio accepts what encoding/json does not: nothing to compare
	}
	id := string(bytes.TrimSpace(ref.ID))
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		if m.Method() != ref.Method || id == "" || id == "null" || id == `""` {
			t.Fatalf("body %q passed on as call %q id %v", truncateBody(body), m.Method(), m.ID())
		}
		callID := m.ID()
		want, _ := json.Marshal(&callID)
		if !jsonEqual(want, ref.ID) {
			t.Fatalf("body %q: the call's id %s is not the id sent, %s", truncateBody(body), want, ref.ID)
		}
	case *jsonrpc2.Notification:
		if m.Method() != ref.Method || (id != "" && id != "null") {
			t.Fatalf("body %q passed on as notification %q", truncateBody(body), m.Method())
		}
	case *jsonrpc2.Response:
		if ref.Method != "" || id == "" || id == "null" {
			t.Fatalf("body %q passed on as a response", truncateBody(body))
		}
	default:
		t.Fatalf("body %q passed on as %T", truncateBody(body), msg)
	}
}

// checkParams checks that the params the handler gets are the body's own,
// as a reference decoder reads them.
func checkParams(t *testing.T, body []byte, params json.RawMessage) {
	t.Helper()
	var ref struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &ref) != nil || len(ref.Params) == 0 {
		return
	}
	if !jsonEqual(ref.Params, params) {
		t.Fatalf("body %q: the handler would get params %q", truncateBody(body), truncateBody(params))
	}
}

type replyMsg struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readReplies parses the frames the stream wrote: each must be a JSON-RPC
// error response in UTF-8 whose id is null or shallow JSON.
func readReplies(t *testing.T, out []byte) []replyMsg {
	t.Helper()
	var replies []replyMsg
	in := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := in.ReadString('\n')
		if err == io.EOF && line == "" {
			return replies
		}
		v, ok := strings.CutPrefix(line, "Content-Length: ")
		n, convErr := strconv.Atoi(strings.TrimSpace(v))
		blank, _ := in.ReadString('\n')
		if !ok || convErr != nil || blank != "\r\n" {
			t.Fatalf("malformed frame header in %q", truncateBody(out))
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			t.Fatalf("frame shorter than its Content-Length: %q", truncateBody(out))
		}
		var r replyMsg
		if err := json.Unmarshal(body, &r); err != nil || r.Version != "2.0" || r.Error == nil || r.Error.Message == "" || len(r.ID) == 0 {
			t.Fatalf("not a JSON-RPC error response: %q (%v)", truncateBody(body), err)
		}
		if referenceDepth(r.ID) > maxNesting {
			t.Fatalf("answered with an id nested %d deep", referenceDepth(r.ID))
		}
		replies = append(replies, r)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func truncateBody(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
