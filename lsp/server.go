package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/telemetry"
	"github.com/wavehooks/wavehooks/internal/trust"
	"github.com/wavehooks/wavehooks/internal/wire"
	"github.com/wavehooks/wavehooks/session"
	"github.com/wavehooks/wavehooks/watcher"
)

// Options configure a server. Zero values mean the documented defaults.
type Options struct {
	// WaveHome is the default $WAVE_HOME; initializationOptions.waveHome overrides it.
	WaveHome string
	// ClaudeHome is ~/.claude, read when importClaudeHooks is set.
	ClaudeHome string
	// AgentHomes are ~/.gemini, ~/.codex and ~/.cursor, read for the agents
	// importAgentHooks names (settings.DefaultAgentHomes).
	AgentHomes map[agentfmt.Agent]string
	// ManagedFile is the managed (policy) settings file; "" reads none
	// (wavehooks serve passes settings.DefaultManagedFile()).
	ManagedFile string
	// ClaudeManagedDir is Claude Code's managed settings directory
	// (settings.Paths.ClaudeManagedDir); "" reads none.
	ClaudeManagedDir string
	// TrustWorkspace trusts the workspace's own hooks without asking (--trust-workspace).
	TrustWorkspace bool
	// AskTimeout is how long a PreToolUse "ask" waits for the user before denying
	// (300 s); more than 24 hours is clamped to 24 hours.
	AskTimeout time.Duration
	// ProgressDelay is how long hooks run before the editor shows progress (0.5 s).
	ProgressDelay time.Duration
	// Debounce is the settings-file watcher's debounce (50 ms).
	Debounce time.Duration
	// HistorySize bounds the hook-run history (500).
	HistorySize int
	// Logger receives the server's log; it must not write to stdout.
	Logger *slog.Logger
	// Version is reported in serverInfo.
	Version string
}

// hostConfig is the configuration the server shares with every host.
func (o *Options) hostConfig(log *slog.Logger) host.Config {
	return host.Config{WaveHome: o.WaveHome, ClaudeHome: o.ClaudeHome, ManagedFile: o.ManagedFile, ClaudeManagedDir: o.ClaudeManagedDir, AgentHomes: o.AgentHomes,
		TrustWorkspace: o.TrustWorkspace, HistorySize: o.HistorySize, Logger: log}
}

