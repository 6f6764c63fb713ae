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
	"sync"

	fastjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
)

// maxMessage bounds one message body; a larger Content-Length is a protocol
// error rather than an allocation the client chose for us.
const maxMessage = 256 << 20

// errFraming marks a stream that can no longer be read: the framing is
// broken, so no later message can be found reliably and the connection ends.
var errFraming = errors.New("broken message framing")

// stream is a jsonrpc2.Stream with LSP's Content-Length framing that, unlike
// jsonrpc2.NewStream, survives bad message bodies: a body that is not JSON, or
// is not a valid JSON-RPC message (an id beyond int32, say), is answered with a
// JSON-RPC error and the next message is read, where the library would close
// the connection. It also writes each frame with one write call from a reused
// buffer, which matters on the request path.
type stream struct {
	in     *bufio.Reader
	out    io.Writer
	closer io.Closer

	// wmu guards wbuf. jsonrpc2.Conn already serialises writes, but the stream
	// writes error replies of its own from the read loop.
	wmu  sync.Mutex
	wbuf bytes.Buffer
}

func newStream(rwc io.ReadWriteCloser) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, closer: rwc}
}

// Read returns the next JSON-RPC message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, n, err
		}
		msg, err := decodeMessage(body)
		if err == nil && !emptyStringID(msg, body) {
			return msg, n, nil
		}
		if err == nil {
			err = errors.New(`an empty string id cannot be told apart from id 0; use another id`)
		}
		s.replyUndecodable(body, err)
	}
}

func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := -1
	for {
		line, err := s.in.ReadSlice('\n')
		total += int64(len(line))
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, total, fmt.Errorf("%w: header line too long", errFraming)
			}
			return nil, total, err // io.EOF when the client went away
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if length < 0 {
				return nil, total, fmt.Errorf("%w: missing Content-Length header", errFraming)
			}
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return nil, total, fmt.Errorf("%w: invalid header line %q", errFraming, line)
		}
		if !bytes.EqualFold(bytes.TrimSpace(line[:colon]), []byte("Content-Length")) {
			continue // Content-Type and unknown headers are ignored
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(line[colon+1:])))
		if err != nil || n <= 0 || n > maxMessage {
			return nil, total, fmt.Errorf("%w: invalid Content-Length %q", errFraming, bytes.TrimSpace(line[colon+1:]))
		}
		length = n
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, total, fmt.Errorf("%w: body shorter than its Content-Length: %v", errFraming, err)
	}
	return body, total + int64(length), nil
}

// envelope has the fields of every JSON-RPC message.
type envelope struct {
	ID     *jsonrpc2.ID    `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// decodeMessage does what jsonrpc2.DecodeMessage does without its
// per-message json.Decoder, whose read buffer made up most of the bytes the
// server allocated per request.
func decodeMessage(body []byte) (jsonrpc2.Message, error) {
	var env envelope
	if err := fastjson.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	switch {
	case env.Method != "" && env.ID != nil:
		return jsonrpc2.NewCall(*env.ID, env.Method, env.Params)
	case env.Method != "":
		return jsonrpc2.NewNotification(env.Method, env.Params)
	case env.ID != nil && env.Error != nil:
		return jsonrpc2.NewResponse(*env.ID, nil, env.Error)
	case env.ID != nil:
		return jsonrpc2.NewResponse(*env.ID, env.Result, nil)
	}
	return nil, jsonrpc2.ErrInvalidRequest
}

// emptyStringID reports a call whose id is "": jsonrpc2.ID keeps it as the
// number 0, so its answer would carry the wrong id.
func emptyStringID(msg jsonrpc2.Message, body []byte) bool {
	call, ok := msg.(*jsonrpc2.Call)
	if !ok || call.ID() != jsonrpc2.NewNumberID(0) {
		return false
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(body, &probe) == nil && string(probe.ID) == `""`
}

// replyUndecodable answers a body the library cannot decode. Requests get an
// error with their own id (even one jsonrpc2.ID cannot hold); anything else
// gets a parse error with a null id, as JSON-RPC 2.0 says.
func (s *stream) replyUndecodable(body []byte, decodeErr error) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	code, msg, id := jsonrpc2.ParseError, "parse error: the message is not valid JSON", json.RawMessage("null")
	if json.Valid(body) {
		code, msg = jsonrpc2.InvalidRequest, "invalid request: a message must be a JSON-RPC 2.0 object"
	}
	if err := json.Unmarshal(body, &probe); err == nil {
		if probe.Method == nil && len(probe.ID) > 0 {
			return // an undecodable response to one of our calls: nothing to answer
		}
		code, msg = jsonrpc2.InvalidRequest, "invalid request: "+decodeErr.Error()
		if len(probe.ID) > 0 {
			// The id as sent, but in UTF-8: the client's bytes need not
			// be, and JSON text must.
			id = bytes.ToValidUTF8(probe.ID, []byte("\uFFFD"))
		}
	}
	reply, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, msg)})
	_ = s.writeFrame(reply)
}

// Write sends one message. The message types marshal themselves;
// encoding/json.Marshal would validate and compact their output once more.
func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	m, ok := msg.(json.Marshaler)
	if !ok {
		return 0, fmt.Errorf("cannot marshal %T", msg)
	}
	body, err := m.MarshalJSON()
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return int64(len(body)), s.writeFrame(body)
}

func (s *stream) writeFrame(body []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf.Reset()
	s.wbuf.WriteString("Content-Length: ")
	s.wbuf.WriteString(strconv.Itoa(len(body)))
	s.wbuf.WriteString("\r\n\r\n")
	s.wbuf.Write(body)
	_, err := s.out.Write(s.wbuf.Bytes())
	if s.wbuf.Cap() > 1<<20 {
		s.wbuf = bytes.Buffer{} // do not pin one huge message's buffer forever
	}
	return err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.closer.Close() }
