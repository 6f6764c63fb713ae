package acp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/hooks"
	"github.com/wavehooks/wavehooks/internal/session"
)

// The hook bridge for codex-acp (issue #26 item 5). codex-acp 0.16.0 offers
// three modes: read-only (Codex asks on request; commands run in a read-only
// sandbox without asking), auto (the same in a sandbox that may write the
// workspace) and full-access (never asks, no sandbox). In none of them does
// every command go through session/request_permission, so hooks that decide
// only there see most commands not at all. Codex runs hooks of its own,
// though, in every mode: a PreToolUse command hook before each tool call,
// with Claude Code's input (tool_name "Bash", tool_input.command, the ACP
// session id as session_id, the tool call's id as tool_use_id) and Claude
// Code's deny output. So the proxy gives Codex one: the same `wavehooks
// acp-hook` command claude-agent-acp's Claude Code gets, passed as `-c`
// config overrides on codex-acp's command line (Codex's session-flags config
// layer), with the hook's trusted hash beside it — Codex runs a hook that is
// not managed only once the user trusted its exact definition, and the
// session-flags layer is one of the two (with the user's config.toml) whose
// trust it reads. The hash is the one Codex computes for a trusted hook: the
// SHA-256 of the hook's identity as canonical JSON (keys sorted, no spaces),
// prefixed "sha256:".
//
// Codex's PreToolUse only blocks: it cannot ask the user, and what it does
// with an allow depends on its version. So the bridge answers Codex with a
// deny or with nothing (Codex's own mode then decides, and a permission
// request it makes for the same call reuses the hooks' decision), and puts
// a hook's ask to the user itself, as for a file request
// (askUser): allowed, Codex is answered with nothing; rejected, with a deny.

// codexHookTimeout is the timeout, in seconds, of the bridge's hook in Codex.
// A hook Codex gives up on does not block the tool, so it is long: an ask
// may wait for the user.
const codexHookTimeout = 3600

// codexHookKey is Codex's key for the first hook of the session-flags
// layer's PreToolUse: <layer's config path>:<event>:<group>:<handler>.
const codexHookKey = "/<session-flags>/config.toml:pre_tool_use:0:0"

// isCodexACP says whether the agent's command runs codex-acp (the program
// itself, its npm package or its JavaScript entry).
func isCodexACP(command []string) bool {
	for _, a := range command {
		if strings.Contains(filepath.Base(filepath.ToSlash(a)), "codex-acp") {
			return true
		}
	}
	return false
}

// codexAgentCommand is the agent's command as the proxy starts it: for
// codex-acp, with the bridge's hook and its trust added as -c overrides. A
// bridge that cannot start leaves the command as it is; its error then
// refuses every session (withBridge), so that no session runs tools no hook
// sees.
func (p *Proxy) codexAgentCommand(command []string) []string {
	if !isCodexACP(command) || bridgedAgent("", command) {
		return command
	}
	b, err := p.startBridge()
	if err == nil {
		var args []string
		args, err = codexHookArgs(b.command)
		if err == nil {
			b.codex = true
			return append(append([]string{}, command...), args...)
		}
		p.mu.Lock()
		b.err = err
		p.mu.Unlock()
	}
	p.log.Error("codex-acp's tool calls cannot be hooked in every mode; its sessions are refused", "err", err)
	return command
}

// codexHookArgs are the -c overrides that give Codex the bridge's hook and
// trust it. The command must be printable ASCII, so that its TOML and JSON
// forms are exactly the ones Codex hashes; anything else is an error (the
// hook would not be trusted, and would silently not run).
func codexHookArgs(command string) ([]string, error) {
	for _, r := range command {
		if r < 0x20 || r > 0x7e {
			return nil, fmt.Errorf("the hook command %q has a character Codex's trust hash could differ on", command)
		}
	}
	hash, err := codexHookHash(command, codexHookTimeout)
	if err != nil {
		return nil, err
	}
	quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(command) + `"`
	return []string{
		"-c", fmt.Sprintf(`hooks.PreToolUse=[{hooks=[{type="command",command=%s,timeout=%d}]}]`, quoted, codexHookTimeout),
		"-c", fmt.Sprintf(`hooks.state={%q={trusted_hash=%q}}`, codexHookKey, hash),
	}, nil
}

