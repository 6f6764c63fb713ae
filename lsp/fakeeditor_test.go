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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/lsp"
)

func TestMain(m *testing.M) {
	lsp.AddTestHandlers()
	goleak.VerifyTestMain(m)
}

// scripts is the absolute path of testdata/hooks.
var scripts = func() string {
	p, err := filepath.Abs("../testdata/hooks")
	if err != nil {
		panic(err)
	}
	return p
}()

// editor is the one fake editor of this package's tests and benchmarks: a
// JSON-RPC client with LSP's framing, written here so that it can check
// every frame the server writes (valid Content-Length framing, a body that
// is valid JSON and valid UTF-8, "jsonrpc":"2.0", and either a method or an
// id with exactly one of result and error; checkFrames and every test's
// cleanup fail on the first frame that is not) and still write anything a
// broken client could (write, writeRaw). It matches responses to calls by
// id, records every notification and request the server sends, answers
// window/showMessageRequest as the test says (answer, or nextPrompt one at a
// time), and the server's other requests with onRequest or null. It runs
// the server over net.Pipe, or for the benchmarks (editorOpts.bench) over
// two OS pipes with a cheaper reading of each body.
type editor struct {
	tb       testing.TB
	conn     io.ReadWriteCloser // the editor's end of the connection
	home     string             // WAVE_HOME
	root     string             // the workspace
	exitCode chan int           // gets Serve's exit code; whoever takes it puts it back

	wmu     sync.Mutex // one frame at a time
	seq     atomic.Int64
	closing atomic.Bool // the editor hung up: a frame cut off after that is its own doing

	mu            sync.Mutex
	wait          map[string]chan *message // calls waiting for their response, by id as JSON
	notifications []received
	requests      []received
	keep          bool     // keep every message the server sent in log
	bench         bool     // editorOpts.bench
	unrecorded    bool     // record no notification or request (a benchmark's editor, once initialized)
	log           [][]byte // the bodies the server sent, in order, when keep is set
	violated      error    // the first malformed frame the server sent
	silent        bool     // leave the server's requests unanswered, as an editor whose user looks away
	// answer decides how showMessageRequest is answered; nil leaves each
	// prompt to the test, which takes it with nextPrompt and answers on its
	// reply channel (the request waits until then).
	answer    func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	onRequest func(method string, params json.RawMessage) (any, error, bool) // editorOpts.onRequest
	onNotify  func(method string, params json.RawMessage)                    // editorOpts.onNotify

	pending chan pendingPrompt
	gone    chan struct{} // closed at cleanup: unanswered prompts give up
	done    chan struct{} // closed when the server's side has ended
}

// received is a notification or request the server sent.
type received struct {
	Method string
	Params json.RawMessage
	ID     json.RawMessage // a request's id, as the server wrote it
}

// message is one JSON-RPC message as the server wrote it.
type message struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc2.Error `json:"error,omitempty"`
	raw     []byte
}

type pendingPrompt struct {
	params protocol.ShowMessageRequestParams
	reply  chan *protocol.MessageActionItem
	id     json.RawMessage
}

type editorOpts struct {
	settings string // user settings.json; $SCRIPTS is replaced
	project  string // project .wave/settings.json, if any
	initOpts map[string]any
	caps     map[string]any // client capabilities beyond the defaults
	// serverOpt are the server's options. WaveHome defaults to the editor's
	// home; Debounce 0 is 20 ms, to keep tests quick, and a negative
	// Debounce leaves the server's own default.
	serverOpt lsp.Options
	noInit    bool
	progress  bool
	// home and root, when set, are the WAVE_HOME and workspace to start on
	// (an earlier editor's, say) instead of new temporary directories.
	home, root string
	// onRequest answers the server's requests of other methods (the agent
	// side of wave/evaluateHook); ok false leaves the default answer.
	onRequest func(method string, params json.RawMessage) (result any, err error, ok bool)
	// answer answers every window/showMessageRequest from the start (see setAnswer).
	answer func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	// keep keeps every message the server sends, for messages and waitResponse.
	keep bool
	// bench is the benchmarks' editor, whose cost must not show in what they
	// measure. It runs the server over two OS pipes, as `wavehooks serve`
	// runs on stdio, instead of net.Pipe; once initialized it records no
	// message (onNotify sees them); and it reads a body laid out as jsonrpc2 writes it by its
	// ends only (see readEnds): the framing, UTF-8, "jsonrpc":"2.0", and the
	// method or result or error and id are checked, but not that the values
	// in between are valid JSON, which would cost more than the server's
	// own work on a large frame (json.Valid takes 60 ms on a 20 MB response).
	bench bool
	// onNotify gets every notification on the read loop, as it arrives.
	onNotify func(method string, params json.RawMessage)
}

