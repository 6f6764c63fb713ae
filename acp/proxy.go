package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/telemetry"
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
	// Version is the binary's version, the service.version of what the
	// telemetry export sends (internal/telemetry).
	Version string
	// ProjectRoot is the project whose hooks run. When ProjectFixed is
	// false, a session/new whose cwd is a directory uses that directory's
	// hooks instead, as an editor that opens several projects expects.
	ProjectRoot  string
	ProjectFixed bool
	// ClaudeHome is ~/.claude, read when importClaudeHooks is set.
	ClaudeHome string
	// AgentHomes are ~/.gemini, ~/.codex and ~/.cursor (settings.DefaultAgentHomes):
	// the user's hook files of the agent the proxy runs, when its own hooks
	// do not fire in ACP mode, and of the agents importAgentHooks names.
	AgentHomes map[agentfmt.Agent]string
	// ManagedFile is the managed (policy) settings file; "" reads none.
	ManagedFile string
	// ClaudeManagedDir is Claude Code's managed settings directory
	// (settings.Paths.ClaudeManagedDir); "" reads none.
	ClaudeManagedDir string
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
	// HookExe is the wavehooks executable whose acp-hook command the hook
	// bridge gives a bridged agent, or whose wavehooks-hook beside it
	// ("" is this process's own executable).
	HookExe string

	// quitGrace is how long the proxy waits, after the agent ended, for
	// the editor's own end (quitGrace, the default); tests set it to
	// drive either order of the two.
	quitGrace time.Duration
	// cancelGrace replaces cancelGrace (v2translate.go) in tests of a v2
	// agent that does not end a cancelled turn.
	cancelGrace time.Duration
	// ownID replaces randomOwnID in tests that play a peer who knows the
	// ids of the proxy's own requests.
	ownID func(kind string) json.RawMessage

	// Component runs the proxy as a component of a proxy chain, under a
	// conductor (`wavehooks acp --component`, chain.go): it has no agent of
	// its own (Agent is empty), and editorIn and editorOut are the
	// conductor's connection, over which its successor's messages come and
	// go wrapped in proxy/successor.
	Component bool
	// successor is the agent's side of a component (chain.go), in place
	// of a process of its own.
	successor *agentProcess
}

// hostConfig is the configuration the proxy shares with every host.
func (o *Options) hostConfig() host.Config {
	return host.Config{WaveHome: o.WaveHome, ClaudeHome: o.ClaudeHome, ManagedFile: o.ManagedFile, ClaudeManagedDir: o.ClaudeManagedDir,
		AgentHomes: o.AgentHomes, AgentSession: agents.HookFilesOf(o.Agent),
		TrustWorkspace: o.TrustWorkspace, HistorySize: o.HistorySize, Logger: o.Logger,
		// Nobody waits on the proxy's saves: a transcript is written when a
		// hook may read it and when a turn ends (flushTranscript).
		SaveBeforeHooks: true}
}

