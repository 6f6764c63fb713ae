package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
)

// Options configure a proxy. Zero values mean the documented defaults.
type Options struct {
	// Agent is the agent's command and arguments.
	Agent []string
	// AgentDir is the directory the agent starts in ("" is the proxy's own).
	AgentDir string
	// AgentEnv is the agent's environment (nil is the proxy's own).
	AgentEnv []string
	// AgentStderr receives the agent's stderr (nil discards it).
	AgentStderr io.Writer

	// WaveHome holds settings.json, the sessions and the trust store.
	WaveHome string
	// ProjectRoot is the project whose hooks run. When ProjectFixed is
	// false, a session/new whose cwd is a directory uses that directory's
	// hooks instead, as an editor that opens several projects expects.
	ProjectRoot  string
	ProjectFixed bool
	// ClaudeHome is ~/.claude, read when importClaudeHooks is set.
	ClaudeHome string
	// ManagedFile is the managed (policy) settings file; "" reads none.
	ManagedFile string
	// TrustWorkspace runs the project's own hooks without asking (--trust-workspace).
	TrustWorkspace bool

	// KillGrace is how long the agent has to end after SIGTERM before it
	// gets SIGKILL (3 s).
	KillGrace time.Duration
	// MaxLine bounds one message (DefaultMaxLine).
	MaxLine int
	// HistorySize bounds the hook-run history (500).
	HistorySize int
	// Logger receives the proxy's log; it must not write to stdout.
	Logger *slog.Logger
}

