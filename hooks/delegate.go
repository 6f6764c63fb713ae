package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"regexp"
	"strings"
	"time"
)

// Delegate evaluates the hooks that need what only the agent host has: a
// model (prompt and agent hooks) or the agent's MCP servers (mcp_tool
// hooks). The lsp package implements it with the wave/evaluateHook request
// to the editor; without one (`wavehooks run`), such hooks do not run.
type Delegate interface {
	// EvaluateHook returns the answer as JSON: for prompt and agent hooks
	// the model's answer ({"ok": …, "reason": …}, a hook JSON answer, or
	// either as a JSON string of text); for mcp_tool hooks the tool's
	// result ({"content": [{"type": "text", "text": …}], "isError": …}).
	// It returns a *NotSupportedError when the agent host cannot evaluate
	// hooks at all; the call must end when ctx does.
	EvaluateHook(ctx context.Context, ev Evaluation) (json.RawMessage, error)
}

// Evaluation is one hook the agent host is asked to evaluate.
type Evaluation struct {
	// Type is "prompt", "agent" or "mcp_tool".
	Type      string
	Event     event.Event
	SessionID string
	// Input is the event's JSON input, the stdin a command hook would read.
	Input json.RawMessage
	// Timeout is the hook's timeout; the engine cancels ctx when it passes.
	Timeout time.Duration
	// Prompt is the prompt with $ARGUMENTS replaced by Input; Model the
	// model the hook asks for ("" for the agent host's choice).
	Prompt string
	Model  string
	// Server, Tool and Arguments are the MCP tool call of an mcp_tool hook,
	// its ${path} references replaced from Input.
	Server    string
	Tool      string
	Arguments json.RawMessage
}

// NotSupportedError says the agent host cannot evaluate a hook: the hook
// counts as not run, and Why says why.
type NotSupportedError struct{ Why string }

func (e *NotSupportedError) Error() string { return e.Why }

// noAgentHost is why delegated hooks do not run when no Delegate is set.
const noAgentHost = "no agent host is connected to evaluate it: prompt, agent and mcp_tool hooks are evaluated by the " +
	"editor's agent extension through wave/evaluateHook (`wavehooks run` has none)"

// SetDelegate sets who evaluates prompt, agent and mcp_tool hooks; nil
// leaves them not run.
func (e *Engine) SetDelegate(d Delegate) {
	e.types.delegate.Store(&d)
}

// runDelegated asks the agent host to evaluate a prompt, agent or mcp_tool
// hook, within the hook's timeout.
func (e *Engine) runDelegated(ctx context.Context, h *settings.Hook, in event.Input, stdin []byte) hookOutcome {
	var d Delegate
	if p := e.types.delegate.Load(); p != nil {
		d = *p
	}
	if d == nil {
		return hookOutcome{NotRun: noAgentHost}
	}
	input := bytes.TrimSpace(stdin)
	ev := Evaluation{Type: h.Type, Event: in.Event, SessionID: in.SessionID, Input: input, Timeout: h.Timeout, Model: h.Model}
	switch h.Type {
	case settings.TypeMCPTool:
		ev.Server, ev.Tool, ev.Arguments = h.Server, h.Tool, substituteInput(h.Input, input)
	default:
		ev.Prompt = expandArguments(h.Prompt, string(input))
	}
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	start := time.Now()
	answer, err := d.EvaluateHook(tctx, ev)
	o := hookOutcome{Exec: proc.Exec{Duration: time.Since(start)}}
	var ns *NotSupportedError
	switch {
	case errors.As(err, &ns):
		o.NotRun = ns.Why
	case ctx.Err() != nil:
		o.Cancelled, o.ExitCode = true, -1
	case tctx.Err() != nil:
		o.TimedOut, o.ExitCode = true, -1
	case err != nil:
		o.Failure, o.ExitCode = err.Error(), -1
	default:
		o.Stdout = string(compactJSON(answer))
		if len(o.Stdout) > proc.MaxOutput {
			o.Stdout, o.StdoutTruncated = o.Stdout[:proc.MaxOutput], true
		}
	}
	return o
}

