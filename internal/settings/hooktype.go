package settings

import (
	"encoding/json"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"strings"
	"time"
)

// The five hook types of Claude Code's settings files (docs/hooks.md, "Hook
// types"). Command hooks run a process; http hooks POST the event's JSON to
// a URL; prompt, agent and mcp_tool hooks need a model or the agent's MCP
// servers, which only the agent host has, so the engine hands them to a
// Delegate.
const (
	TypeCommand = "command"
	TypeHTTP    = "http"
	TypePrompt  = "prompt"
	TypeAgent   = "agent"
	TypeMCPTool = "mcp_tool"
)

// HookTypes lists the hook types, for completion and diagnostics.
var HookTypes = []string{TypeCommand, TypeHTTP, TypeMCPTool, TypePrompt, TypeAgent}

// Delegated reports whether hooks of type t are evaluated by the agent host.
func Delegated(t string) bool { return t == TypePrompt || t == TypeAgent || t == TypeMCPTool }

// Default timeouts of prompt and agent hooks, as Claude Code documents them;
// the other types use DefaultTimeout.
const (
	DefaultPromptTimeout = 30 * time.Second
	DefaultAgentTimeout  = 60 * time.Second
)

// HookOptions are the fields of the hook types other than command, and the
// options Claude Code has beyond those of wavehooks' first command hooks.
// They are embedded in Hook.
type HookOptions struct {
	// URL is where an http hook POSTs the event's JSON.
	URL string
	// Headers are an http hook's extra request headers, in file order;
	// their values may name the environment variables of AllowedEnvVars.
	Headers []Header
	// AllowedEnvVars are the environment variables an http hook's header
	// values may interpolate ($NAME or ${NAME}); others become "".
	AllowedEnvVars []string

	// Prompt is a prompt or agent hook's prompt; $ARGUMENTS stands for the
	// event's JSON input.
	Prompt string
	// Model is the model a prompt or agent hook asks for ("" lets the agent host choose).
	Model string
	// ContinueOnBlock makes a prompt hook's ok:false feed the reason back
	// to the model where the event would otherwise end the turn.
	ContinueOnBlock bool

	// Server and Tool name the MCP tool an mcp_tool hook calls; Input are
	// its arguments (a JSON object whose strings may hold ${path}
	// references into the event's input), nil for none.
	Server string
	Tool   string
	Input  json.RawMessage

	// Once runs the hook at most once per session.
	Once bool
	// Shell is the shell that runs a command hook's command: "" (sh),
	// "bash", "sh", "zsh", "powershell" or "pwsh".
	Shell string
	// AsyncRewake makes an async command hook that exits 2 wake the agent
	// with its stderr (stdout when stderr is empty). It implies Async.
	AsyncRewake bool
	// OnFailure is what a failure of a command, http or mcp_tool hook does
	// (onfailure.go): "" or "continue" reports it and the action goes
	// ahead; "block" counts it as exit 2, so the action the event guards
	// is blocked.
	OnFailure string
}

// The values of a hook's "onFailure".
const (
	OnFailureContinue = "continue"
	OnFailureBlock    = "block"
)

// OnFailureValues are the values of "onFailure", for the schema and completion.
var OnFailureValues = []string{OnFailureContinue, OnFailureBlock}

// Header is one configured HTTP header of an http hook.
type Header struct {
	Name, Value string
}

// Shells are the values of a command hook's "shell".
var Shells = []string{"bash", "sh", "zsh", "powershell", "pwsh"}

// typeDisplay is how a hook that is not a command reads in the history,
// the trust prompt and messages.
func (h *Hook) typeDisplay() string {
	switch h.Type {
	case TypeHTTP:
		return "POST " + h.URL
	case TypePrompt, TypeAgent:
		p := strings.Join(strings.Fields(h.Prompt), " ")
		if r := []rune(p); len(r) > 60 {
			p = string(r[:59]) + "…"
		}
		s := h.Type + ": " + p
		if h.Model != "" {
			s += " (model " + h.Model + ")"
		}
		return s
	case TypeMCPTool:
		return "mcp_tool " + h.Server + "/" + h.Tool
	}
	return ""
}