func (o *Options) setDefaults() {
	if o.KillGrace <= 0 {
		o.KillGrace = 3 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.AgentEnv == nil {
		o.AgentEnv = environ()
	}
	if o.AgentStderr == nil {
		o.AgentStderr = io.Discard
	}
}

// queueSize is how many read messages wait for their worker. Reading ahead
// lets the editor's session/cancel be seen while a hook holds the queue; the
// bound keeps a flood from a peer in the pipes, where it pushes back.
const queueSize = 256

// Proxy sits between an ACP editor and the agent it launched. Build one
// with Run; its fields are shared by the two directions' workers.
type Proxy struct {
	opts    Options
	log     *slog.Logger
	history *hooks.History
	agent   *agentProcess

	editorOut *lineWriter
	agentIn   *lineWriter

	// ctx ends when the proxy shuts down: every hook run derives from it.
	ctx  context.Context
	stop context.CancelFunc

	mu sync.Mutex // guards everything below
	// workspaces by project root.
	workspaces map[string]*workspace
	// sessions by the agent's session id.
	sessions map[string]*sessState
	// loading holds the ids of sessions whose session/load is in flight:
	// the agent replays their history, which is not recorded again.
	loading map[string]int
	// editorCalls are the editor's requests the agent has not answered yet.
	editorCalls map[string]*editorCall
	// agentCalls are the agent's requests forwarded to the editor whose
	// answer the proxy records (permission requests, file and terminal
	// operations).
	agentCalls map[string]*agentCall
	// ownCalls are the proxy's own requests, by id, waiting for their answer.
	ownCalls map[string]chan *message
	seq      int
	// skipClaude: the agent runs Claude Code's hooks itself.
	skipClaude bool
	// agentGone is set once the agent ended; requests from then on are
	// answered with an error at once.
	agentGone bool
	agentCode int
}

// editorCall is a request of the editor's in flight to the agent.
type editorCall struct {
	id     json.RawMessage
	method string
	// sessionID is the session the request is about (load, resume, close, prompt).
	sessionID string
	// cwd is session/new's working directory.
	cwd string
	// turn is the prompt turn of a session/prompt.
	turn *turn
}

// agentCall is an agent request forwarded to the editor whose answer matters.
type agentCall struct {
	method string
	st     *sessState
	tool   *toolState
	// options are a permission request's options, to read the user's choice.
	options []permissionOption
}

// Run starts the agent and proxies between the editor (editorIn,
// editorOut) and it until one side ends. It returns the exit status the
// proxy should exit with: the agent's own when the agent ended first, 0
// when the editor did, and 1 when the agent could not be started. When
// editorIn is an io.Closer it is closed before Run returns.
func Run(ctx context.Context, opts Options, editorIn io.Reader, editorOut io.Writer) int {
	return runProxy(ctx, opts, editorIn, editorOut, nil)
}

// runProxy is Run; started, when not nil, gets the proxy once it runs (for
// tests that look inside it).
func runProxy(ctx context.Context, opts Options, editorIn io.Reader, editorOut io.Writer, started chan<- *Proxy) int {
	opts.setDefaults()
	p := &Proxy{
		opts: opts, log: opts.Logger, history: hooks.NewHistory(opts.HistorySize),
		editorOut:  newLineWriter(editorOut),
		workspaces: map[string]*workspace{}, sessions: map[string]*sessState{}, loading: map[string]int{},
		editorCalls: map[string]*editorCall{}, agentCalls: map[string]*agentCall{}, ownCalls: map[string]chan *message{},
	}
	p.ctx, p.stop = context.WithCancel(context.Background())
	defer p.stop()
	if _, err := p.workspace(opts.ProjectRoot); err != nil {
		p.log.Error("cannot open the project's hooks and sessions", "err", err)
		closeReader(editorIn)
		return 1
	}
	agent, err := startAgent(opts.Agent, opts.AgentDir, opts.AgentEnv, opts.AgentStderr)
	if err != nil {
		p.log.Error(err.Error())
		p.closeWorkspaces()
		closeReader(editorIn)
		return 1
	}
	p.agent, p.agentIn = agent, newLineWriter(agent.stdin)
	if started != nil {
		started <- p
	}

	// The editor's messages are read ahead of their worker, so that a
	// session/cancel is seen while a hook holds the messages before it. The
	// agent's are handled as they are read: holding them back while a hook
	// runs is what keeps their order.
	up := make(chan *message, queueSize)
	var readers, workers sync.WaitGroup
	editorDone, agentDone := make(chan struct{}), make(chan struct{})
	readers.Add(1)
	go func() { defer readers.Done(); p.readEditor(editorIn, up) }()
	workers.Add(2)
	go func() { defer workers.Done(); defer close(editorDone); p.work(up) }()
	go func() { defer workers.Done(); defer close(agentDone); p.readAgent(agent.stdout) }()

	code := 0
	select {
	case <-editorDone:
		// The editor went away: end the agent, then the sessions. Hooks
		// still running for the editor's requests are killed first.
		p.log.Info("the editor closed the connection; ending the agent")
		p.stop()
		agent.stop(opts.KillGrace)
		p.awaitAgentOutput(agentDone)
		p.endSessions("prompt_input_exit")
	case <-ctx.Done():
		p.log.Info("stopping: ending the agent")
		p.stop()
		agent.stop(opts.KillGrace)
		p.awaitAgentOutput(agentDone)
		p.endSessions("other")
	case <-agentDone:
		select {
		case <-agent.exited:
		case <-time.After(opts.KillGrace):
			agent.stop(opts.KillGrace) // it closed its stdout but runs on
		}
		code = agent.code
		p.agentEnded(code)
		p.stop()
		p.endSessions("other")
	}
	p.flush()
	closeReader(editorIn)
	_ = agent.stdin.Close()
	agent.signal(syscall.SIGKILL) // whatever the agent left in its process group
	done := make(chan struct{})
	go func() {
		readers.Wait()
		workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		// A read of a terminal or an inherited stdin cannot be interrupted
		// by Close; the process is about to exit anyway.
	}
	p.closeWorkspaces()
	return code
}

// awaitAgentOutput waits for the agent's last messages to be handled after
// it ended, then records that it ended.
func (p *Proxy) awaitAgentOutput(agentDone <-chan struct{}) {
	<-p.agent.exited
	select {
	case <-agentDone:
	case <-time.After(p.opts.KillGrace):
		// A process the agent started still holds its stdout.
		p.agent.signal(syscall.SIGKILL)
		_ = p.agent.stdout.Close()
		<-agentDone
	}
	p.mu.Lock()
	p.agentGone, p.agentCode = true, p.agent.code
	p.mu.Unlock()
}

func closeReader(r io.Reader) {
	if c, ok := r.(io.Closer); ok {
		_ = c.Close()
	}
}

// work handles the editor's messages in order. Output is flushed whenever
// no message is waiting.
func (p *Proxy) work(in <-chan *message) {
	for m := range in {
		p.safely(m, p.fromEditor, true)
		if len(in) == 0 {
			p.flush()
		}
	}
	p.flush()
}

// flush sends what is queued for either side.
func (p *Proxy) flush() {
	p.editorOut.flush()
	p.agentIn.flush()
}

// safely handles one message. A panic in the proxy's own code is logged and,
// if the message was not dealt with yet, it is passed on unchanged (a request
// is answered with an internal error instead, so that its sender does not
// wait forever): one bad message never ends a session.
func (p *Proxy) safely(m *message, handle func(*message), fromEditor bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		p.log.Error("internal error handling a message", "method", m.Method, "passedOn", m.passed, "panic", r)
		if m.passed {
			return
		}
		switch {
		case m.isRequest():
			line := errorLine(m.ID, codeInternalError, fmt.Sprintf("wavehooks: internal error handling %s: %v", m.Method, r), nil)
			if fromEditor {
				p.sendEditor(line)
			} else {
				p.sendAgent(line)
			}
		case fromEditor:
			p.sendAgent(m.line)
		default:
			p.sendEditor(m.line)
		}
	}()
	handle(m)
}