// dismiss answers a prompt as a user who closes it: a null result.
func dismiss(protocol.ShowMessageRequestParams) *protocol.MessageActionItem { return nil }

// startEditor starts a server and initializes it as an editor would.
func startEditor(tb testing.TB, o editorOpts) *editor {
	tb.Helper()
	home, root := o.home, o.root
	if home == "" {
		home = tb.TempDir()
	}
	if root == "" {
		root = tb.TempDir()
	}
	if o.settings != "" {
		require.NoError(tb, os.WriteFile(filepath.Join(home, "settings.json"), []byte(strings.ReplaceAll(o.settings, "$SCRIPTS", scripts)), 0o644))
	}
	if o.project != "" {
		require.NoError(tb, os.MkdirAll(filepath.Join(root, ".wave"), 0o755))
		require.NoError(tb, os.WriteFile(filepath.Join(root, ".wave", "settings.json"), []byte(strings.ReplaceAll(o.project, "$SCRIPTS", scripts)), 0o644))
	}
	if o.serverOpt.Debounce == 0 {
		o.serverOpt.Debounce = 20 * time.Millisecond
	}
	if o.serverOpt.WaveHome == "" {
		o.serverOpt.WaveHome = home
	}
	serverSide, editorSide := connect(tb, o.bench)
	e := newEditor(tb, editorSide, o)
	e.home, e.root = home, root
	ctx, cancel := context.WithCancel(context.Background())
	srv := lsp.NewServer(o.serverOpt)
	go func() { e.exitCode <- srv.Serve(ctx, serverSide) }()
	go e.readLoop()
	tb.Cleanup(func() {
		close(e.gone)
		e.hangUp()
		select {
		case code := <-e.exitCode:
			e.exitCode <- code
		case <-time.After(10 * time.Second):
			tb.Error("server did not stop after the editor went away")
		}
		cancel()
		<-e.done
		if err := e.violation(); err != nil {
			tb.Errorf("the server sent a malformed frame: %v", err)
		}
	})
	if !o.noInit {
		e.initialize(o)
	}
	e.mu.Lock()
	e.unrecorded = o.bench
	e.mu.Unlock()
	return e
}

// newEditor makes an editor on its end of a connection; its read loop is not started.
func newEditor(tb testing.TB, conn io.ReadWriteCloser, o editorOpts) *editor {
	return &editor{tb: tb, conn: conn, exitCode: make(chan int, 1),
		wait: map[string]chan *message{}, keep: o.keep, bench: o.bench, answer: o.answer, onRequest: o.onRequest, onNotify: o.onNotify,
		pending: make(chan pendingPrompt, 16), gone: make(chan struct{}), done: make(chan struct{})}
}

// connect makes the connection between server and editor.
func connect(tb testing.TB, osPipes bool) (serverSide, editorSide io.ReadWriteCloser) {
	if !osPipes {
		return net.Pipe()
	}
	toServerR, toServerW, err := os.Pipe()
	require.NoError(tb, err)
	fromServerR, fromServerW, err := os.Pipe()
	require.NoError(tb, err)
	return pipes{toServerR, fromServerW}, pipes{fromServerR, toServerW}
}

// pipes is one side of a connection over two OS pipes.
type pipes struct{ r, w *os.File }

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return errors.Join(p.r.Close(), p.w.Close()) }

