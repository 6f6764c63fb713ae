package lsp_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/lsp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scripts is the absolute path of testdata/hooks.
var scripts = func() string {
	p, err := filepath.Abs("../testdata/hooks")
	if err != nil {
		panic(err)
	}
	return p
}()

// editor is a fake editor: a real jsonrpc2 client over net.Pipe that records
// every notification, answers window/showMessageRequest with answerAsk, and
// lets a test wait for what the server sends.
type editor struct {
	t        *testing.T
	conn     jsonrpc2.Conn
	home     string
	root     string
	exitCode chan int

	mu            sync.Mutex
	notifications []received
	requests      []received
	// answer decides how showMessageRequest is answered; nil answers after
	// the test calls respond (it blocks until then).
	answer  func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	pending chan pendingPrompt
	done    chan struct{} // closed at cleanup: unanswered prompts give up
	// onRequest is editorOpts.onRequest.
	onRequest func(method string, params json.RawMessage) (any, error, bool)
}

type received struct {
	Method string
	Params json.RawMessage
}

type pendingPrompt struct {
	params protocol.ShowMessageRequestParams
	reply  chan *protocol.MessageActionItem
	id     jsonrpc2.ID
}

type editorOpts struct {
	settings  string // user settings.json; $SCRIPTS is replaced
	project   string // project .wave/settings.json, if any
	initOpts  map[string]any
	caps      map[string]any // client capabilities beyond the defaults
	serverOpt lsp.Options
	noInit    bool
	progress  bool
	reuse     *editor // start on the WAVE_HOME and workspace of an earlier editor
	// onRequest answers the server's requests of other methods (the agent
	// side of wave/evaluateHook); ok false leaves the default answer.
	onRequest func(method string, params json.RawMessage) (result any, err error, ok bool)
}

// startEditor starts a server over net.Pipe and initializes it as an editor would.
func startEditor(t *testing.T, o editorOpts) *editor {
	t.Helper()
	home, root := t.TempDir(), t.TempDir()
	if o.reuse != nil {
		home, root = o.reuse.home, o.reuse.root
	}
	if o.settings != "" {
		require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(strings.ReplaceAll(o.settings, "$SCRIPTS", scripts)), 0o644))
	}
	if o.project != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(root, ".wave"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "settings.json"), []byte(strings.ReplaceAll(o.project, "$SCRIPTS", scripts)), 0o644))
	}
	serverSide, editorSide := net.Pipe()
	if o.serverOpt.Debounce == 0 {
		o.serverOpt.Debounce = 20 * time.Millisecond
	}
	srv := lsp.NewServer(o.serverOpt)
	e := &editor{t: t, home: home, root: root, exitCode: make(chan int, 1), pending: make(chan pendingPrompt, 16), done: make(chan struct{}),
		onRequest: o.onRequest}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { e.exitCode <- srv.Serve(ctx, serverSide) }()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(editorSide))
	e.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if _, isCall := req.(*jsonrpc2.Call); isCall {
			go func() { _ = e.handle(ctx, reply, req) }() // a pending prompt must not stop notifications
			return nil
		}
		_ = e.handle(ctx, reply, req) // an error here would close the connection
		return nil
	})
	t.Cleanup(func() {
		close(e.done)
		_ = e.conn.Close()
		select {
		case <-e.exitCode:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after the editor went away")
		}
		cancel()
		<-e.conn.Done()
	})
	if o.noInit {
		return e
	}
	initOpts := map[string]any{"waveHome": home}
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
	require.NoError(t, e.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": string(uri.File(root)),
		"capabilities": caps, "initializationOptions": initOpts}, &res))
	require.Equal(t, "wavehooks", res.ServerInfo.Name)
	require.NoError(t, e.conn.Notify(context.Background(), "initialized", map[string]any{}))
	// The server announces its hooks once initialized: from here on, a test
	// can count the announcements that its own changes cause.
	e.waitNotification("wave/hooksChanged", nil)
	return e
}

func (e *editor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	r := received{Method: req.Method(), Params: req.Params()}
	e.mu.Lock()
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		e.requests = append(e.requests, r)
	} else {
		e.notifications = append(e.notifications, r)
	}
	answer := e.answer
	e.mu.Unlock()
	switch req.Method() {
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		_ = json.Unmarshal(req.Params(), &p)
		if answer != nil {
			return reply(ctx, answer(p), nil)
		}
		ch := make(chan *protocol.MessageActionItem, 1)
		select {
		case e.pending <- pendingPrompt{params: p, reply: ch, id: req.(*jsonrpc2.Call).ID()}:
		case <-e.done:
			return nil
		}
		select {
		case item := <-ch:
			return reply(ctx, item, nil)
		case <-e.done:
			return nil
		}
	case protocol.MethodWorkDoneProgressCreate:
		return reply(ctx, nil, nil)
	}
	if e.onRequest != nil {
		if result, err, ok := e.onRequest(req.Method(), req.Params()); ok {
			return reply(ctx, result, err)
		}
	}
	return reply(ctx, nil, nil)
}

// call sends a request and decodes its result.
func (e *editor) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.conn.Call(ctx, method, params, result)
	return err
}

// mustCall sends a request that must succeed and returns its raw result.
func (e *editor) mustCall(method string, params any) map[string]any {
	e.t.Helper()
	var out map[string]any
	require.NoError(e.t, e.call(method, params, &out), method)
	return out
}

// waitNotification waits for a notification of method whose params satisfy match.
func (e *editor) waitNotification(method string, match func(json.RawMessage) bool) json.RawMessage {
	e.t.Helper()
	var found json.RawMessage
	require.Eventually(e.t, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, n := range e.notifications {
			if n.Method == method && (match == nil || match(n.Params)) {
				found = n.Params
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "no %s notification", method)
	return found
}

// waitNotificationAfter waits for a notification of method that satisfies
// match among those after the first since of that method: one caused by
// what the test did after counting them.
func (e *editor) waitNotificationAfter(method string, since int, match func(json.RawMessage) bool) json.RawMessage {
	e.t.Helper()
	var found json.RawMessage
	require.Eventually(e.t, func() bool {
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
	}, 10*time.Second, 5*time.Millisecond, "no new %s notification", method)
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

// nextPrompt waits for a showMessageRequest the test must answer.
func (e *editor) nextPrompt() pendingPrompt {
	e.t.Helper()
	select {
	case p := <-e.pending:
		return p
	case <-time.After(10 * time.Second):
		e.t.Fatal("no showMessageRequest")
	}
	return pendingPrompt{}
}

func (e *editor) setAnswer(f func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = f
}

// shutdown ends the session the LSP way and returns the server's exit code.
func (e *editor) shutdown() int {
	e.t.Helper()
	require.NoError(e.t, e.call("shutdown", nil, nil))
	require.NoError(e.t, e.conn.Notify(context.Background(), "exit", nil))
	select {
	case code := <-e.exitCode:
		e.exitCode <- code // for Cleanup
		return code
	case <-time.After(10 * time.Second):
		e.t.Fatal("server did not exit")
	}
	return -1
}

// startSession starts a session and returns its id and transcript path.
func (e *editor) startSession() (string, string) {
	e.t.Helper()
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

func ctx() context.Context { return context.Background() }

func rpcCode(t *testing.T, err error) jsonrpc2.Code {
	t.Helper()
	require.Error(t, err)
	var rpcErr *jsonrpc2.Error
	require.ErrorAs(t, err, &rpcErr)
	return rpcErr.Code
}