// expandArguments puts the event's JSON input into a prompt where it says
// $ARGUMENTS, or after it when it does not; \$ is a literal $.
func expandArguments(prompt, input string) string {
	var b strings.Builder
	found := false
	for i := 0; i < len(prompt); i++ {
		switch {
		case prompt[i] == '\\' && i+1 < len(prompt) && prompt[i+1] == '$':
			b.WriteByte('$')
			i++
		case strings.HasPrefix(prompt[i:], "$ARGUMENTS"):
			b.WriteString(input)
			i += len("$ARGUMENTS") - 1
			found = true
		default:
			b.WriteByte(prompt[i])
		}
	}
	if !found {
		b.WriteString("\n\n" + input)
	}
	return b.String()
}

var inputRefRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// substituteInput replaces, in every string of an mcp_tool hook's input,
// ${a.b} with the value at that path of the event's JSON input: a string
// as it is, anything else as JSON, and a path that leads nowhere as "".
func substituteInput(tmpl, input json.RawMessage) json.RawMessage {
	if len(tmpl) == 0 {
		return json.RawMessage(`{}`)
	}
	var args, in any
	if json.Unmarshal(tmpl, &args) != nil {
		return tmpl
	}
	_ = json.Unmarshal(input, &in)
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return inputRefRE.ReplaceAllStringFunc(x, func(ref string) string {
				return lookupPath(in, ref[2:len(ref)-1])
			})
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	out, err := json.Marshal(walk(args))
	if err != nil {
		return tmpl
	}
	return out
}