// readEditor reads the editor's messages into up. A line that is not JSON
// is answered with a parse error and not passed to the agent; a
// session/cancel also stops that session's hooks at once, before the
// messages ahead of it are handled.
func (p *Proxy) readEditor(r io.Reader, up chan<- *message) {
	defer close(up)
	lr := newLineReader(r, p.opts.MaxLine)
	for {
		line, err := lr.next()
		if err != nil {
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				p.log.Warn("the editor sent a message too large to pass on", "err", err)
				p.sendEditor(errorLine(nil, codeInvalidRequest, "wavehooks: "+err.Error(), nil))
				p.editorOut.flush()
				continue
			}
			if !errors.Is(err, io.EOF) {
				p.log.Debug("reading from the editor", "err", err)
			}
			return
		}
		m, err := parseMessage(line)
		if err != nil {
			p.log.Warn("the editor sent a line that is not a JSON-RPC message; it was not passed on",
				"err", err, "line", clipText(string(line), 200))
			p.sendEditor(errorLine(nil, codeParseError, "wavehooks: parse error: "+err.Error(), nil))
			p.editorOut.flush()
			continue
		}
		if m.isNotification() && m.Method == methodSessionCancel {
			p.cancelSession(m)
		}
		up <- m
	}
}

// readAgent reads and handles the agent's messages, in order. Lines that
// are not JSON (an agent printing a log line to stdout) go to stderr
// instead of to the editor, which would choke on them. Output is flushed
// whenever no more of the agent's input is read already.
func (p *Proxy) readAgent(r io.Reader) {
	defer p.flush()
	lr := newLineReader(r, p.opts.MaxLine)
	for {
		if lr.buffered() == 0 {
			p.flush()
		}
		line, err := lr.next()
		if err != nil {
			var tooLong *errLineTooLong
			if errors.As(err, &tooLong) {
				p.log.Warn("the agent sent a message too large to pass on", "err", err)
				continue
			}
			if !errors.Is(err, io.EOF) {
				p.log.Debug("reading from the agent", "err", err)
			}
			return
		}
		m, err := parseMessage(line)
		if err != nil {
			p.log.Warn("the agent wrote a line that is not a JSON-RPC message; it went to stderr, not to the editor",
				"err", err, "line", clipText(string(line), 4096))
			continue
		}
		p.safely(m, p.fromAgent, false)
	}
}

// fromEditor handles one message from the editor.
func (p *Proxy) fromEditor(m *message) {
	switch {
	case m.isRequest():
		p.editorRequest(m)
	case m.isResponse():
		p.editorResponse(m)
	default:
		p.passAgent(m)
	}
}

// fromAgent handles one message from the agent.
func (p *Proxy) fromAgent(m *message) {
	switch {
	case m.isResponse():
		p.agentResponse(m)
	case m.isRequest():
		p.agentRequest(m)
	case m.Method == methodSessionUpdate:
		p.sessionUpdate(m)
	default:
		p.passEditor(m)
	}
}

func (p *Proxy) sendEditor(line []byte) { p.editorOut.write(line) }
func (p *Proxy) sendAgent(line []byte)  { p.agentIn.write(line) }

