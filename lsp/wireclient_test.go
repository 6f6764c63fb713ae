package lsp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// wireClient is a minimal JSON-RPC client for the fuzz, fault and load
// tests: it writes frames, matches responses to calls by id, answers the
// server's requests with a null result, and checks every frame the server
// sends: valid Content-Length framing, a body that is valid JSON and valid
// UTF-8, "jsonrpc":"2.0", and either a method or an id with exactly one of
// result and error.
type wireClient struct {
	tb   testing.TB
	conn io.ReadWriteCloser

	wmu sync.Mutex
	seq atomic.Int64

	mu       sync.Mutex
	wait     map[string]chan wireMsg
	notes    map[string]int // notifications received, by method
	silent   bool           // leave the server's requests unanswered, as an editor whose user looks away
	keep     bool           // keep every message in log (the raw tests look through them)
	log      [][]byte       // the bodies the server sent, in order, when keep is set
	violated error          // the first malformed frame the server sent

	done chan struct{} // closed when the server's side ends
}

type wireMsg struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
	raw     []byte
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *wireError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

func newWireClient(tb testing.TB, conn io.ReadWriteCloser) *wireClient {
	c := &wireClient{tb: tb, conn: conn, wait: map[string]chan wireMsg{}, notes: map[string]int{}, done: make(chan struct{})}
	go c.readLoop()
	return c
}

// startWireServer runs a server over net.Pipe with WAVE_HOME home and
// returns the client and a channel that gets Serve's exit code.
func startWireServer(tb testing.TB, home string) (*wireClient, chan int) {
	serverSide, clientSide := net.Pipe()
	exit := make(chan int, 1)
	go func() { exit <- lsp.NewServer(lsp.Options{WaveHome: home}).Serve(context.Background(), serverSide) }()
	return newWireClient(tb, clientSide), exit
}

// initialize initializes the server for the project root and WAVE_HOME home.
func (c *wireClient) initialize(root, home string) error {
	if _, err := c.call("initialize", map[string]any{"processId": nil, "rootUri": string(uri.File(root)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": home}}); err != nil {
		return err
	}
	return c.notify("initialized", map[string]any{})
}

// beSilent makes the client leave the server's requests unanswered from now
// on, as an editor whose user looks away. The read loop may already be
// reading (the server announces its hooks once initialized), hence the lock.
func (c *wireClient) beSilent() {
	c.mu.Lock()
	c.silent = true
	c.mu.Unlock()
}

func (c *wireClient) readLoop() {
	defer close(c.done)
	in := bufio.NewReader(c.conn)
	for {
		length := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				if line != "" {
					c.violation(fmt.Errorf("frame cut off in its header: %q", line))
				}
				return
			}
			if !bytes.HasSuffix([]byte(line), []byte("\r\n")) {
				c.violation(fmt.Errorf("header line not ended by CRLF: %q", line))
			}
			line = line[:len(line)-len("\r\n")]
			if line == "" {
				break
			}
			v, ok := bytes.CutPrefix([]byte(line), []byte("Content-Length: "))
			if !ok {
				c.violation(fmt.Errorf("unexpected header %q", line))
				continue
			}
			n, err := strconv.Atoi(string(v))
			if err != nil || n < 0 {
				c.violation(fmt.Errorf("bad Content-Length %q", v))
				return
			}
			length = n
		}
		if length < 0 {
			c.violation(errors.New("frame without Content-Length"))
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(in, body); err != nil {
			c.violation(fmt.Errorf("body shorter than its Content-Length: %v", err))
			return
		}
		c.received(body)
	}
}

func (c *wireClient) received(body []byte) {
	var m wireMsg
	switch {
	case !utf8.Valid(body):
		c.violation(fmt.Errorf("body is not valid UTF-8: %q", truncate(body)))
		return
	case json.Unmarshal(body, &m) != nil:
		c.violation(fmt.Errorf("body is not valid JSON: %q", truncate(body)))
		return
	case m.Version != "2.0":
		c.violation(fmt.Errorf(`body without "jsonrpc":"2.0": %q`, truncate(body)))
		return
	}
	m.raw = body
	c.mu.Lock()
	if c.keep {
		c.log = append(c.log, body)
	}
	c.mu.Unlock()
	if m.Method != "" {
		c.mu.Lock()
		if len(m.ID) > 0 && !c.silent {
			// A request of the server: answer as a plain editor would, and
			// not from this loop, which must keep reading while a write waits.
			answer := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":null}`, m.ID)
			go func() { _ = c.write(answer) }()
		}
		c.notes[m.Method]++
		c.mu.Unlock()
		return
	}
	if len(m.ID) == 0 || (m.Result == nil) == (m.Error == nil) {
		c.violation(fmt.Errorf("a response needs an id and exactly one of result and error: %q", truncate(body)))
		return
	}
	c.mu.Lock()
	ch := c.wait[string(m.ID)]
	delete(c.wait, string(m.ID))
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

func truncate(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

func (c *wireClient) violation(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.violated == nil {
		c.violated = err
	}
}

// checkFrames fails the test if the server ever sent a malformed frame.
func (c *wireClient) checkFrames(tb testing.TB) {
	tb.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.violated != nil {
		tb.Fatalf("the server sent a malformed frame: %v", c.violated)
	}
}

// write sends one frame; it fails only when the server is gone.
func (c *wireClient) write(body []byte) error {
	frame := fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return c.writeRaw(frame)
}

func (c *wireClient) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if d, ok := c.conn.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Now().Add(20 * time.Second))
	}
	_, err := c.conn.Write(b)
	return err
}

func (c *wireClient) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, p))
}

// call sends a request and waits for its response; a JSON-RPC error is
// returned as *wireError.
func (c *wireClient) call(method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m, err := c.callRaw(method, p, 60*time.Second)
	if err != nil {
		return nil, err
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// callRaw sends a request whose params are the given JSON text and waits
// up to timeout for its response.
func (c *wireClient) callRaw(method string, params json.RawMessage, timeout time.Duration) (wireMsg, error) {
	id := strconv.FormatInt(c.seq.Add(1), 10)
	ch := make(chan wireMsg, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q`, id, method)
	if params != nil {
		body = fmt.Appendf(body, `,"params":%s`, params)
	}
	body = append(body, '}')
	if err := c.write(body); err != nil {
		return wireMsg{}, fmt.Errorf("%s: %w", method, err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-ch:
		return m, nil
	case <-c.done:
		// The response may have been read just before the end.
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		return wireMsg{}, fmt.Errorf("%s: the server closed the connection", method)
	case <-t.C:
		return wireMsg{}, fmt.Errorf("%s: no response within %s", method, timeout)
	}
}

// notifications counts the notifications of a method received so far.
func (c *wireClient) notifications(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notes[method]
}

// close ends the client's side and waits until the server's exit code
// arrives on exit, failing the test after limit.
func (c *wireClient) close(exit chan int, limit time.Duration) int {
	c.tb.Helper()
	_ = c.conn.Close()
	select {
	case code := <-exit:
		exit <- code
		return code
	case <-time.After(limit):
		c.tb.Fatalf("the server did not stop within %s after the editor went away", limit)
	}
	return -1
}