// codexHookHash is the hash Codex trusts a PreToolUse command hook with no
// matcher by: its normalized identity (the event's key, and the group with
// the handler's type, command, timeout and async) as canonical JSON.
func codexHookHash(command string, timeout int) (string, error) {
	// The fields in the order of their names: canonical JSON sorts keys.
	type handler struct {
		Async   bool   `json:"async"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
		Type    string `json:"type"`
	}
	identity := struct {
		EventName string    `json:"event_name"`
		Hooks     []handler `json:"hooks"`
	}{"pre_tool_use", []handler{{Command: command, Timeout: timeout, Type: "command"}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// codexPreToolUse answers the bridge's hook in Codex: the user's PreToolUse
// hooks run for the tool call as at a permission request; a deny (or hooks
// that could not run) is Codex's deny, whose reason its model reads; an ask,
// or an updatedInput Codex cannot take from a hook, is put to the user here,
// through the editor; anything else is no answer ({}), and Codex's mode
// decides. The outcome is kept for a permission request Codex may then make
// for the same call, so the hooks run once per tool call and the user is
// asked once.
func (p *Proxy) codexPreToolUse(in *acpmsg.BridgeInput) []byte {
	if in.Event != string(event.PreToolUse) || in.ToolName == "" || in.ToolUseID == "" || in.SessionID == "" {
		return mustRaw(bridgeDeny(fmt.Sprintf("wavehooks' hook bridge got %q for tool %q (id %q, session %q); "+
			"it only answers PreToolUse for a named tool call of a session", in.Event, in.ToolName, in.ToolUseID, in.SessionID)))
	}
	st, t := p.bridgedTool(in)
	if st == nil {
		return mustRaw(bridgeDeny("wavehooks denied the tool: " + unopenedReason(in.SessionID)))
	}
	st.mu.Lock()
	if t.title == "" { // Codex shows the tool call only after its hooks
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
	out, ok := p.fireBridged(ctx, st, t, in.ToolName, in.ToolInput)
	kept := out // what a permission request for the same call reuses
	d := flow.Decide(event.PreToolUse, in.ToolName, in.ToolInput, ok, &out.Answer)
	act := actionFor(d, ctx.Err() != nil, codexBridgePoint)
	reason, note, askWhy := act.refuse, act.note, act.askUser
	if act.allow {
		note = "allowed: the agent's own mode decides"
	} else if reason == "" && askWhy == "" {
		note = "no decision: the agent's own mode decides"
	}
	if askWhy != "" {
		if p.askUser(ctx, st, t, session.AskRequest{Reason: askWhy, ToolInput: in.ToolInput}) {
			note = "the user allowed it when asked"
			kept.Decision, kept.Permission, kept.Asked = string(hooks.PermissionAllow), string(hooks.PermissionAllow), true
			kept.Result.UpdatedInput = nil
		} else {
			reason, note = "The user rejected it when a PreToolUse hook asked: "+askWhy, "the user rejected it when asked"
		}
	}
	denied := reason != ""
	st.mu.Lock()
	t.recorded = t.recorded || ok
	t.checked = "the agent's PreToolUse hook"
	t.bridgedJudgment(kept, ok, denied, in.ToolName, in.ToolInput)
	t.denied = t.denied || denied
	if denied {
		t.denyReason = reason // a later update of the call keeps it (keepDenyReason)
	}
	st.mu.Unlock()
	p.finish(st, event.PreToolUse, in.ToolName, &out, note)
	if ok && !denied && len(out.AdditionalContext) > 0 {
		st.addPending(marked(event.PreToolUse, out.AdditionalContext)...) // with the next prompt
	}
	if d.Verdict == flow.VerdictStop {
		p.stopTurn(st)
	}
	if !denied {
		return []byte("{}")
	}
	if ctx.Err() == nil {
		// Codex shows no tool call it blocked: the editor is shown one,
		// failed, with the reason, and the reason in the reply.
		p.showToolFailed(st, t, reason)
		p.deniedMessage(st, t, event.PreToolUse, reason)
		p.flush() // the bridge is not the proxy's read loop: nothing else sends it now
	}
	return mustRaw(bridgeDeny(reason))
}
