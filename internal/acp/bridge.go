package acp

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/session"
	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// The hook bridge (issue #26 item 5). claude-agent-acp starts its sessions
// in modes that never ask for permission (auto, acceptEdits,
// bypassPermissions), so the proxy's PreToolUse at session/request_permission
// would see nothing there. Claude Code runs its own PreToolUse hooks in
// every mode, so the proxy gives it one more: a command hook, added to the
// session's settings through session/new's _meta.claudeCode.options.settings
// (the adapter passes it to the Claude Agent SDK, which hands it to Claude
// Code as a --settings layer). The command is `wavehooks acp-hook`, which
// hands its stdin to the proxy over a unix socket the proxy owns, in a
// private 0700 directory, with a random token; the proxy runs the user's
// PreToolUse hooks for the tool call and answers with Claude Code's hook
// JSON. The permission request that may follow for the same tool call
// reuses that answer instead of running the hooks again.

// bridgeHookTimeout is the timeout, in seconds, Claude Code gives the
// bridge's hook: a hook that times out does not block the tool in Claude
// Code, so it is as long as a user's hook could reasonably wait.
const bridgeHookTimeout = 3600

// bridgeMaxInput bounds one hook input read from the socket.
const bridgeMaxInput = 64 << 20

// bridge is the socket the bridged agent's hook command talks to.
type bridge struct {
	p       *Proxy
	dir     string
	sock    string
	token   string
	command string
	ln      net.Listener
	wg      sync.WaitGroup
	// codex: the bridge serves codex-acp's Codex (codexmodes.go), whose hook
	// is on its command line, not in the sessions' _meta.
	codex bool
	// err says why the bridge could not start: the agent's sessions are
	// then refused (withBridge), not run with tools no hook sees.
	err error
}

// bridgedAgent says whether the agent is claude-agent-acp (or its older
// name), by the name it gave in initialize or by its command line.
func bridgedAgent(agentName string, command []string) bool {
	if nativeClaudeHooks(agentName) {
		return true
	}
	for _, a := range command {
		if nativeClaudeHooks(filepath.ToSlash(a)) {
			return true
		}
	}
	return false
}

// startBridge opens the bridge's socket once; later calls return the same
// bridge. An error means the agent's sessions cannot be bridged: it is kept
// in the bridge, which then refuses them.
func (p *Proxy) startBridge() (*bridge, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bridge != nil {
		return p.bridge, p.bridge.err
	}
	b, err := p.openBridge()
	if err != nil {
		b = &bridge{p: p, err: err}
	}
	p.bridge = b
	return b, err
}

// openBridge makes the bridge's directory, token and socket, and starts
// answering on it.
func (p *Proxy) openBridge() (*bridge, error) {
	exe := p.opts.HookExe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("the hook bridge needs wavehooks' own path: %w", err)
		}
	}
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
	b.command = shellQuote(exe) + " acp-hook --socket " + shellQuote(b.sock) + " --token " + b.token
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

// isCodex says whether the bridge serves codex-acp.
func (b *bridge) isCodex() bool {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	return b.codex
}

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
	var answer acpmsg.BridgeAnswer
	switch {
	case err == nil && b.isCodex():
		_, _ = conn.Write(b.p.codexPreToolUse(&in))
		return
	case err != nil:
		answer = bridgeDeny("wavehooks could not read the hook's input (" + err.Error() + "); the tool is not allowed")
	default:
		answer = b.p.bridgePreToolUse(&in)
	}
	_, _ = conn.Write(mustRaw(answer))
}

// bridgeDeny is Claude Code's PreToolUse answer that denies with a reason.
func bridgeDeny(reason string) acpmsg.BridgeAnswer {
	return acpmsg.BridgeAnswer{HookSpecificOutput: acpmsg.PreToolUseOutput{HookEventName: string(event.PreToolUse),
		PermissionDecision: "deny", PermissionDecisionReason: &reason}}
}

func ptr[T any](v T) *T { return &v }

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