// initialize initializes the server as an editor would, with o's
// capabilities and initialization options, and waits until the server has
// announced its hooks.
func (e *editor) initialize(o editorOpts) {
	e.tb.Helper()
	initOpts := map[string]any{"waveHome": e.home}
	for k, v := range o.initOpts {
		initOpts[k] = v
	}
	caps := map[string]any{}
	for k, v := range o.caps {
		caps[k] = v
	}
	if o.progress {
		caps["window"] = map[string]any{"workDoneProgress": true}
	}
	var res protocol.InitializeResult
	require.NoError(e.tb, e.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(e.root)),
		"capabilities": caps, "initializationOptions": initOpts}, &res))
	require.Equal(e.tb, "wavehooks", res.ServerInfo.Name)
	require.NoError(e.tb, e.notify("initialized", map[string]any{}))
	// The server announces its hooks once initialized: from here on, a test
	// can count the announcements that its own changes cause.
	e.waitNotification("wave/hooksChanged", nil)
}

// A frameError is a frame that breaks LSP's base protocol so that the
// stream cannot be read on; cut says the stream ended inside the frame.
type frameError struct {
	msg string
	cut bool
}

func (e *frameError) Error() string { return e.msg }

// readFrame reads one frame of LSP's base protocol and returns its body.
// What a reader can read past (a header line not ended by CRLF, a header
// other than Content-Length) goes to bad; what it cannot comes back as a
// *frameError; a stream that ends between frames returns its read error.
func readFrame(r *bufio.Reader, bad func(error)) ([]byte, error) {
	length, started := -1, false
	for {
		line, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, &frameError{msg: fmt.Sprintf("header line longer than %d bytes: %q", r.Size(), truncate(line))}
		case err != nil && (started || len(line) > 0):
			return nil, &frameError{msg: fmt.Sprintf("frame cut off in its header: %q (%v)", line, err), cut: true}
		case err != nil:
			return nil, err
		}
		started = true
		if !bytes.HasSuffix(line, []byte("\r\n")) {
			bad(fmt.Errorf("header line not ended by CRLF: %q", line))
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			break
		}
		v, ok := bytes.CutPrefix(line, []byte("Content-Length: "))
		if !ok {
			bad(fmt.Errorf("unexpected header %q", line))
			continue
		}
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 {
			return nil, &frameError{msg: fmt.Sprintf("bad Content-Length %q", v)}
		}
		length = n
	}
	if length < 0 {
		return nil, &frameError{msg: "frame without Content-Length"}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, &frameError{msg: fmt.Sprintf("body shorter than its Content-Length: %v", err), cut: true}
	}
	return body, nil
}

// appendFrame appends body, framed, to dst.
func appendFrame(dst, body []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}

func (e *editor) readLoop() {
	defer close(e.done)
	in := bufio.NewReaderSize(e.conn, 64<<10)
	for {
		body, err := readFrame(in, e.violate)
		if err != nil {
			var bad *frameError
			if errors.As(err, &bad) && !(bad.cut && e.closing.Load()) {
				e.violate(err)
			}
			return
		}
		e.receive(body)
	}
}

// receive checks one body the server sent and passes it on: a response to
// its call, a notification or request to the record and to its answer.
func (e *editor) receive(body []byte) {
	if !utf8.Valid(body) {
		e.violate(fmt.Errorf("body is not valid UTF-8: %q", truncate(body)))
		return
	}
	var m message
	if !e.bench || !readEnds(body, &m) {
		m = message{}
		if err := json.Unmarshal(body, &m); err != nil {
			e.violate(fmt.Errorf("body is not valid JSON-RPC (%v): %q", err, truncate(body)))
			return
		}
	}
	if m.Version != "2.0" {
		e.violate(fmt.Errorf(`body without "jsonrpc":"2.0": %q`, truncate(body)))
		return
	}
	m.raw = body
	e.mu.Lock()
	if e.keep {
		e.log = append(e.log, body)
	}
	if m.Method != "" {
		r := received{Method: m.Method, Params: m.Params, ID: m.ID}
		if len(m.ID) > 0 {
			if !e.unrecorded {
				e.requests = append(e.requests, r)
			}
			silent := e.silent
			e.mu.Unlock()
			if !silent {
				// Not from this loop, which must keep reading while an
				// answer waits for the test or for the server to read it.
				go e.answerRequest(r)
			}
			return
		}
		if !e.unrecorded {
			e.notifications = append(e.notifications, r)
		}
		onNotify := e.onNotify
		e.mu.Unlock()
		if onNotify != nil {
			onNotify(r.Method, r.Params)
		}
		return
	}
	if len(m.ID) == 0 || (m.Result == nil) == (m.Error == nil) {
		e.mu.Unlock()
		e.violate(fmt.Errorf("a response needs an id and exactly one of result and error: %q", truncate(body)))
		return
	}
	ch := e.wait[string(m.ID)]
	delete(e.wait, string(m.ID))
	e.mu.Unlock()
	if ch != nil {
		ch <- &m
	}
}

