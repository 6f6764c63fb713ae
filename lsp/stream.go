package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/wire"
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
//
// Large messages are the other reason for it (docs/performance.md, "Large
// frames"): jsonrpc2 copies a request's params twice while decoding it, then
// validates and copies them again (jsonrpc2.NewCall re-marshals them), and a
// reply or notification is marshalled twice more and copied into the frame,
// through pools that keep the largest buffer they ever held. Here a request's
// params are a slice of the frame that was read (see takeParams), and
// writeResponse and writeNotification encode a value once, straight into
// the buffer that is written.
type stream struct {
	in     *bufio.Reader
	out    io.Writer
	closer io.Closer

	// wmu guards wbuf. jsonrpc2.Conn already serialises writes, but the stream
	// writes error replies of its own from the read loop, and the server its
	// responses and notifications.
	wmu  sync.Mutex
	wbuf bytes.Buffer

	// pmu guards the params of the last message Read returned, which
	// takeParams hands to the server's handler.
	pmu        sync.Mutex
	lastMsg    jsonrpc2.Message
	lastParams json.RawMessage

	// onLarge, when set, is called after a frame of at least largeFrame
	// bytes was read or written (the server then returns memory to the OS
	// once it is idle).
	onLarge func()
}

// largeFrame is the size from which a frame counts as large: its buffers are
// not pooled, and it is written in two writes rather than copied into one.
const largeFrame = 1 << 20

func newStream(rwc io.ReadWriteCloser) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, closer: rwc}
}

// takeParams returns the params of a request or notification Read returned:
// a slice of the frame as the client sent it (valid JSON, maybe with
// whitespace), not the copy the jsonrpc2 message holds, which is empty.
func (s *stream) takeParams(req jsonrpc2.Request) json.RawMessage {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if jsonrpc2.Message(req) == s.lastMsg {
		p := s.lastParams
		s.lastMsg, s.lastParams = nil, nil
		return p
	}
	return req.Params()
}

// Read returns the next JSON-RPC message. Messages the server refuses (too
// deeply nested, an id JSON-RPC or LSP does not allow, a body that does not
// decode) are answered here, and the next one is read.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		var refused *refusal
		switch {
		case errors.As(err, &refused):
			s.refuse(body, refused)
			continue
		case err != nil:
			return nil, n, err
		}
		if tooDeep(body, maxNesting) {
			s.refuse(body, &refusal{code: rpcerr.InvalidRequest,
				msg: fmt.Sprintf("invalid request: arrays and objects nest deeper than %d levels", maxNesting)})
			continue
		}
		msg, params, err := decodeMessage(body)
		if err == nil {
			if len(body) >= largeFrame && s.onLarge != nil {
				s.onLarge()
			}
			s.pmu.Lock()
			s.lastMsg, s.lastParams = msg, params
			s.pmu.Unlock()
			return msg, n, nil
		}
		if errors.As(err, &refused) {
			s.refuse(body, refused)
			continue
		}
		s.replyUndecodable(body, err)
	}
}

// refusal is a message the stream answers with an error of its own rather
// than pass on; the connection goes on.
type refusal struct {
	code jsonrpc2.Code
	msg  string
}

func (r *refusal) Error() string { return r.msg }

func (s *stream) readFrame() ([]byte, int64, error) {
	var total int64
	length := -1
	repeated := false
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
		if length >= 0 && n != length {
			// Which one frames the body? A reader that guesses may
			// take a request the client never meant to send.
			return nil, total, fmt.Errorf("%w: Content-Length headers that disagree (%d and %d)", errFraming, length, n)
		}
		repeated = repeated || length >= 0
		length = n
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, total, fmt.Errorf("%w: body shorter than its Content-Length: %v", errFraming, err)
	}
	if repeated {
		// The body is where both headers say, so the stream stays in step;
		// the message is still refused, as ambiguous framing.
		return body, total + int64(length), &refusal{code: rpcerr.InvalidRequest,
			msg: "invalid request: the frame has more than one Content-Length header"}
	}
	return body, total + int64(length), nil
}