func (o *Options) setDefaults() {
	if o.KillGrace <= 0 {
		o.KillGrace = 3 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.quitGrace <= 0 {
		o.quitGrace = quitGrace
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
	opts  Options
	log   *slog.Logger
	host  *host.Host // the run history is its
	agent *agentProcess

	// audit is the audit log (nil without a wave home): the runs reach it
	// through the history, the answers to asks from where they are decided.
	audit *audit.Log

	// versions are the ACP versions initialize settled (v2version.go).
	versions versions
	// translator is the state of the v1 ↔ v2 translation (v2translate.go).
	translator translator

	editorOut *lineWriter
	agentIn   *lineWriter
	// agentLines is the reader of the agent's output, used only by the
	// goroutine that reads it (readAgent): whether more of the agent's
	// input is already read decides when the editor's output is flushed.
	agentLines *lineReader
	// agentHead and agentContent are where the agent's reader decodes a
	// session/update's head and a text chunk's content (sessionUpdate, on
	// readAgent's goroutine only): one of each for the proxy instead of two
	// allocations per streamed chunk.
	agentHead    acpmsg.SessionUpdateHead
	agentChunk   textChunkLine
	agentContent acpmsg.ContentBlock
	// agentChunkMsg is the message textChunk hands to recordTextChunk,
	// reused likewise.
	agentChunkMsg message

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
	// ownCalls are the proxy's own requests, by id, waiting for their
	// answer from the side they were sent to.
	ownCalls map[string]ownCall
	// ownID makes the id of one of the proxy's own requests (randomOwnID;
	// golden tests set a counter).
	ownID func(kind string) json.RawMessage
	seq   int
	// skipClaude: the agent runs Claude Code's hooks itself.
	skipClaude bool
	// agentGone is set once the agent ended; requests from then on are
	// answered with an error at once.
	agentGone bool
	agentCode int
	// endReported: agentEnded has told the editor.
	endReported bool
	// bridge is the hook bridge, once the agent is known to be
	// claude-agent-acp (bridge.go).
	bridge *bridge
	// bridgeLoaded is bridge too, read without the lock where every tool
	// call update asks for it (bridged); set with it.
	bridgeLoaded atomic.Pointer[bridge]
	// asks are the trust questions waiting for the user (trust.go).
	asks sync.WaitGroup
	// editorQueued counts the editor's messages queued for work or in its
	// hands (handleEditor).
	editorQueued atomic.Int32
	// refusedUnopened counts the agent's requests refused because they name
	// a session nobody opened (refuseUnopened), to bound their log lines.
	refusedUnopened atomic.Int64
	// flushes are the transcript writes due after a turn's answer
	// (flushTranscript); flushMu guards their Add against the Wait at the
	// end, after which flushesClosed is set and none is scheduled.
	flushes       sync.WaitGroup
	flushMu       sync.Mutex
	flushesClosed bool
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

// ownCall is a request of the proxy's own waiting for its answer: only the
// side it was sent to may give it.
type ownCall struct {
	answer   chan *message
	toEditor bool
}

// agentCall is an agent request forwarded to the editor whose answer matters.
type agentCall struct {
	method string
	st     *sessState
	tool   *toolState
	// options are a permission request's options, to read the user's choice.
	options []acpmsg.PermissionOption
	// asked is when a permission request was passed to the editor, for
	// how long the user took (the audit log).
	asked time.Time
}

// Run starts the agent and proxies between the editor (editorIn,
// editorOut) and it until one side ends. It returns the exit status the
// proxy should exit with: the agent's own when the agent ended first, 0
// when the editor did, and 1 when the agent could not be started. When
// editorIn is an io.Closer it is closed before Run returns. With
// opts.Component there is no agent to start: editorIn and editorOut are a
// conductor's, and the agent is the proxy's successor in its chain.
func Run(ctx context.Context, opts Options, editorIn io.Reader, editorOut io.Writer) int {
	if opts.Component {
		return runComponent(ctx, opts, editorIn, editorOut, nil)
	}
	return runProxy(ctx, opts, editorIn, editorOut, nil)
}

// runProxy is Run; started, when not nil, gets the proxy once it runs (for
// tests that look inside it).
func runProxy(ctx context.Context, opts Options, editorIn io.Reader, editorOut io.Writer, started chan<- *Proxy) int {
	opts.setDefaults()
	p := &Proxy{
		opts: opts, log: opts.Logger, host: host.New(opts.hostConfig()),
		editorOut:  newLineWriter(editorOut),
		workspaces: map[string]*workspace{}, sessions: map[string]*sessState{}, loading: map[string]int{},
		editorCalls: map[string]*editorCall{}, agentCalls: map[string]*agentCall{}, ownCalls: map[string]ownCall{},
		ownID: randomOwnID,
	}
	if opts.ownID != nil {
		p.ownID = opts.ownID
	}
	if opts.WaveHome != "" {
		p.host.History.PersistTo(hooks.NewRunLog(hooks.RunLogDir(opts.WaveHome))) // for wavehooks test --record
		if al, err := audit.Open(audit.Dir(opts.WaveHome), audit.HostACP, audit.Options{Logger: p.log}); err != nil {
			p.log.Warn("the audit log cannot be kept: decisions are not recorded in it", "err", err)
		} else {
			p.audit = al
			p.host.History.Observe(al)
		}
		// Last of all, after every session and hook has ended: the run
		// log's lines and the audit records are written behind the answers.
		defer p.host.History.Flush()
	}
	// OpenTelemetry export, when configured; stopped (its queue sent,
	// within its bound) after every session has ended.
	defer telemetry.Stop(telemetry.Start(p.host.History, os.Getenv, opts.WaveHome, opts.Version, p.log))
	p.ctx, p.stop = context.WithCancel(context.Background())
	defer p.stop()
	defer p.closeBridge()
	if w := p.workspace(opts.ProjectRoot); w.StoreErr != nil {
		p.log.Warn("sessions are kept in memory: their transcripts cannot be written", "err", w.StoreErr)
	}
	agent, err := opts.successor, error(nil)
	if agent == nil {
		agent, err = startAgent(p.agentCommand(opts.Agent), opts.AgentDir, opts.AgentEnv, opts.AgentStderr)
	}
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
	editorEOF, editorDone, agentDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	readers.Add(1)
	go func() { defer readers.Done(); defer close(editorEOF); p.readEditor(editorIn, up) }()
	workers.Add(2)
	go func() { defer workers.Done(); defer close(editorDone); p.work(up) }()
	go func() {
		defer workers.Done()
		defer close(agentDone)
		defer agent.stdout.Close()
		p.readAgent(agent.stdout)
	}()

	code := 0
	select {
	case <-editorEOF:
		// The editor went away: what it sent last still goes to the agent,
		// for a grace period (an agent that stops reading its stdin blocks
		// that write); then the hooks still running are killed, the agent
		// is ended (stdin closed, SIGTERM, SIGKILL), and the sessions end.
		p.log.Info("the editor closed the connection; ending the agent")
		closedWithin(editorDone, opts.KillGrace)
		p.stop()
		agent.stop(opts.KillGrace)
		closedWithin(editorDone, opts.KillGrace)
		p.awaitAgentOutput(agentDone)
		p.endSessions(reasonEditorQuit)
	case <-ctx.Done():
		// SIGTERM or SIGINT: how an editor stops its agent when it quits,
		// often together with closing the proxy's stdin.
		p.log.Info("stopping: ending the agent")
		p.stop()
		agent.stop(opts.KillGrace)
		p.awaitAgentOutput(agentDone)
		p.endSessions(reasonEditorQuit)
	case <-agentDone:
		if !closedWithin(agent.exited, opts.KillGrace) {
			agent.stop(opts.KillGrace) // it closed its stdout but runs on
		}
		code = agent.code
		p.agentEnded(code)
		p.stop()
		p.endSessions(p.agentEndReason(ctx, editorEOF))
	case <-agent.exited:
		// The agent ended. Its last messages are still being read; when
		// that takes longer than a moment, a hook is running for one of
		// them: the editor learns at once that the agent is gone (its
		// requests get an error), and the hooks, which no one waits for
		// now, are killed.
		if !closedWithin(agentDone, agentExitGrace) {
			p.agentEnded(agent.code)
			p.stop()
			p.awaitAgentOutput(agentDone) // a process the agent left may hold its stdout
		}
		code = agent.code
		p.agentEnded(code)
		p.stop()
		p.endSessions(p.agentEndReason(ctx, editorEOF))
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
	p.asks.Wait() // p.stop ended their wait
	p.flushMu.Lock()
	p.flushesClosed = true // closing the stores writes what is left
	p.flushMu.Unlock()
	p.flushes.Wait()
	p.closeWorkspaces()
	return code
}

// reasonEditorQuit is SessionEnd's reason when the editor ended the proxy
// — closed its stdin or signalled it — as Claude Code's when the user exits
// its prompt; "other" is left for session/close and an agent that ended on
// its own.
const reasonEditorQuit = "prompt_input_exit"

// quitGrace is how long after the agent's end the proxy waits for the
// editor's: an editor that quits closes the proxy's stdin and signals the
// proxy's process tree at once, and the agent may well end first.
const quitGrace = 500 * time.Millisecond

// agentEndReason is SessionEnd's reason once the agent ended: the editor
// quitting (it closed the proxy's stdin or signalled the proxy, before or
// within opts.quitGrace after) or "other", the agent ending on its own.
// Without the wait the reason of one quit would depend on which of its
// events the proxy saw first.
func (p *Proxy) agentEndReason(ctx context.Context, editorEOF <-chan struct{}) string {
	t := time.NewTimer(p.opts.quitGrace)
	defer t.Stop()
	select {
	case <-editorEOF:
	case <-ctx.Done():
	case <-t.C:
		return "other"
	}
	return reasonEditorQuit
}

// agentExitGrace is how long the agent's last messages may take to be
// handled after it exited before its crash is reported anyway: handling a
// message takes microseconds unless a hook runs for it.
const agentExitGrace = 250 * time.Millisecond

// closedWithin reports whether ch closed within d.
func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
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

// workspace returns the hooks and sessions of a project root, opening them
// the first time.
func (p *Proxy) workspace(root string) *workspace {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.workspaces[root]; w != nil {
		return w
	}
	w := newWorkspace(p.host, root, p.skipClaude, func(in event.Input, _ hooks.Result, run hooks.EventRun) {
		p.logRun(run, in.MatchValue(), in.SessionID)
	})
	for _, d := range w.Engine.Config().Diagnostics() {
		p.log.Warn("settings: " + d.String())
	}
	p.workspaces[root] = w
	return w
}

func (p *Proxy) closeWorkspaces() {
	p.mu.Lock()
	wss := p.workspaces
	p.workspaces = map[string]*workspace{}
	p.mu.Unlock()
	for _, w := range wss {
		if err := w.Close(); err != nil {
			p.log.Warn("closing sessions", "err", err)
		}
	}
}

// sessionIDOf is the session a session/cancel is about.
func sessionIDOf(params json.RawMessage) string {
	var v acpmsg.CancelNotification
	_ = decode(params, &v)
	return v.SessionID
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}