// readEnds fills m from a body laid out as jsonrpc2 writes messages —
// {"jsonrpc":"2.0", then "method":"…" and "params":…, or "result":…, or
// "error":…, then a numeric "id" last if there is one} — reading only its
// ends, and reports whether the body has that layout. With valid JSON the
// id it finds is the object's own: nothing but the closing brace follows.
func readEnds(body []byte, m *message) bool {
	rest, ok := bytes.CutPrefix(body, []byte(`{"jsonrpc":"2.0",`))
	if !ok || !bytes.HasSuffix(rest, []byte("}")) {
		return false
	}
	rest = rest[:len(rest)-1]
	// An int64 id and its key take at most 26 bytes: look no further back.
	tail := len(rest) - min(len(rest), 26)
	if i := bytes.LastIndex(rest[tail:], []byte(`,"id":`)); i >= 0 {
		i += tail
		if _, err := strconv.ParseInt(string(rest[i+len(`,"id":`):]), 10, 64); err == nil {
			m.ID, rest = rest[i+len(`,"id":`):], rest[:i]
		}
	}
	if v, ok := bytes.CutPrefix(rest, []byte(`"method":"`)); ok {
		end := bytes.IndexByte(v, '"')
		if end < 0 || bytes.IndexByte(v[:end], '\\') >= 0 {
			return false
		}
		m.Method, rest = string(v[:end]), v[end+1:]
		if len(rest) > 0 {
			if m.Params, ok = bytes.CutPrefix(rest, []byte(`,"params":`)); !ok {
				return false
			}
		}
	} else if v, ok := bytes.CutPrefix(rest, []byte(`"result":`)); ok && m.ID != nil {
		m.Result = v
	} else if v, ok := bytes.CutPrefix(rest, []byte(`"error":`)); ok && m.ID != nil {
		if json.Unmarshal(v, &m.Error) != nil {
			return false
		}
	} else {
		return false
	}
	m.Version = "2.0"
	return true
}

// answerRequest answers one request of the server as the test set up.
func (e *editor) answerRequest(r received) {
	switch r.Method {
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(r.Params, &p)
		e.mu.Lock()
		answer := e.answer
		e.mu.Unlock()
		if answer != nil {
			e.reply(r.ID, answer(p), nil)
			return
		}
		ch := make(chan *protocol.MessageActionItem, 1)
		select {
		case e.pending <- pendingPrompt{params: p, reply: ch, id: r.ID}:
		case <-e.gone:
			return
		}
		select {
		case item := <-ch:
			e.reply(r.ID, item, nil)
		case <-e.gone:
		}
		return
	case protocol.MethodWorkDoneProgressCreate:
		e.reply(r.ID, nil, nil)
		return
	}
	if e.onRequest != nil {
		if result, err, ok := e.onRequest(r.Method, r.Params); ok {
			e.reply(r.ID, result, err)
			return
		}
	}
	e.reply(r.ID, nil, nil)
}