// envelope has the fields of every JSON-RPC message. The id is kept raw so
// that an absent id (a notification) is told from "id": null.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// decodeMessage does what jsonrpc2.DecodeMessage does without its
// per-message json.Decoder, whose read buffer made up most of the bytes the
// server allocated per request. Ids jsonrpc2 would get wrong are refused.
// A request's or notification's params are returned apart, as a slice of
// body: the message itself carries none (jsonrpc2.NewCall would validate and
// copy them once more).
func decodeMessage(body []byte) (msg jsonrpc2.Message, params json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil { // the decoder's bug must not end the process
			msg, params, err = nil, nil, fmt.Errorf("unmarshaling jsonrpc message: decoder panicked: %v", p)
		}
	}()
	var env envelope
	if err := unmarshalNoCopy(body, &env); err != nil {
		return nil, nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	var id *jsonrpc2.ID
	switch raw := bytes.TrimSpace(env.ID); {
	case len(raw) == 0:
	case string(raw) == "null":
		if env.Method == "" {
			return nil, nil, &refusal{} // a response to something it could not read: nothing to answer
		}
		return nil, nil, &refusal{code: rpcerr.InvalidRequest,
			msg: "invalid request: the id is null; a request id is a number or a string (a notification has no id)"}
	case string(raw) == `""`:
		// jsonrpc2.ID keeps "" as the number 0: the answer would carry the wrong id.
		return nil, nil, errors.New(`an empty string id cannot be told apart from id 0; use another id`)
	default:
		id = new(jsonrpc2.ID)
		if err := id.UnmarshalJSON(raw); err != nil {
			return nil, nil, fmt.Errorf("unmarshaling jsonrpc message: id %s: %w", raw, err)
		}
	}
	switch {
	case env.Method != "" && id != nil:
		msg, err = jsonrpc2.NewCall(*id, env.Method, nil)
		return msg, env.Params, err
	case env.Method != "":
		msg, err = jsonrpc2.NewNotification(env.Method, nil)
		return msg, env.Params, err
	case id != nil && env.Error != nil:
		msg, err = jsonrpc2.NewResponse(*id, nil, env.Error)
	case id != nil:
		// An editor's answer to one of the server's requests: small, and
		// jsonrpc2 reads it from the message, so it gets a copy of its own.
		msg, err = jsonrpc2.NewResponse(*id, env.Result, nil)
	default:
		err = jsonrpc2.ErrInvalidRequest
	}
	return msg, nil, err
}

// unmarshalNoCopy decodes like json.Unmarshal, but json.RawMessage fields
// are slices of b rather than copies: b must not change while they are used.
// The frames the stream reads are never reused, and decoding a large
// message's params into place costs no copy of them.
func unmarshalNoCopy(b []byte, v any) error {
	rest, err := fastjson.Parse(b, v, fastjson.DontCopyRawMessage)
	if err != nil {
		return err
	}
	if len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
		return fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	return nil
}

// refuse answers a message with the refusal's error, with the message's own
// id when it has one; a response (no method) or an empty refusal gets none.
func (s *stream) refuse(body []byte, r *refusal) {
	if r.code == 0 {
		return
	}
	p := probeEnvelope(body)
	if p.isObject && !p.method && p.id != nil {
		return // a response to one of our calls: nothing to answer
	}
	s.replyError(p.id, r.code, r.msg)
}

// replyUndecodable answers a body the library cannot decode. Requests get an
// error with their own id (even one jsonrpc2.ID cannot hold); anything else
// gets a parse error with a null id, as JSON-RPC 2.0 says.
func (s *stream) replyUndecodable(body []byte, decodeErr error) {
	if !json.Valid(body) {
		s.replyError(nil, rpcerr.ParseError, "parse error: the message is not valid JSON")
		return
	}
	p := probeEnvelope(body)
	if !p.isObject {
		s.replyError(nil, rpcerr.InvalidRequest, "invalid request: a message must be a JSON-RPC 2.0 object")
		return
	}
	if !p.method && p.id != nil {
		return // an undecodable response to one of our calls: nothing to answer
	}
	s.replyError(p.id, rpcerr.InvalidRequest, "invalid request: "+decodeErr.Error())
}