// toEditor and toAgent send what a message turned into: itself, a changed
// copy, or the proxy's answer to it; passEditor and passAgent pass it on
// unchanged. Each marks the message as dealt with (see safely).
func (p *Proxy) toEditor(m *message, line []byte) { m.passed = true; p.sendEditor(line) }
func (p *Proxy) toAgent(m *message, line []byte)  { m.passed = true; p.sendAgent(line) }
func (p *Proxy) passEditor(m *message)            { p.toEditor(m, m.line) }
func (p *Proxy) passAgent(m *message)             { p.toAgent(m, m.line) }

// editorRequest tracks a request of the editor's and routes it by method.
func (p *Proxy) editorRequest(m *message) {
	switch m.Method {
	case methodHookRuns:
		p.hookRuns(m)
		return
	case methodSessionPrompt:
		p.prompt(m)
		return
	}
	call := &editorCall{id: m.ID, method: m.Method}
	switch m.Method {
	case methodSessionNew, methodSessionLoad, methodSessionResume, methodSessionClose:
		var params struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
		}
		_ = decode(m.Params, &params)
		call.sessionID, call.cwd = params.SessionID, params.Cwd
	}
	p.forwardCall(m, call, m.line)
}

// forwardCall passes an editor's request to the agent, remembering it so
// that its answer can be acted on, or answers it with an error when the
// agent is gone.
func (p *Proxy) forwardCall(m *message, call *editorCall, line []byte) {
	if m != nil {
		m.passed = true
	}
	p.mu.Lock()
	if p.agentGone {
		code := p.agentCode
		p.mu.Unlock()
		p.sendEditor(errorLine(call.id, codeInternalError, fmt.Sprintf("wavehooks: the agent exited (status %d)", code), nil))
		return
	}
	p.editorCalls[idKey(call.id)] = call
	if call.method == methodSessionLoad {
		p.loading[call.sessionID]++
	}
	p.mu.Unlock()
	p.sendAgent(line)
}

// editorResponse passes the editor's answer to the agent, after noting what
// it decided; answers to the proxy's own requests go to whoever waits for them.
func (p *Proxy) editorResponse(m *message) {
	key := idKey(m.ID)
	p.mu.Lock()
	if ch, ok := p.ownCalls[key]; ok {
		delete(p.ownCalls, key)
		p.mu.Unlock()
		m.passed = true
		ch <- m
		return
	}
	call := p.agentCalls[key]
	delete(p.agentCalls, key)
	p.mu.Unlock()
	if call != nil {
		p.editorAnswered(call, m)
	}
	p.passAgent(m)
}

// agentResponse acts on the agent's answer to an editor's request (or to
// the proxy's own follow-up prompt) and passes it on.
func (p *Proxy) agentResponse(m *message) {
	key := idKey(m.ID)
	p.mu.Lock()
	if ch, ok := p.ownCalls[key]; ok {
		delete(p.ownCalls, key)
		p.mu.Unlock()
		m.passed = true
		ch <- m
		return
	}
	call := p.editorCalls[key]
	delete(p.editorCalls, key)
	if call != nil && call.method == methodSessionLoad {
		if p.loading[call.sessionID]--; p.loading[call.sessionID] <= 0 {
			delete(p.loading, call.sessionID)
		}
	}
	p.mu.Unlock()
	if call == nil {
		p.passEditor(m)
		return
	}
	switch call.method {
	case methodInitialize:
		p.initialized(m)
	case methodSessionNew, methodSessionLoad, methodSessionResume:
		p.sessionOpened(call, m)
		return
	case methodSessionClose:
		if m.Error == nil {
			p.endSession(call.sessionID, "other") // before the answer: the editor may end the proxy next
		}
	case methodSessionPrompt:
		p.promptAnswered(call.turn, m)
		return
	}
	p.passEditor(m)
}

// agentRequest decides or passes on a request of the agent's to the editor.
func (p *Proxy) agentRequest(m *message) {
	switch m.Method {
	case methodRequestPermission:
		p.requestPermission(m)
	case methodWriteTextFile, methodReadTextFile, methodTerminalCreate:
		p.clientOperation(m)
	default:
		p.passEditor(m)
	}
}

