package acp

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/safefile"
	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/session"
)

// The hook bridge (issue #26 item 5). Some agents run tools in modes that
// never ask the editor for permission, so the proxy's PreToolUse at
// session/request_permission would see nothing there; they run hooks of
// their own in every mode, so the proxy gives them one (where, and how it
// is answered, is the agent's integration: acp/agents). The
// command is wavehooks-hook when it is installed next to wavehooks (a
// small program: the agent starts one per tool call), else `wavehooks
// acp-hook`; both hand their stdin to the proxy over
// a unix socket the proxy owns, in a private 0700 directory, with a random
// token; the proxy runs the user's PreToolUse hooks for the tool call and
// answers in the agent's terms. A permission request that may follow for
// the same tool call, with the same input, reuses that answer instead of
// running the hooks again.

// bridgeMaxInput bounds one hook input read from the socket.
const bridgeMaxInput = 64 << 20

// bridge is the socket the bridged agent's hook command talks to.
type bridge struct {
	p       *Proxy
	dir     string
	sock    string
	token   string
	command string
	// client names the program command runs, for the log:
	// "`wavehooks-hook`" or "`wavehooks acp-hook`".
	client string
	ln     net.Listener
	wg     sync.WaitGroup
	// integ is the agent the bridge serves (acp/agents), set once: read
	// without a lock, on every tool call update (bridged).
	integ atomic.Pointer[integrationRef]
	// http is the bridge's loopback endpoint (bridgehttp.go), nil until
	// started, under the proxy's lock.
	http *bridgeHTTP
	// err says why the bridge could not start: the agent's sessions are
	// then refused (withBridge), not run with tools no hook sees.
	err error
}

// startBridge opens the bridge's socket once; later calls return the same
// bridge. An error means the agent's sessions cannot be bridged: it is kept
// in the bridge, which then refuses them.
func (p *Proxy) startBridge() (*bridge, error) {
	p.mu.Lock()
	started := p.bridge != nil
	p.mu.Unlock()
	var exe, client string
	var err error
	if !started { // hookPrograms may run a process: not under the lock
		exe, client, err = p.hookPrograms()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bridge != nil {
		return p.bridge, p.bridge.err
	}
	var b *bridge
	if err == nil {
		b, err = p.openBridge(exe, client)
	}
	if err != nil {
		b = &bridge{p: p, err: err}
	}
	p.bridge = b
	p.bridgeLoaded.Store(b)
	return b, err
}

// openBridge makes the bridge's directory, token and socket, and starts
// answering on it; its hook runs client, or wavehooks at exe when client
// is "" (hookPrograms).
func (p *Proxy) openBridge(exe, client string) (*bridge, error) {
	dir, err := os.MkdirTemp("", "wavehooks-acp-")
	if err != nil {
		return nil, fmt.Errorf("the hook bridge's directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the hook bridge's directory: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the hook bridge's token: %w", err)
	}
	b := &bridge{p: p, dir: dir, sock: filepath.Join(dir, "hook.sock"), token: hex.EncodeToString(raw)}
	if b.ln, err = net.Listen("unix", b.sock); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the hook bridge's socket: %w", err)
	}
	b.command, b.client = hookCommand(exe, client, b.sock, b.token)
	b.wg.Add(1)
	go b.serve()
	return b, nil
}

// closeBridge stops the bridge and removes its directory; the agent's hook
// commands fail closed from then on.
func (p *Proxy) closeBridge() {
	p.mu.Lock()
	b := p.bridge
	p.mu.Unlock()
	if b == nil || b.ln == nil {
		return
	}
	b.closeHTTP()
	_ = b.ln.Close()
	b.wg.Wait()
	_ = os.RemoveAll(b.dir)
}

// bridgeOf returns the running bridge, or nil.
func (p *Proxy) bridgeOf() *bridge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bridge
}

// integrationRef holds an Integration in an atomic.Pointer.
type integrationRef struct{ agents.Integration }

// integration is the agent the bridge serves (nil before it is known).
func (b *bridge) integration() agents.Integration {
	if r := b.integ.Load(); r != nil {
		return r.Integration
	}
	return nil
}

// serves makes ig the agent the bridge serves, unless one is already.
func (b *bridge) serves(ig agents.Integration) { b.integ.CompareAndSwap(nil, &integrationRef{ig}) }

