// Package agents holds what wavehooks' ACP proxy adds for particular ACP
// agents, each behind one small interface (issue #36 item 2), as gopls
// hands each file kind to a package of its own. Some agents run tools in
// modes that never ask the editor for permission; they do run hooks of
// their own, so the proxy gives them one (`wavehooks acp-hook`, which hands
// its input to the proxy's hook bridge) and answers it. What differs from
// agent to agent is only where that hook goes (the agent's command line,
// or the settings of each session it opens), what its answer can carry,
// and how the agent describes a tool call to the editor next to what its
// hook got. The generic proxy (acp) runs the hooks and decides;
// an Integration says the rest. Adding the next agent is a new file here
// and a line in integrations.
package agents

import (
	"encoding/json"
	"strings"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/rawjson"
)

// Integration is what the proxy needs to know of one agent to hook every
// tool call it makes, in every mode.
type Integration interface {
	// Name names the agent, for the log and the user's messages.
	Name() string
	// Matches says whether an agent, known by the name it gave in
	// initialize ("" before) and its command line, is this one.
	Matches(agentName string, command []string) bool
	// BeforeStart says whether the hook goes on the agent's command line,
	// so that the bridge must exist before the agent starts.
	BeforeStart() bool
	// Command is the agent's command line as the proxy starts it, given
	// the bridge's hook command.
	Command(command []string, hook string) ([]string, error)
	// SessionRequest is a session-opening request line (session/new, load,
	// resume, fork) as it goes to the agent, given the bridge's hook;
	// readFile reads a file the request names, bounded.
	SessionRequest(line []byte, hook Hook, readFile func(path string) ([]byte, error)) ([]byte, error)
	// HTTPHooks says whether the agent started by command, with env, can
	// be given the bridge's hook over http (Hook.HTTP), which costs no
	// process per tool call, and why not when it cannot; readFile reads
	// what the agent has installed, bounded. It must be sure: an agent
	// that does not fail closed on an http hook it cannot reach would run
	// the tool.
	HTTPHooks(command, env []string, readFile func(path string) ([]byte, error)) (ok bool, why string)
	// Caps says what the agent's hook answer can carry.
	Caps() Caps
	// Answer is the agent's hook answer for the proxy's decision.
	Answer(a Answer) []byte
	// SameCall says whether the agent's description of a tool call to the
	// editor (its permission request's or tool_call's name and input, as
	// the proxy reads them) is the call its hook handed the bridge.
	SameCall(hook, described Call) bool
}

// Hook is the bridge's hook, as an agent is given it.
type Hook struct {
	// Command is `wavehooks acp-hook` with the bridge's socket and token:
	// every agent runs it.
	Command string
	// HTTP is the bridge's endpoint on loopback, nil when the agent is
	// not given its hook over http (HTTPHooks).
	HTTP *HTTPHook
}

// HTTPHook is the bridge's http endpoint: the agent POSTs its hook input to
// URL with the header Header set to Secret, which it reads from its
// environment variable EnvVar (so that the secret is in no command line
// and no file; the integration puts it in the agent's environment).
type HTTPHook struct {
	URL    string
	Header string
	EnvVar string
	Secret string
}

// Call is a tool call's name and input.
type Call struct {
	Tool  string
	Input json.RawMessage
}

// Caps is what an agent's hook answer can carry.
type Caps struct {
	// AsksUser: told "ask", the agent asks the user itself, with the
	// reason; otherwise the proxy asks through the editor.
	AsksUser bool
	// TakesRewrite: the agent runs a hook's updatedInput given with an
	// allow; otherwise a rewritten input is put to the user as it is.
	TakesRewrite bool
	// TakesContext: the agent gives its model the answer's
	// additionalContext; otherwise the proxy sends it with the next prompt.
	TakesContext bool
	// Stops: told continue:false, the agent ends its turn; otherwise the
	// proxy cancels the turn.
	Stops bool
	// ShowsRefused: the agent shows the editor a call its hook refused;
	// otherwise the proxy shows it, failed, with the reason.
	ShowsRefused bool
}

// Answer is the proxy's decision on one hooked tool call, for the agent:
// exactly one of Deny, Ask, Allow or none of them (no decision: the
// agent's own permission flow or mode decides).
type Answer struct {
	// Deny is the reason the call is refused with.
	Deny string
	// Ask is the reason the agent asks the user with (Caps.AsksUser);
	// AskSet says an ask was decided even with no reason.
	Ask    string
	AskSet bool
	// Allow: the hooks allowed the call; Reason is their reason, and
	// UpdatedInput the input to run (Caps.TakesRewrite).
	Allow        bool
	Reason       string
	UpdatedInput json.RawMessage
	// Context is the hooks' additionalContext (Caps.TakesContext).
	Context []string
	// Stop: the agent's turn ends (Caps.Stops), with StopReason.
	Stop       bool
	StopReason string
}

// integrations are the agents wavehooks knows, in the order they are tried.
var integrations = []Integration{claudeAgentACP{}, codexACP{}}

// For is the integration of an agent known by its initialize name ("" when
// not known yet) and its command line; nil when wavehooks adds nothing.
func For(agentName string, command []string) Integration {
	for _, ig := range integrations {
		if ig.Matches(agentName, command) {
			return ig
		}
	}
	return nil
}

// RunsClaudeHooks reports whether an agent, named by its initialize
// answer, runs Claude Code's hooks itself (claude-agent-acp runs Claude
// Code, which reads .claude/settings.json): the proxy then leaves those to
// it, or they would run twice.
func RunsClaudeHooks(agentName string) bool {
	n := strings.ToLower(agentName)
	return strings.Contains(n, "claude-agent-acp") || strings.Contains(n, "claude-code-acp")
}

// sameJSON is the SameCall of an agent that describes a call to the editor
// with the tool name and input its hook got: one value, whatever its
// encoding.
func sameJSON(a, b Call) bool {
	return a.Tool == b.Tool && rawjson.SameValue(a.Input, b.Input)
}

// HookFilesOf is the agent, among those whose hook files wavehooks reads
// (agentfmt), that a command line starts and whose own hooks do not all
// fire in its ACP mode: Gemini CLI runs none of its tool hooks there
// (BeforeTool, AfterTool), so the proxy runs them from its files.
// codex-acp runs every hook of its own, and is not one; "" for any other.
func HookFilesOf(command []string) agentfmt.Agent {
	for _, w := range command {
		base := strings.ToLower(w[strings.LastIndexAny(w, `/\`)+1:])
		if base == "gemini" || base == "gemini.js" || strings.HasPrefix(base, "@google/gemini-cli") {
			return agentfmt.Gemini
		}
	}
	return ""
}