func (o *Options) setDefaults() {
	if o.AskTimeout <= 0 {
		o.AskTimeout = 300 * time.Second
	}
	o.AskTimeout = min(o.AskTimeout, maxAskTimeoutSeconds*time.Second)
	if o.ProgressDelay <= 0 {
		o.ProgressDelay = 500 * time.Millisecond
	}
	if o.Debounce <= 0 {
		o.Debounce = 50 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// serverState is where the server is in the LSP lifecycle.
type serverState int

const (
	stateStarting     serverState = iota // before initialize
	stateInitializing                    // initialize answered, initialized not yet received
	stateRunning                         // initialized
	stateShuttingDown                    // shutdown received; only exit is accepted
)

// String names the state for logs.
func (s serverState) String() string {
	switch s {
	case stateStarting:
		return "starting"
	case stateInitializing:
		return "initializing"
	case stateRunning:
		return "running"
	case stateShuttingDown:
		return "shutting down"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Server is the wavehooks language server: it hosts agent sessions for an
// editor, runs their hooks, and shows what the hooks said.
type Server struct {
	opts Options
	log  *slog.Logger
	// hostEvents are the events the agent host said it fires
	// (initializationOptions.hostEvents); nil when it did not say.
	hostEvents map[event.Event]bool

	conn    jsonrpc2.Conn
	stream  *stream         // the conn's; responses and notifications are written to it directly
	memory  memoryRelease   // returns memory to the OS after large frames
	connCtx context.Context // cancelled when the connection ends; every outbound call derives from it
	workers *requestWorkers // the goroutines requests run on
	stopCtx context.CancelFunc
	// connected is set once conn and connCtx are, so the log can reach the editor.
	connected atomic.Bool
	handlers  sync.WaitGroup

	stateMu sync.Mutex
	state   serverState
	// initClaimed is set while an initialize request runs, so that a second
	// one sent at the same time is refused rather than run beside it.
	initClaimed bool
	// stopping is set when Serve begins to wait for s.handlers: no work
	// may start after it (a watcher's callback, a reload, a request).
	stopping bool
	exitCode int
	exited   chan struct{}

	// Set by initialize, read-only afterwards.
	root         string
	waveHome     string
	progress     bool            // the client shows work-done progress
	lensRefresh  bool            // the client re-asks for code lenses on workspace/codeLens/refresh
	paths        settings.Paths  // the settings files of root, with waveHome
	ws           *host.Workspace // the workspace: engine, store and trust below are its
	engine       *hooks.Engine
	store        *session.Store
	trust        *trust.TrustStore
	reloadMu     sync.Mutex   // one reload (load, decide trust, install) at a time; guards watch's script registrations
	installMu    sync.RWMutex // written around an install; read while a request is answered on the read loop (inlineRequest)
	trustPrompt  sync.Mutex   // one trust prompt at a time; guards trustAsked
	trustAsked   string       // the hash the user last answered the prompt for
	trustWanted  atomic.Bool  // a prompt may be needed: set by every reload, cleared by the asker
	host         *host.Host   // what every host shares; history is its run history
	history      *hooks.History
	watch        *watcher.Watcher
	asks         *askBook
	inflight     *inflight
	diagnostics  *diagnosticSet
	docs         *documents
	progressTask *progressTasks
	announced    *announcements
	observed     *observedState   // events the server fires itself (observed.go)
	evals        evaluations      // wave/evaluateHook calls waiting for a late answer
	testDiags    *testDiagnostics // the failing hook test cases per case file (handle_hooktests.go)
	runFeedMu    sync.Mutex
	runFeed      *runLogFeed // other processes' runs, from the run log (runlogfeed.go)
	// runLogWriter is the id on the run log's lines this server wrote
	// (hooks.RunRecord.Writer), set at initialize.
	runLogWriter string
	// telemetry exports every run when OTLP export is configured (nil
	// otherwise); started at initialize, stopped when Serve ends.
	telemetry *telemetry.Exporter
	// audit is the audit log (internal/audit), set at initialize: the runs
	// reach it through the history; the answers to asks through ask.
	audit   atomic.Pointer[audit.Log]
	toggled sync.Map // settings path → the text wave.toggleHook last replaced there (handle_hooktoggle.go)
}

// NewServer returns a server with the given options.
func NewServer(opts Options) *Server {
	opts.setDefaults()
	s := &Server{
		opts:         opts,
		exited:       make(chan struct{}),
		asks:         newAskBook(),
		inflight:     newInflight(),
		diagnostics:  newDiagnosticSet(),
		docs:         newDocuments(),
		progressTask: newProgressTasks(),
		announced:    newAnnouncements(),
		observed:     newObservedState(),
		testDiags:    newTestDiagnostics(),
	}
	s.log = slog.New(&clientLog{Handler: opts.Logger.Handler(), s: s})
	s.host = host.New(opts.hostConfig(s.log))
	s.history = s.host.History
	return s
}

// Serve speaks JSON-RPC over rwc until the client sends exit or goes away,
// and returns the process exit code LSP prescribes: 0 after shutdown + exit,
// 1 otherwise. Every pending ask is denied and every running hook killed
// before it returns.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	s.stream = newStream(rwc)
	s.stream.onLarge = s.memory.touch
	s.conn = jsonrpc2.NewConn(s.stream)
	s.connCtx, s.stopCtx = context.WithCancel(ctx)
	s.connected.Store(true)
	s.workers = newRequestWorkers()
	s.conn.Go(s.connCtx, s.handle)
	select {
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
			s.log.Warn("connection ended", "err", err)
		}
	case <-s.exited:
	case <-ctx.Done():
	}
	s.stopCtx()
	s.asks.denyAll("the editor disconnected")
	s.inflight.cancelAll()
	_ = s.conn.Close()
	select {
	case <-s.conn.Done():
	case <-time.After(time.Second):
		// A read blocked on a terminal or inherited stdin cannot be
		// interrupted by Close; the process is about to exit anyway.
	}
	s.stateMu.Lock()
	s.stopping = true // under stateMu: no enterWork can Add after this, so Wait is final
	s.stateMu.Unlock()
	s.handlers.Wait()
	s.workers.stop() // idle now: every request has ended
	s.memory.stop()
	if s.engine != nil {
		s.engine.Close() // async hooks still running are killed
	}
	if s.watch != nil {
		_ = s.watch.Close()
	}
	s.stopRunLogFeed()
	s.history.Flush() // the run log's lines and the audit records written behind the answers
	if s.store != nil {
		if err := s.store.Close(); err != nil {
			s.log.Warn("closing sessions", "err", err)
		}
	}
	telemetry.Stop(s.telemetry) // the runs still queued are sent, within its bound
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	select {
	case <-s.exited:
		return s.exitCode
	default:
		return 1
	}
}

// enterWork registers work with the handlers Serve waits for before it
// closes the engine, the store and the watcher; it is false once Serve has
// begun to stop, and then the work must not start. Every goroutine and
// callback that touches them enters here — requests, watcher callbacks,
// reloads — and calls s.handlers.Done when it ends.
func (s *Server) enterWork() bool {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if s.stopping {
		return false
	}
	s.handlers.Add(1)
	return true
}

// background runs f on its own goroutine as work Serve waits for, unless
// the server is stopping.
func (s *Server) background(f func()) {
	if !s.enterWork() {
		return
	}
	go func() {
		defer s.handlers.Done()
		f()
	}()
}

// handler is one method's implementation. Requests get call; notifications
// get notify, which runs on the read loop so notifications stay ordered and
// must therefore never wait for the client.
type handler struct {
	call   func(s *Server, ctx context.Context, params json.RawMessage) (any, error)
	notify func(s *Server, ctx context.Context, params json.RawMessage)
	// anyState lets the method run before initialize (initialize itself).
	anyState bool
	// inlineEvent, when set, is the event a request of the method fires and
	// nothing else it does can wait: with no hook configured for that event
	// it is answered on the read loop (inlineRequest).
	inlineEvent event.Event
}

// request adapts a typed request handler: it decodes the params, naming the
// field that did not decode, and calls f.
func request[P any, R any](f func(s *Server, ctx context.Context, p *P) (R, error)) handler {
	return handler{call: func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return f(s, ctx, &p)
	}}
}

// notification adapts a typed notification handler; undecodable params are logged and dropped.
func notification[P any](f func(s *Server, ctx context.Context, p *P)) handler {
	return handler{notify: func(s *Server, ctx context.Context, raw json.RawMessage) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			s.log.Warn("dropping notification with bad params", "err", err)
			return
		}
		f(s, ctx, &p)
	}}
}