// serve answers the hook commands' connections until the listener closes.
func (b *bridge) serve() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer conn.Close()
			b.handle(conn)
		}()
	}
}

// handle reads one hook command's token and input and writes its answer.
// The connection is closed without an answer when the token is wrong: the
// command then fails closed.
func (b *bridge) handle(conn net.Conn) {
	r := bufio.NewReader(io.LimitReader(conn, bridgeMaxInput+int64(len(b.token))+1))
	tok, err := r.ReadString('\n')
	if err != nil || subtle.ConstantTimeCompare([]byte(strings.TrimSuffix(tok, "\n")), []byte(b.token)) != 1 {
		b.p.log.Warn("the hook bridge refused a connection with no valid token")
		return
	}
	data, err := io.ReadAll(r)
	var in acpmsg.BridgeInput
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	_, _ = conn.Write(b.answer(&in, err))
}

// answer is the agent's hook answer to one hook input, however it came (the
// socket, http): err says why the input could not be read, and the tool is
// then denied.
func (b *bridge) answer(in *acpmsg.BridgeInput, err error) []byte {
	ig := b.integration()
	switch {
	case ig == nil:
		b.p.log.Warn("the hook bridge was called before the agent was known; the tool is denied")
		return mustRaw(bridgeDeny("wavehooks does not know this agent yet; the tool is not allowed"))
	case err != nil:
		return ig.Answer(agents.Answer{Deny: "wavehooks could not read the hook's input (" + err.Error() + "); the tool is not allowed"})
	default:
		return b.p.bridgedPreToolUse(in, ig)
	}
}

// bridgeDeny is Claude Code's PreToolUse answer that denies with a reason.
func bridgeDeny(reason string) acpmsg.BridgeAnswer {
	return acpmsg.BridgeAnswer{HookSpecificOutput: acpmsg.PreToolUseOutput{HookEventName: string(event.PreToolUse),
		PermissionDecision: "deny", PermissionDecisionReason: &reason}}
}

// bridgedTool is the session and the tool call a bridged PreToolUse is
// about, with the tool's name and input as the agent's own hook gave them.
// Both are nil for a session the proxy has not seen opened (guardState):
// the caller denies the tool, as a permission request for it is refused.
func (p *Proxy) bridgedTool(in *acpmsg.BridgeInput) (*sessState, *toolState) {
	st := p.guardState(in.SessionID)
	if st == nil {
		return nil, nil
	}
	t := st.tool(in.ToolUseID)
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.metaName == "" {
		t.metaName = in.ToolName
	}
	if isNull(t.rawInput) {
		t.rawInput = in.ToolInput
	}
	return st, t
}