// bridgePreToolUse runs the user's PreToolUse hooks for a tool call Claude
// Code is about to make, through the session package as at a permission
// request, and makes Claude Code's answer: deny (also when the hooks could
// not run), ask, allow (with a hook's updatedInput), or no decision, when
// Claude Code's own permission flow decides and a permission request may
// follow (requestPermission then reuses this outcome).
func (p *Proxy) bridgePreToolUse(in *acpmsg.BridgeInput) acpmsg.BridgeAnswer {
	if in.Event != string(event.PreToolUse) || in.ToolName == "" || in.ToolUseID == "" {
		return bridgeDeny(fmt.Sprintf("wavehooks' hook bridge got %q for tool %q (id %q); it only answers PreToolUse for a named tool call",
			in.Event, in.ToolName, in.ToolUseID))
	}
	if in.SessionID == "" {
		return bridgeDeny("the hook input names no session, so wavehooks' PreToolUse hooks cannot run; the tool is not allowed")
	}
	st, t := p.bridgedTool(in)
	if st == nil {
		return bridgeDeny("wavehooks denied the tool: " + unopenedReason(in.SessionID))
	}
	ctx := st.ctx()
	out, ok := p.fireBridged(ctx, st, t, in.ToolName, in.ToolInput)
	var answer acpmsg.BridgeAnswer // set by a deny
	denied := true
	specific := acpmsg.PreToolUseOutput{HookEventName: string(event.PreToolUse)}
	d := flow.Decide(event.PreToolUse, in.ToolName, in.ToolInput, ok, &out.Answer)
	act := actionFor(d, ctx.Err() != nil, claudeBridgePoint)
	note := act.note
	switch {
	case act.refuse != "":
		answer = bridgeDeny(act.refuse)
	case act.askAgent != "" || d.Verdict == flow.VerdictAsk:
		specific.PermissionDecision, specific.PermissionDecisionReason = "ask", ptr(act.askAgent)
	case act.allow:
		specific.PermissionDecision = "allow"
		if d.UserReason != "" {
			specific.PermissionDecisionReason = ptr(d.UserReason)
		}
		if act.rewrite {
			specific.UpdatedInput = out.ToolInput
		}
	}
	if answer.HookSpecificOutput.HookEventName == "" { // no deny
		denied = false
		if len(out.AdditionalContext) > 0 {
			specific.AdditionalContext = ptr(strings.Join(out.AdditionalContext, "\n"))
		}
		answer = acpmsg.BridgeAnswer{HookSpecificOutput: specific}
	}
	if d.Verdict == flow.VerdictStop {
		answer.Continue, answer.StopReason = ptr(false), ptr(d.UserReason)
	}
	st.mu.Lock()
	t.recorded = t.recorded || ok
	t.checked = "the agent's PreToolUse hook"
	t.bridgedJudgment(out, ok, denied, in.ToolName, in.ToolInput)
	t.denied = t.denied || denied
	st.mu.Unlock()
	p.finish(st, event.PreToolUse, in.ToolName, &out, note)
	if denied && ctx.Err() == nil {
		p.deniedMessage(st, t, event.PreToolUse, *answer.HookSpecificOutput.PermissionDecisionReason)
		p.flush() // the bridge is not the proxy's read loop: nothing else sends it now
	}
	return answer
}