// decodeParams decodes with segmentio's decoder (the one jsonrpc2 uses,
// several times faster than encoding/json on the request path); on an
// error it decodes again with encoding/json, whose errors name the field.
func decodeParams(raw json.RawMessage, p any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	// raw is a slice of the frame the stream read, which stays as it is:
	// json.RawMessage fields (a 100 MB tool input) can point into it.
	if unmarshalNoCopy(raw, p) == nil {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return badParam(te.Field, "must be %s, not %s", rawjson.KindOf(te.Type), te.Value)
		}
		return badParam("", "%v", err)
	}
	return nil
}

// handle dispatches one incoming message. It never returns an error: an
// error from a jsonrpc2 handler closes the connection. It runs on the read
// loop, where a panic would end the process: one is logged and the message
// dropped (a request still gets its answer from run).
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	method, params := req.Method(), s.stream.takeParams(req)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("dropped a message whose handling panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	call, isCall := req.(*jsonrpc2.Call)
	switch method {
	case "$/cancelRequest":
		s.cancelRequest(params)
		return nil
	case "exit":
		s.exit()
		return nil
	}
	h, known := handlers[method]
	if !isCall {
		if known && h.notify != nil && s.getState() >= stateInitializing {
			h.notify(s, ctx, params)
		}
		return nil // unknown notifications are ignored, as LSP says
	}
	if !known || h.call == nil {
		s.refuse(ctx, reply, method, jsonrpc2.NewError(rpcerr.MethodNotFound, fmt.Sprintf("method not found: %q", method)))
		return nil
	}
	switch st := s.getState(); {
	case st == stateStarting && !h.anyState:
		s.refuse(ctx, reply, method, jsonrpc2.NewError(rpcerr.ServerNotInitialized, fmt.Sprintf("%s before initialize", method)))
		return nil
	case st == stateShuttingDown:
		s.refuse(ctx, reply, method, jsonrpc2.NewError(rpcerr.InvalidRequest, fmt.Sprintf("%s after shutdown", method)))
		return nil
	}
	// Requests run concurrently: a pending ask must not hold up anything else.
	if !s.enterWork() {
		s.refuse(ctx, reply, method, jsonrpc2.NewError(rpcerr.InvalidRequest, fmt.Sprintf("%s while the server stops", method)))
		return nil
	}
	reqCtx, cancel := context.WithCancel(s.connCtx)
	after := &afterReply{}
	reqCtx = context.WithValue(reqCtx, afterReplyKey{}, after)
	s.inflight.add(call.ID(), cancel)
	answer := func() {
		defer s.handlers.Done()
		defer cancel()
		defer s.inflight.remove(call.ID())
		defer func() {
			if p := recover(); p != nil { // in the reply or what follows it: the handler's own is caught by run
				s.log.Error("request panicked after its handler", "method", method, "panic", p, "stack", string(debug.Stack()))
			}
		}()
		result, err := s.run(reqCtx, h, method, params)
		params = nil // a large request's frame can go before the response is encoded
		if s.inflight.wasCancelled(call.ID()) {
			result, err = nil, context.Canceled // LSP: a cancelled request answers RequestCancelled
		}
		var rerr error
		if err != nil {
			rerr = reply(reqCtx, nil, toRPCError(err))
		} else {
			// What jsonrpc2's replier does, without marshalling the result twice.
			rerr = s.stream.writeResponse(call.ID(), result, wire.SizeHint(result))
		}
		if rerr != nil {
			s.log.Debug("reply not sent", "method", method, "err", rerr)
		}
		result = nil
		after.run()
	}
	if s.inlineRequest(h, params) {
		answer()
		s.installMu.RUnlock()
		return nil
	}
	s.workers.run(answer)
	return nil
}