// initialized learns from the agent's initialize answer whether it runs
// Claude Code's hooks itself.
func (p *Proxy) initialized(m *message) {
	var res struct {
		AgentInfo struct {
			Name string `json:"name"`
		} `json:"agentInfo"`
	}
	_ = decode(m.Result, &res)
	skip := nativeClaudeHooks(res.AgentInfo.Name)
	p.mu.Lock()
	p.skipClaude = skip
	wss := make([]*workspace, 0, len(p.workspaces))
	for _, w := range p.workspaces {
		wss = append(wss, w)
	}
	p.mu.Unlock()
	for _, w := range wss {
		w.setSkipClaude(skip)
	}
	if skip {
		p.log.Info("the agent runs Claude Code's hooks itself; imported Claude Code hooks do not run here", "agent", res.AgentInfo.Name)
	}
}

// agentEnded answers every editor request still waiting for the agent with
// an error, and every prompt held for a Stop hook's follow-up.
func (p *Proxy) agentEnded(code int) {
	p.mu.Lock()
	p.agentGone, p.agentCode = true, code
	calls := p.editorCalls
	p.editorCalls = map[string]*editorCall{}
	own := p.ownCalls
	p.ownCalls = map[string]chan *message{}
	p.mu.Unlock()
	p.log.Warn("the agent exited", "status", code)
	for _, ch := range own {
		close(ch)
	}
	for _, call := range calls {
		id := call.id
		if call.turn != nil {
			id = call.turn.editorID
		}
		p.sendEditor(errorLine(id, codeInternalError,
			fmt.Sprintf("wavehooks: the agent exited (status %d) before answering %s", code, call.method), nil))
	}
	p.flush()
}

// call sends a request of the proxy's own to one side and waits for the
// answer; nil when ctx ends or that side goes away first.
func (p *Proxy) call(ctx context.Context, toEditor bool, kind, method string, params any) *message {
	ch := make(chan *message, 1)
	p.mu.Lock()
	p.seq++
	id := ownID(kind, p.seq)
	p.ownCalls[idKey(id)] = ch
	p.mu.Unlock()
	line := requestLine(id, method, params)
	if toEditor {
		p.sendEditor(line)
	} else {
		p.sendAgent(line)
	}
	p.flush()
	select {
	case m := <-ch:
		return m
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.ownCalls, idKey(id))
		p.mu.Unlock()
		return nil
	}
}

// hookRuns answers _wavehooks/hookRuns with the run history, newest first,
// as `wavehooks serve` answers wave/hookRuns.
func (p *Proxy) hookRuns(m *message) {
	var params struct {
		SessionID string      `json:"sessionId"`
		Event     hooks.Event `json:"event"`
		Limit     int         `json:"limit"`
	}
	if err := decode(m.Params, &params); err != nil {
		p.toEditor(m, errorLine(m.ID, -32602, "wavehooks: invalid params: "+err.Error(), nil))
		return
	}
	if params.SessionID != "" {
		p.mu.Lock()
		if st := p.sessions[params.SessionID]; st != nil {
			params.SessionID = st.sess.ID()
		}
		p.mu.Unlock()
	}
	p.toEditor(m, resultLine(m.ID, map[string]any{"runs": p.history.List(params.SessionID, params.Event, params.Limit)}))
}

// workspace returns the hooks and sessions of a project root, opening them
// the first time.
func (p *Proxy) workspace(root string) (*workspace, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.workspaces[root]; w != nil {
		return w, nil
	}
	w, err := newWorkspace(&p.opts, root, p.skipClaude, func(in hooks.Input, res hooks.Result) {
		p.recordRun(in.SessionID, in.MatchValue(), &res, "async")
	})
	if err != nil {
		return nil, err
	}
	for _, d := range w.engine.Config().Diagnostics() {
		p.log.Warn("settings: " + d.String())
	}
	p.workspaces[root] = w
	return w, nil
}

func (p *Proxy) closeWorkspaces() {
	p.mu.Lock()
	wss := p.workspaces
	p.workspaces = map[string]*workspace{}
	p.mu.Unlock()
	for _, w := range wss {
		if err := w.close(); err != nil {
			p.log.Warn("closing sessions", "err", err)
		}
	}
}

func sessionIDOf(params json.RawMessage) string {
	var v struct {
		SessionID string `json:"sessionId"`
	}
	_ = decode(params, &v)
	return v.SessionID
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}