// bridgedPreToolUse runs the user's PreToolUse hooks for a tool call the
// agent is about to make, through the session package as at a permission
// request, and makes the agent's answer (ig.Answer) from the one decision
// (flow.Decide, actionFor): a deny (also when the hooks could not run); an
// ask, put by the agent to the user or, where it cannot ask, by the proxy
// through the editor (the user's reject is a deny); an allow, with a hook's
// updatedInput where the agent runs it (else the rewritten input is put to
// the user); or no decision, when the agent's own permission flow or mode
// decides and a permission request may follow (requestPermission then
// reuses this outcome for the same input).
func (p *Proxy) bridgedPreToolUse(in *acpmsg.BridgeInput, ig agents.Integration) []byte {
	if in.Event != string(event.PreToolUse) || in.ToolName == "" || in.ToolUseID == "" || in.SessionID == "" {
		return ig.Answer(agents.Answer{Deny: fmt.Sprintf("wavehooks' hook bridge got %q for tool %q (id %q, session %q); "+
			"it only answers PreToolUse for a named tool call of a session", in.Event, in.ToolName, in.ToolUseID, in.SessionID)})
	}
	st, t := p.bridgedTool(in)
	if st == nil {
		return ig.Answer(agents.Answer{Deny: "wavehooks denied the tool: " + unopenedReason(in.SessionID)})
	}
	caps := ig.Caps()
	st.mu.Lock()
	if t.title == "" && !caps.ShowsRefused { // an agent that shows a call only once its hooks let it run (Codex)
		t.title = in.ToolName
		var cmd struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(in.ToolInput, &cmd) == nil && cmd.Command != "" {
			t.title, t.kind = cmd.Command, "execute"
		}
	}
	st.mu.Unlock()
	ctx := st.ctx()
	agent := subagentFields(in)
	out, ok := p.fireBridged(ctx, st, t, in.ToolName, in.ToolInput, agent)
	kept := out // what a permission request for the same call reuses
	d := flow.Decide(event.PreToolUse, in.ToolName, in.ToolInput, ok, &out.Answer)
	act := p.decideAt(st, d, ctx.Err() != nil, bridgePoint(ig))
	reason, note := act.refuse, act.note
	if act.askUser != "" {
		if p.askUser(ctx, st, t, session.AskRequest{Reason: act.askUser, ToolInput: in.ToolInput}) {
			note = "the user allowed it when asked"
			kept.Decision, kept.Permission, kept.Asked = string(hooks.PermissionAllow), string(hooks.PermissionAllow), true
			kept.Result.UpdatedInput = nil
		} else {
			reason, note = "The user rejected it when a PreToolUse hook asked: "+act.askUser, "the user rejected it when asked"
		}
	}
	denied := reason != ""
	st.mu.Lock()
	t.recorded = t.recorded || ok
	t.checked = "the agent's PreToolUse hook"
	t.bridgedJudgment(kept, ok, denied, in.ToolName, in.ToolInput)
	t.bridged.agent = agent
	t.denied = t.denied || denied
	if denied && !caps.ShowsRefused {
		t.denyReason = reason // a later update of the call keeps it (keepDenyReason)
	}
	st.mu.Unlock()
	p.finish(st, event.PreToolUse, in.ToolName, &out, note)
	answer := agents.Answer{Deny: reason, Stop: d.Verdict == flow.VerdictStop && caps.Stops, StopReason: d.UserReason}
	if !denied {
		answer.Ask, answer.AskSet = act.askAgent, act.askAgent != "" || (d.Verdict == flow.VerdictAsk && caps.AsksUser)
		answer.Allow = act.allow && caps.TakesRewrite // an agent that takes no rewrite leaves an allow to its mode
		if answer.Allow {
			answer.Reason = d.UserReason
			if act.rewrite {
				answer.UpdatedInput = out.ToolInput
			}
		}
		if len(out.AdditionalContext) > 0 {
			if caps.TakesContext {
				answer.Context = out.AdditionalContext
			} else {
				st.addPending(marked(event.PreToolUse, out.AdditionalContext)...) // with the next prompt
			}
		}
	}
	if d.Verdict == flow.VerdictStop && !caps.Stops {
		p.stopTurn(st)
	}
	if denied && ctx.Err() == nil {
		if !caps.ShowsRefused {
			p.showToolFailed(st, t, reason) // the agent shows no tool call it blocked
		}
		p.deniedMessage(st, t, event.PreToolUse, reason)
		p.flush() // the bridge is not the proxy's read loop: nothing else sends it now
	}
	return ig.Answer(answer)
}

// bridgedOutcome is the outcome of the PreToolUse hooks the bridge already
// ran for a tool call, if it ran them on the input a permission request
// for it carries (name, input): that request reuses it, so that the hooks
// run once per tool call. A request that carries another input gets no
// outcome, and its own input is judged; other is then the input the bridge
// judged, for the log.
func (st *sessState) bridgedOutcome(t *toolState, name string, input json.RawMessage, ig agents.Integration) (out session.Outcome, ok, bridged bool, other json.RawMessage) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.bridged == nil {
		return session.Outcome{}, false, false, nil
	}
	if !t.bridged.judged.agrees(name, input, ig) {
		return session.Outcome{}, false, false, t.bridged.judged.hook.input
	}
	return t.bridged.out, t.bridged.ok, true, nil
}

// bridgedRun is what the bridge's PreToolUse run for a tool call decided,
// and on what.
type bridgedRun struct {
	out    session.Outcome
	ok     bool
	judged judgment
	// agent names the subagent that makes the call (subagentFields), nil
	// for the main thread's: a rejudge of the call tells its hooks too.
	agent map[string]json.RawMessage
}

// subagentFields are the stdin fields that name the subagent making a
// bridged call, as the agent gives them to its own hooks (agent_id,
// agent_type: Claude Code's common input fields, which Codex sends too):
// a subagent's tool call reaches the user's hooks as it would in the
// agent, so a hook can tell it from the main thread's. Nil when the input
// names none.
func subagentFields(in *acpmsg.BridgeInput) map[string]json.RawMessage {
	var extra map[string]json.RawMessage
	for k, v := range map[string]string{"agent_id": in.AgentID, "agent_type": in.AgentType} {
		if v != "" {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = mustRaw(v)
		}
	}
	return extra
}