// replyError writes an error response. The id is echoed as sent when it is
// JSON no deeper than maxNesting (in UTF-8: the client's bytes need not be,
// and JSON text must), null otherwise.
func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, msg string) {
	id = bytes.ToValidUTF8(id, []byte("\uFFFD"))
	if len(id) == 0 || tooDeep(id, maxNesting) || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	reply, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, msg)})
	if err != nil {
		return
	}
	_ = s.writeFrame(reply)
}

// Write sends one message. The message types marshal themselves;
// encoding/json.Marshal would validate and compact their output once more.
// (The server's responses and notifications go through writeResponse and
// writeNotification; this is for its requests and its error replies.)
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

// writeResponse answers a request with a result, as jsonrpc2's replier
// would, encoding the result once. sizeHint is the expected size of the
// result (the request's own size, say), so that a large one is not copied
// while its buffer grows.
func (s *stream) writeResponse(id jsonrpc2.ID, result any, sizeHint int) error {
	idJSON, err := (&id).MarshalJSON()
	if err != nil {
		return err
	}
	return s.writeEncoded(sizeHint, func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","result":`...)
		b, err := appendJSON(b, result)
		if err != nil {
			return b, err
		}
		b = append(b, `,"id":`...)
		b = append(b, idJSON...)
		return append(b, '}'), nil
	})
}

// writeNotification sends a notification, encoding its params once.
func (s *stream) writeNotification(method string, params any, sizeHint int) error {
	return s.writeEncoded(sizeHint, func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","method":`...)
		b, err := appendJSON(b, method)
		if err != nil {
			return b, err
		}
		b = append(b, `,"params":`...)
		if b, err = appendJSON(b, params); err != nil {
			return b, err
		}
		return append(b, '}'), nil
	})
}

// appendJSON encodes v as jsonrpc2 does (segmentio's encoder, map keys
// sorted) but without escaping <, > and & for HTML, which makes the encoder
// copy every json.RawMessage byte by byte; the JSON means the same.
func appendJSON(b []byte, v any) ([]byte, error) {
	return wire.Append(b, v)
}

// smallBodies are the buffers small messages are encoded in.
var smallBodies = sync.Pool{New: func() any { return new([]byte) }}

func (s *stream) writeEncoded(sizeHint int, encode func([]byte) ([]byte, error)) error {
	var buf []byte
	pooled := sizeHint < largeFrame
	if pooled {
		buf = (*smallBodies.Get().(*[]byte))[:0]
	} else {
		buf = make([]byte, 0, sizeHint+4<<10)
	}
	body, err := encode(buf)
	if err == nil {
		err = s.writeFrame(body)
	}
	if pooled && cap(body) <= largeFrame {
		smallBodies.Put(&body)
	}
	if err != nil {
		return fmt.Errorf("writing message: %w", err)
	}
	return nil
}

// writeFrame writes one frame. A small one is copied after its header into
// one buffer and written with one write; a large one is written in two, so
// that it is not copied at all.
func (s *stream) writeFrame(body []byte) error {
	if len(body) >= largeFrame && s.onLarge != nil {
		defer s.onLarge()
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf.Reset()
	s.wbuf.WriteString("Content-Length: ")
	s.wbuf.WriteString(strconv.Itoa(len(body)))
	s.wbuf.WriteString("\r\n\r\n")
	if len(body) >= largeFrame {
		if _, err := s.out.Write(s.wbuf.Bytes()); err != nil {
			return err
		}
		_, err := s.out.Write(body)
		return err
	}
	s.wbuf.Write(body)
	_, err := s.out.Write(s.wbuf.Bytes())
	return err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.closer.Close() }