// reply answers the server's request id with result, or with err (a
// *jsonrpc2.Error keeps its code).
func (e *editor) reply(id json.RawMessage, result any, err error) {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,`, id)
	if err == nil {
		r, merr := json.Marshal(result)
		if merr != nil {
			err = merr
		} else {
			body = fmt.Appendf(body, `"result":%s}`, r)
		}
	}
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc2.NewError(jsonrpc2.UnknownError, err.Error())
		}
		b, _ := json.Marshal(rpcErr)
		body = fmt.Appendf(body, `"error":%s}`, b)
	}
	_ = e.write(body)
}

func truncate(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// violate records a frame that breaks the protocol; the first one counts.
func (e *editor) violate(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.violated == nil {
		e.violated = err
	}
}

func (e *editor) violation() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.violated
}

// checkFrames fails the test if the server sent a malformed frame so far.
func (e *editor) checkFrames(tb testing.TB) {
	tb.Helper()
	if err := e.violation(); err != nil {
		tb.Fatalf("the server sent a malformed frame: %v", err)
	}
}

// write sends body as one frame; it fails only when the server is gone.
func (e *editor) write(body []byte) error {
	return e.writeRaw(appendFrame(make([]byte, 0, len(body)+32), body))
}

// writeRaw writes bytes as they are: a frame, part of one, or garbage.
// Over net.Pipe it gives up after 20 s: the server stopped reading.
func (e *editor) writeRaw(b []byte) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	if d, ok := e.conn.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Now().Add(20 * time.Second))
	}
	_, err := e.conn.Write(b)
	return err
}

// sendBytes writes bytes as they are, for the tests of what a
// well-behaved client never sends.
func (e *editor) sendBytes(b []byte) { _ = e.writeRaw(b) }

// send writes msg, any JSON value, as one frame.
func (e *editor) send(msg any) {
	b, err := json.Marshal(msg)
	require.NoError(e.tb, err)
	_ = e.write(b)
}

// notify sends a notification.
func (e *editor) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return e.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, p))
}

// call sends a request and decodes its result into result (unless nil); a
// JSON-RPC error comes back as *jsonrpc2.Error.
func (e *editor) call(method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	m, err := e.callRaw(method, p, 60*time.Second)
	if err != nil {
		return err
	}
	if m.Error != nil {
		return m.Error
	}
	if result != nil {
		return json.Unmarshal(m.Result, result)
	}
	return nil
}

// callRaw sends a request whose params are the given JSON text (none if
// nil) and waits up to timeout for its response.
func (e *editor) callRaw(method string, params json.RawMessage, timeout time.Duration) (*message, error) {
	id := strconv.AppendInt(nil, e.seq.Add(1), 10)
	ch := make(chan *message, 1)
	e.mu.Lock()
	e.wait[string(id)] = ch
	e.mu.Unlock()
	body := make([]byte, 0, 64+len(method)+len(params))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":`...)
	body = strconv.AppendQuote(body, method)
	if params != nil {
		body = append(body, `,"params":`...)
		body = append(body, params...)
	}
	body = append(body, '}')
	if err := e.write(body); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-ch:
		return m, nil
	case <-e.done:
		// The response may have been read just before the end.
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		return nil, fmt.Errorf("%s: the server closed the connection", method)
	case <-t.C:
		return nil, fmt.Errorf("%s: no response within %s", method, timeout)
	}
}

// mustCall sends a request that must succeed and returns its raw result.
func (e *editor) mustCall(method string, params any) map[string]any {
	e.tb.Helper()
	var out map[string]any
	require.NoError(e.tb, e.call(method, params, &out), method)
	return out
}

// hangUp closes the editor's end of the connection, as an editor that goes away.
func (e *editor) hangUp() {
	e.closing.Store(true)
	_ = e.conn.Close()
}

// close hangs up and returns the server's exit code, failing the test if
// the server has not ended within limit.
func (e *editor) close(limit time.Duration) int {
	e.tb.Helper()
	e.hangUp()
	select {
	case code := <-e.exitCode:
		e.exitCode <- code
		return code
	case <-time.After(limit):
		e.tb.Fatalf("the server did not stop within %s after the editor went away", limit)
	}
	return -1
}

// shutdown ends the session the LSP way and returns the server's exit code.
func (e *editor) shutdown() int {
	e.tb.Helper()
	require.NoError(e.tb, e.call("shutdown", nil, nil))
	require.NoError(e.tb, e.notify("exit", nil))
	select {
	case code := <-e.exitCode:
		e.exitCode <- code // for Cleanup
		return code
	case <-time.After(10 * time.Second):
		e.tb.Fatal("server did not exit")
	}
	return -1
}