// maxInlineParams is the largest request inlineRequest answers on the read
// loop: a larger tool input takes long to check and record, and the other
// messages would wait for it.
const maxInlineParams = 16 << 10

// inlineRequest reports whether a request of h is answered on the read
// loop instead of on a worker: handing it to a worker (waking another
// goroutine, often on the other CPU) cost a sequential agent's no-hook
// tool call more than a tenth of its round trip (docs/performance.md). It
// is so only for a method that says which event it fires (handler.inlineEvent),
// with small params, when no hook is configured for that event: then nothing
// the request does waits for the client (no hook can answer "ask", no
// progress is shown) or for a process. When it returns true the caller
// holds installMu for reading until the answer is written, so that a reload
// cannot install a hook for the event in between (install takes it for
// writing); when a reload is installing one, the request goes to a worker.
func (s *Server) inlineRequest(h handler, params json.RawMessage) bool {
	if h.inlineEvent == "" || len(params) > maxInlineParams || s.engine == nil || !s.installMu.TryRLock() {
		return false
	}
	for _, hk := range s.engine.Config().Hooks {
		if hk.Event == h.inlineEvent {
			s.installMu.RUnlock()
			return false
		}
	}
	return true
}

// afterReply holds work a request leaves for after its response is sent:
// the notifications that tell the editor what changed. The agent waiting
// for the response should not wait for them too.
//
// It is the one context value wavehooks' code sets: plumbing of the
// request, not an input. The handler table's signatures (handlers.go) are
// one shape for every method and only the handlers that announce a change
// use it (whenReplied), so a parameter would be threaded through every
// handler for a few; and nothing a handler answers depends on it. Every
// input a handler, the session or the engine acts on is a parameter
// (README, "Architecture").
type afterReply struct {
	fns []func()
}

// afterReplyKey is the context key of the request's afterReply.
type afterReplyKey struct{}

func (a *afterReply) run() {
	for _, f := range a.fns {
		f()
	}
}

// whenReplied runs f after the current request's response is sent, or at
// once outside a request.
func whenReplied(ctx context.Context, f func()) {
	if a, ok := ctx.Value(afterReplyKey{}).(*afterReply); ok {
		a.fns = append(a.fns, f)
		return
	}
	f()
}

// refuse answers a request with an error from the read loop. A reply that
// cannot be written means the editor is gone, which Serve notices by itself;
// it must not be returned to jsonrpc2: the connection would record it as a
// failure, then record the read error that follows as a second one, and
// jsonrpc2 v0.10.0 panics when the two errors have different types.
func (s *Server) refuse(ctx context.Context, reply jsonrpc2.Replier, method string, err error) {
	if rerr := reply(ctx, nil, err); rerr != nil {
		s.log.Debug("reply not sent", "method", method, "err", rerr)
	}
}

// run calls a handler and turns a panic into an internal error: one bad
// request must never take the server down.
func (s *Server) run(ctx context.Context, h handler, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, fmt.Errorf("internal error in %s: %v", method, p)
		}
	}()
	return h.call(s, ctx, params)
}

func (s *Server) getState() serverState {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.state
}

func (s *Server) setState(st serverState) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	s.state = st
}