// bridgedJudgment records the bridge's decision on a tool call: what it
// was made for (the agent's hook input, and the call as the proxy knew it),
// and, unless it denied, that the call may go on with exactly that input.
// The caller holds the session's lock.
func (t *toolState) bridgedJudgment(out session.Outcome, ok, denied bool, tool string, input json.RawMessage) {
	t.judge(&hookCall{tool: tool, input: input})
	t.bridged = &bridgedRun{out: out, ok: ok, judged: *t.judged}
	if denied {
		t.judged = nil
	}
}

// bridged is the integration of the agent behind the bridge, nil when none:
// it says whether the agent's description of a call is what its hook got
// (agents.Integration.SameCall).
func (p *Proxy) bridged() agents.Integration {
	if b := p.bridgeLoaded.Load(); b != nil {
		return b.integration()
	}
	return nil
}

// withBridge is the editor's session/new, session/load or session/resume
// request as it goes to the agent: with the bridge's hook added when the
// agent is bridged. A request the hook cannot be added to is answered with
// an error (ok false): the session would run tools no hook sees.
func (p *Proxy) withBridge(m *message) (line []byte, ok bool) {
	b := p.bridgeOf()
	if b == nil || m.Method == methodSessionClose {
		return m.line, true
	}
	if b.err != nil {
		m.passed = true
		p.sendEditor(errorLine(m.ID, rpcerr.InternalError, "wavehooks cannot guard this agent's tool calls "+
			"(its hook bridge did not start: "+b.err.Error()+"), so the session is not started", nil))
		return nil, false
	}
	// Read as every workspace file is (issue #35 item 4): a FIFO or a device
	// at the path is refused without blocking, and no more than a settings
	// file's cap is read.
	bound := "" // session/new and fork: the agent makes the id; bound on first use
	if m.Method == methodSessionLoad || m.Method == methodSessionResume {
		bound = sessionIDOf(m.Params)
	}
	httpHook, err := b.sessionHook(bound)
	if err != nil {
		m.passed = true
		p.sendEditor(errorLine(m.ID, rpcerr.InternalError, "wavehooks cannot guard this session's tool calls: "+err.Error(), nil))
		return nil, false
	}
	line, err = b.integration().SessionRequest(m.line, agents.Hook{Command: b.command, HTTP: httpHook}, func(path string) ([]byte, error) {
		return safefile.ReadFile(path, hooksettings.MaxSettingsFileBytes)
	})
	if err != nil {
		p.log.Warn("the session was refused: the hook bridge could not add its PreToolUse hook to its settings",
			"method", m.Method, "err", err)
		m.passed = true
		p.sendEditor(errorLine(m.ID, rpcerr.InvalidParams, "wavehooks cannot add its PreToolUse hook to this session, "+
			"so its hooks could not stop the agent's tools: the request's _meta.claudeCode.options.settings: "+err.Error(), nil))
		return nil, false
	}
	return line, true
}

// fireBridged runs the PreToolUse hooks of a tool call the agent's own hook
// system handed over (claude-agent-acp's and Codex's bridge). An ask is the
// agent's own prompt or the proxy's, which comes after the hooks: the
// answer stays "ask" here, as at a permission request. agent, when not
// nil, is what the hooks' stdin says of the subagent making the call.
func (p *Proxy) fireBridged(ctx context.Context, st *sessState, t *toolState, tool string, input json.RawMessage, agent map[string]json.RawMessage) (session.Outcome, bool) {
	p.flushText(st)
	return p.fire(ctx, st, event.PreToolUse, tool, func(ctx context.Context) (session.Outcome, error) {
		var pend *session.Pending
		var err error
		if agent == nil {
			pend, err = st.session().StartPreToolUse(ctx, t.id, tool, input)
		} else { // StartHooks passes on to the stdin the fields PreToolUse does not take
			pend, err = st.session().StartHooks(ctx, event.Input{Event: event.PreToolUse, ToolName: tool, ToolInput: input, ToolUseID: t.id, Extra: agent})
		}
		if err != nil {
			return session.Outcome{}, err
		}
		return pend.Finish(pend.Facts(flow.AskedElsewhere))
	})
}