// beSilent makes the editor leave the server's requests unanswered from
// now on, as an editor whose user looks away.
func (e *editor) beSilent() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.silent = true
}

func (e *editor) setAnswer(f func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = f
}

// nextPrompt waits for a showMessageRequest the test must answer.
func (e *editor) nextPrompt() pendingPrompt {
	e.tb.Helper()
	select {
	case p := <-e.pending:
		return p
	case <-time.After(10 * time.Second):
		e.tb.Fatal("no showMessageRequest")
	}
	return pendingPrompt{}
}

// waitNotification waits for a notification of method whose params satisfy match.
func (e *editor) waitNotification(method string, match func(json.RawMessage) bool) json.RawMessage {
	e.tb.Helper()
	return e.waitNotificationAfter(method, 0, match)
}

// waitNotificationAfter waits for a notification of method that satisfies
// match among those after the first since of that method: one caused by
// what the test did after counting them.
func (e *editor) waitNotificationAfter(method string, since int, match func(json.RawMessage) bool) json.RawMessage {
	e.tb.Helper()
	var found json.RawMessage
	require.Eventually(e.tb, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		seen := 0
		for _, n := range e.notifications {
			if n.Method != method {
				continue
			}
			seen++
			if seen > since && (match == nil || match(n.Params)) {
				found = n.Params
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "no %s notification after the first %d", method, since)
	return found
}

// countNotifications counts notifications of method whose params contain substr.
func (e *editor) countNotifications(method, substr string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.notifications {
		if x.Method == method && strings.Contains(string(x.Params), substr) {
			n++
		}
	}
	return n
}

// countRequests counts the requests the server sent of method.
func (e *editor) countRequests(method string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.requests {
		if x.Method == method {
			n++
		}
	}
	return n
}

// messages are the messages the server sent so far, decoded (keep must be set).
func (e *editor) messages() []map[string]any {
	e.mu.Lock()
	bodies := e.log
	e.mu.Unlock()
	out := make([]map[string]any, 0, len(bodies))
	for _, b := range bodies {
		var m map[string]any
		require.NoError(e.tb, json.Unmarshal(b, &m))
		out = append(out, m)
	}
	return out
}

// receivedCount is how many messages the server has sent so far (keep must be set).
func (e *editor) receivedCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.log)
}

// waitResponse waits for the response with this id (compared as JSON),
// any id a test wrote itself, null and objects included (keep must be set).
func (e *editor) waitResponse(id any) map[string]any {
	e.tb.Helper()
	return e.waitResponseAfter(0, id)
}

// waitResponseAfter waits for a response with this id among the messages
// after the first since, for ids that repeat (null).
func (e *editor) waitResponseAfter(since int, id any) map[string]any {
	e.tb.Helper()
	want, _ := json.Marshal(id)
	var found map[string]any
	require.Eventually(e.tb, func() bool {
		for _, m := range e.messages()[since:] {
			if _, isReq := m["method"]; isReq {
				continue
			}
			got, _ := json.Marshal(m["id"])
			if string(got) == string(want) {
				found = m
				return true
			}
		}
		return false
	}, 20*time.Second, 5*time.Millisecond, "no response with id %s", want)
	return found
}

// startSession starts a session and returns its id and transcript path.
func (e *editor) startSession() (string, string) {
	e.tb.Helper()
	r := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	return r["sessionId"].(string), r["transcriptPath"].(string)
}