// lookupPath finds a dotted path (tool_input.file_path, items.0) in a decoded JSON value.
func lookupPath(v any, path string) string {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// modelAnswer is the answer schema of prompt and agent hooks.
type modelAnswer struct {
	OK         *bool   `json:"ok"`
	Reason     *string `json:"reason"`
	Impossible *bool   `json:"impossible"`
}

// interpretModel reads a prompt or agent hook's answer: {"ok": …} as
// Claude Code's response schema, any other object as a hook JSON answer.
// An answer that is neither is a non-blocking error.
func interpretModel(ev event.Event, h *settings.Hook, raw string) verdict {
	obj, err := answerObject(raw)
	if err != "" {
		return verdict{err: fmt.Sprintf("%s hook `%s`: %s", h.Type, h.Display(), err), summary: "unusable answer: non-blocking error"}
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(obj, &keys)
	if _, ok := keys["ok"]; !ok {
		return strictJSON(ev, h, obj, h.Type)
	}
	var a modelAnswer
	if e := json.Unmarshal(obj, &a); e != nil || a.OK == nil {
		return verdict{err: fmt.Sprintf(`%s hook `+"`%s`"+`: "ok" must be true or false`, h.Type, h.Display()),
			summary: "unusable answer: non-blocking error"}
	}
	if *a.OK {
		return verdict{json: true, summary: "ok: no objection"}
	}
	reason := strings.TrimSpace(deref(a.Reason))
	if reason == "" {
		reason = fmt.Sprintf("the %s hook `%s` said no", h.Type, h.Display())
	}
	answer, note := okFalse(ev, h, reason, a.Impossible != nil && *a.Impossible)
	if answer == nil {
		return verdict{json: true, summary: "ok:false: " + note}
	}
	v, probs := interpretJSON(ev, answer)
	if probs != nil { // cannot happen: okFalse builds valid answers
		return verdict{err: strings.Join(probs, "; "), summary: "internal error"}
	}
	v.json = true
	v.summary = "ok:false: " + note
	return v
}

// answerObject is the JSON object of an answer, which may also come as a
// string of text holding it (what a model printed), fenced or not.
func answerObject(raw string) (json.RawMessage, string) {
	b := bytes.TrimSpace([]byte(raw))
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil, "the answer is not valid JSON"
		}
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "```") {
			s = strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```")
			s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
		}
		b = []byte(s)
	}
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return nil, "the answer is not a JSON object"
	}
	return b, ""
}

// okFalse is what a prompt or agent hook's {"ok": false} does on each
// event, as Claude Code documents it, written as the equivalent hook JSON
// answer; nil when it does nothing there. note describes it for the run
// history. Agent hooks behave as prompt hooks with continueOnBlock.
func okFalse(ev event.Event, h *settings.Hook, reason string, impossible bool) (json.RawMessage, string) {
	cont := h.ContinueOnBlock || h.Type == settings.TypeAgent
	block := func(note string) (json.RawMessage, string) {
		b, _ := json.Marshal(map[string]any{"decision": "block", "reason": reason})
		return b, note
	}
	stop := func(note string) (json.RawMessage, string) {
		b, _ := json.Marshal(map[string]any{"continue": false, "stopReason": reason})
		return b, note
	}
	switch ev {
	case event.Stop, event.SubagentStop:
		if impossible && h.Type == settings.TypePrompt {
			return nil, "impossible: the agent may stop"
		}
		return block("the reason goes back to the model and the agent continues")
	case event.PreToolUse:
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": string(ev),
			"permissionDecision": "deny", "permissionDecisionReason": reason}})
		if cont {
			return b, "deny; the reason goes back to the model"
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["continue"], m["stopReason"] = false, reason
		b, _ = json.Marshal(m)
		return b, "deny, and the turn ends"
	case event.PostToolUse, event.TeammateIdle:
		if cont {
			return block("the reason goes back to the model")
		}
		return stop("the turn ends")
	case event.PermissionRequest, event.PermissionDenied:
		return nil, "no effect on " + string(ev)
	}
	if ev.CanBlock() || settings.TypeSupport[ev] == event.AllHookTypes {
		return block("blocked")
	}
	return nil, "no effect on " + string(ev)
}

// strictJSON reads a JSON answer of an http, prompt or agent hook, where an
// answer that does not validate is a non-blocking error rather than a
// fall-back to an exit code these hooks do not have.
func strictJSON(ev event.Event, h *settings.Hook, obj []byte, what string) verdict {
	v, probs := interpretJSON(ev, obj)
	if probs != nil {
		return verdict{err: fmt.Sprintf("%s hook `%s` answered JSON that does not validate: %s", what, h.Display(), strings.Join(probs, "; ")),
			summary: "invalid JSON answer: non-blocking error"}
	}
	v.json = true
	return v
}

// mcpResult is the part of an MCP tools/call result an mcp_tool hook reads.
type mcpResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// interpretMCP reads an mcp_tool hook's result: the text of its content is
// read like a command hook's stdout after exit 0; isError is a non-blocking
// error.
func interpretMCP(ev event.Event, h *settings.Hook, raw string) verdict {
	var text string
	var r mcpResult
	b := bytes.TrimSpace([]byte(raw))
	switch {
	case len(b) > 0 && b[0] == '"':
		_ = json.Unmarshal(b, &text)
	case json.Unmarshal(b, &r) == nil:
		var parts []string
		for _, c := range r.Content {
			if c.Type == "text" || c.Type == "" {
				parts = append(parts, c.Text)
			}
		}
		text = strings.Join(parts, "\n")
	default:
		return verdict{err: fmt.Sprintf("mcp_tool hook `%s`: the result is not an MCP tool result", h.Display()), summary: "unusable result"}
	}
	if r.IsError {
		msg := fmt.Sprintf("mcp_tool hook `%s` failed", h.Display())
		if t := strings.TrimSpace(text); t != "" {
			msg += ": " + t
		}
		return verdict{err: msg, summary: "isError: non-blocking error"}
	}
	return interpret(ev, h, proc.Exec{Stdout: text})
}