// typeKey is what distinguishes two hooks of a type other than command,
// and the options that change what a command hook does, for runKey and the
// trust hash. It is "" for a command hook without those options, so that
// such hooks key (and hash) as they did before the options existed.
func (h *Hook) typeKey() string {
	var b strings.Builder
	if h.Type != "" && h.Type != TypeCommand {
		b.WriteString("\x02type\x00" + h.Type)
		switch h.Type {
		case TypeHTTP:
			b.WriteString("\x00" + h.URL)
			for _, hd := range h.Headers {
				b.WriteString("\x00h\x00" + hd.Name + "\x00" + hd.Value)
			}
			for _, v := range h.AllowedEnvVars {
				b.WriteString("\x00e\x00" + v)
			}
		case TypePrompt, TypeAgent:
			b.WriteString("\x00" + h.Prompt + "\x00" + h.Model)
			if h.ContinueOnBlock {
				b.WriteString("\x00continueOnBlock")
			}
		case TypeMCPTool:
			b.WriteString("\x00" + h.Server + "\x00" + h.Tool + "\x00" + string(h.Input))
		}
	}
	if h.Shell != "" {
		b.WriteString("\x02shell\x00" + h.Shell)
	}
	if h.AsyncRewake {
		b.WriteString("\x02asyncRewake")
	}
	if h.Once {
		b.WriteString("\x02once")
	}
	return b.String()
}

// TypeSupport says on which events Claude Code runs each hook type: the
// table's HookTypes by event (event.EventSpec.HookTypes).
var TypeSupport = func() map[event.Event]event.HookTypeSet {
	m := map[event.Event]event.HookTypeSet{}
	for _, s := range event.Table() {
		m[s.Event] = s.HookTypes
	}
	return m
}()

// TypeRunsOn reports whether Claude Code runs hooks of type t on event ev,
// and if not, says so in words. Unknown events allow every type.
func TypeRunsOn(t string, ev event.Event) (bool, string) {
	switch TypeSupport[ev] {
	case event.NoModelHookTypes:
		if t == TypePrompt || t == TypeAgent {
			return false, string(ev) + " runs command, http and mcp_tool hooks, not " + t + " hooks (as in Claude Code)"
		}
	case event.StartHookTypes:
		if t == TypeHTTP || t == TypePrompt || t == TypeAgent {
			return false, string(ev) + " runs command and mcp_tool hooks only, not " + t + " hooks (as in Claude Code)"
		}
	}
	return true, ""
}

// describeOptions are the words Describe adds for the newer fields: what a
// person trusting the hook should know it does besides what Display shows.
func (h *Hook) describeOptions() []string {
	var opts []string
	if len(h.Headers) > 0 {
		names := make([]string, len(h.Headers))
		for i, hd := range h.Headers {
			names[i] = hd.Name + ": " + hd.Value
		}
		opts = append(opts, "headers "+strings.Join(names, "; "))
	}
	if len(h.AllowedEnvVars) > 0 {
		opts = append(opts, "sending $"+strings.Join(h.AllowedEnvVars, ", $"))
	}
	if h.Type == TypeMCPTool && len(h.Input) > 0 {
		opts = append(opts, "input "+string(h.Input))
	}
	if h.Shell != "" {
		opts = append(opts, "with "+h.Shell)
	}
	if h.AsyncRewake {
		opts = append(opts, "waking the agent on exit 2")
	}
	if h.Once {
		opts = append(opts, "once per session")
	}
	if h.OnFailure == OnFailureBlock {
		opts = append(opts, "blocking when it fails")
	}
	return opts
}

// OnFailureNote says why a hook's onFailure does nothing, "" when it counts.
func OnFailureNote(ev event.Event, h *Hook) string {
	switch {
	case h.OnFailure != OnFailureBlock:
		return ""
	case h.Async:
		return "onFailure is ignored for async hooks: the event does not wait for them"
	case onFailureIgnored(ev):
		return fmt.Sprintf("onFailure is ignored on %s, as in Claude Code: a failed hook never keeps the agent working", ev)
	}
	return ""
}

// onFailureIgnored reports whether Claude Code ignores onFailure on ev
// (event.EventSpec.OnFailureIgnored).
func onFailureIgnored(ev event.Event) bool {
	s, _ := event.Spec(ev)
	return s.OnFailureIgnored
}