// hookSettings configures hooks by event: each value is a list of commands.
func hookSettings(byEvent map[string][]string) string {
	h := map[string]any{}
	for ev, cmds := range byEvent {
		var list []any
		for _, c := range cmds {
			list = append(list, map[string]any{"type": "command", "command": c})
		}
		h[ev] = []any{map[string]any{"hooks": list}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": h})
	return string(b)
}

func rpcCode(t *testing.T, err error) jsonrpc2.Code {
	t.Helper()
	require.Error(t, err)
	var rpcErr *jsonrpc2.Error
	require.ErrorAs(t, err, &rpcErr)
	return rpcErr.Code
}

// TestFakeEditorFindsMalformedFrames feeds the fake editor's reader what a
// broken server could write: each must be reported, and a good frame not.
// The benchmarks' editor reads only a body's ends, so it is held to the
// checks that needs (see editorOpts.bench).
func TestFakeEditorFindsMalformedFrames(t *testing.T) {
	cases := []struct {
		name, sent string
		want       string // in the violation; "" for none
		benchToo   bool   // the benchmarks' editor finds it too
	}{
		{"a notification", frame(`{"jsonrpc":"2.0","method":"x","params":{"id":1}}`), "", true},
		{"a request", frame(`{"jsonrpc":"2.0","method":"x","params":[],"id":3}`), "", true},
		{"a response", frame(`{"jsonrpc":"2.0","result":null,"id":3}`), "", true},
		{"an error", frame(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"},"id":"a"}`), "", true},
		{"header ended by LF", "Content-Length: 2\n\r\n{}", "not ended by CRLF", true},
		{"other header", "Content-Type: x\r\n" + frame(`{"jsonrpc":"2.0","method":"x"}`), "unexpected header", true},
		{"bad length", "Content-Length: x\r\n\r\n", "bad Content-Length", true},
		{"no length", "\r\n{}", "frame without Content-Length", true},
		{"cut in the header", "Content-Len", "cut off in its header", true},
		{"cut after a header line", "Content-Length: 2\r\n", "cut off in its header", true},
		{"cut in the body", "Content-Length: 10\r\n\r\n{}", "body shorter", true},
		{"not UTF-8", frame("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}"), "not valid UTF-8", true},
		{"not JSON", frame(`{"jsonrpc":"2.0","method":"x"`), "not valid JSON-RPC", true},
		{"not 2.0", frame(`{"jsonrpc":"1.0","method":"x"}`), `without "jsonrpc":"2.0"`, true},
		{"a response without an id", frame(`{"jsonrpc":"2.0","result":1}`), "needs an id", true},
		{"a response with neither", frame(`{"jsonrpc":"2.0","id":1}`), "exactly one of result and error", true},
		{"a response with both", frame(`{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":1}`), "exactly one of result and error", false},
		{"a bad value inside", frame(`{"jsonrpc":"2.0","result":{"a":},"id":1}`), "not valid JSON-RPC", false},
	}
	for _, c := range cases {
		for _, bench := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bench=%v", c.name, bench), func(t *testing.T) {
				server, client := net.Pipe()
				e := newEditor(t, client, editorOpts{bench: bench})
				go e.readLoop()
				_, err := server.Write([]byte(c.sent))
				require.NoError(t, err)
				require.NoError(t, server.Close()) // the server ends: what was cut stays cut
				<-e.done
				require.NoError(t, client.Close())
				got := e.violation()
				if c.want == "" || (bench && !c.benchToo) {
					require.NoError(t, got)
					return
				}
				require.ErrorContains(t, got, c.want)
			})
		}
	}
}

// TestFakeEditorReadsEndsAsJSONDoes: what the benchmarks' editor reads from
// a body's ends is what decoding the whole body gives.
func TestFakeEditorReadsEndsAsJSONDoes(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"wave/hookRun","params":{"x":[1,{"id":2}],"id":5}}`,
		`{"jsonrpc":"2.0","method":"window/showMessageRequest","params":{"message":"a,\"id\":7"},"id":12}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
		`{"jsonrpc":"2.0","result":{"permission":"allow","id":"x"},"id":3}`,
		`{"jsonrpc":"2.0","result":null,"id":-4}`,
		`{"jsonrpc":"2.0","error":{"code":-32602,"message":"invalid params","data":{"a":1}},"id":9}`,
	} {
		var ends, whole message
		require.True(t, readEnds([]byte(body), &ends), body)
		require.NoError(t, json.Unmarshal([]byte(body), &whole))
		require.Equal(t, whole, ends, body)
	}
	for _, body := range []string{
		`{"id":1,"jsonrpc":"2.0","result":1}`, // another order: decoded whole
		`{"jsonrpc":"2.0","result":1,"id":"s"}`,
		`{"jsonrpc":"2.0","method":"a\"b"}`,
	} {
		require.False(t, readEnds([]byte(body), &message{}), body)
	}
}