// bridgedOutcome is the outcome of the PreToolUse hooks the bridge already
// ran for a tool call, if it ran them on the input a permission request
// for it carries (name, input): that request reuses it, so that the hooks
// run once per tool call. A request that carries another input gets no
// outcome, and its own input is judged; other is then the input the bridge
// judged, for the log.
func (st *sessState) bridgedOutcome(t *toolState, name string, input json.RawMessage, codex bool) (out session.Outcome, ok, bridged bool, other json.RawMessage) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if t.bridged == nil {
		return session.Outcome{}, false, false, nil
	}
	if !t.bridged.judged.agrees(name, input, codex) {
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

// bridgesCodex says whether the agent is codex-acp behind the bridge,
// whose descriptions of a call have Codex's shape (sameAsHook).
func (p *Proxy) bridgesCodex() bool {
	b := p.bridgeOf()
	return b != nil && b.isCodex()
}

// bridgeSettings adds the bridge's hook to a session/new, session/load,
// session/resume or session/fork request's
// _meta.claudeCode.options.settings, keeping what the editor put there (its
// settings object, or the file it names, read relative to the session's
// cwd, through safefile: a regular file of at most 4 MiB). The request is returned unchanged, with an error, when it
// cannot be read: the caller refuses the session rather than start it
// without the file's settings (its permission rules, say) or without the
// bridge's hook.
func (b *bridge) bridgeSettings(line []byte) ([]byte, error) {
	var msg acpmsg.Object
	if err := json.Unmarshal(line, &msg); err != nil {
		return line, err
	}
	params, err := objectMember(msg, "params")
	if err != nil || isNull(msg["params"]) {
		return line, errors.New("its params are not an object")
	}
	meta, err := objectMember(params, "_meta")
	if err != nil {
		return line, err
	}
	cc, err := objectMember(meta, "claudeCode")
	if err != nil {
		return line, err
	}
	options, err := objectMember(cc, "options")
	if err != nil {
		return line, err
	}
	var file string
	if json.Unmarshal(options["settings"], &file) == nil && !isNull(options["settings"]) {
		var cwd string
		_ = json.Unmarshal(params["cwd"], &cwd)
		if !filepath.IsAbs(file) {
			file = filepath.Join(cwd, file) // as the adapter resolves it
		}
		// Read as every workspace file is (issue #35 item 4): a FIFO or a
		// device at the path is refused without blocking, and no more
		// than a settings file's cap is read.
		data, err := safefile.ReadFile(file, hooksettings.MaxSettingsFileBytes)
		var s acpmsg.Object
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err == nil && s == nil {
			err = errors.New("it is not an object")
		}
		if err != nil {
			return line, fmt.Errorf("the settings file it names: %w", err)
		}
		options["settings"] = mustRaw(s)
	}
	settings, err := objectMember(options, "settings")
	if err != nil {
		return line, err
	}
	hk, err := objectMember(settings, "hooks")
	if err != nil {
		return line, err
	}
	var pre []json.RawMessage
	if raw := hk["PreToolUse"]; !isNull(raw) && (json.Unmarshal(raw, &pre) != nil || pre == nil) {
		return line, errors.New("its settings' event.PreToolUse is not a list")
	}
	// A repository's .claude/settings.json could turn every hook off,
	// the bridge's with them; this layer ranks above the project's.
	settings["disableAllHooks"] = mustRaw(false)
	hk["PreToolUse"] = mustRaw(append(pre, mustRaw(acpmsg.ClaudeHookMatcher{Matcher: "*", Hooks: []acpmsg.ClaudeCommandHook{
		{Type: "command", Command: b.command, Timeout: bridgeHookTimeout}}})))
	settings["hooks"] = mustRaw(hk) // each level goes back into its parent, innermost first
	options["settings"] = mustRaw(settings)
	cc["options"] = mustRaw(options)
	meta["claudeCode"] = mustRaw(cc)
	params["_meta"] = mustRaw(meta)
	msg["params"] = mustRaw(params)
	return append(mustRaw(msg), '\n'), nil
}

// objectMember is the object at parent[key], as an Object whose members
// keep their bytes; an empty one when the member is absent or null.
func objectMember(parent acpmsg.Object, key string) (acpmsg.Object, error) {
	raw := parent[key]
	if isNull(raw) {
		return acpmsg.Object{}, nil
	}
	var obj acpmsg.Object
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("its %s is not an object", key)
	}
	return obj, nil
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
	if b.isCodex() {
		return m.line, true // its hook is on codex-acp's command line
	}
	line, err := b.bridgeSettings(m.line)
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
// answer stays "ask" here, as at a permission request.
func (p *Proxy) fireBridged(ctx context.Context, st *sessState, t *toolState, tool string, input json.RawMessage) (session.Outcome, bool) {
	p.flushText(st)
	return p.fire(ctx, st, event.PreToolUse, tool, func(ctx context.Context) (session.Outcome, error) {
		pend, err := st.session().StartPreToolUse(ctx, t.id, tool, input)
		if err != nil {
			return session.Outcome{}, err
		}
		return pend.Finish(pend.Facts(flow.AskedElsewhere))
	})
}
