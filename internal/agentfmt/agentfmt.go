// Package agentfmt translates between wavehooks' hooks (Claude Code's events,
// stdin and answers) and the hook files of other agents: Gemini CLI, Codex
// and Cursor (issue #40). A hook written for one of them reads its own
// agent's stdin and answers in its own agent's shape; wavehooks runs it by
// writing that stdin from its own input (Stdin) and reading its answer back
// into Claude Code's shape (Answer), and exports wavehooks' hooks into those
// files by the same tables read the other way (EventFor, AgentEvents). It
// imports only the event table, so that both the settings parser and the
// engine can use it; docs/parity.md, "Other agents' hook files", is its
// table in prose, every field it cannot carry named.
package agentfmt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wavehooks/wavehooks/internal/event"
)

// Agent names an agent whose hook files wavehooks reads and writes.
type Agent string

// The agents, by the names importAgentHooks and `hooks export --to` take.
const (
	Gemini Agent = "gemini"
	Codex  Agent = "codex"
	Cursor Agent = "cursor"
)

// Agents lists the agents in the order their files are merged.
var Agents = []Agent{Gemini, Codex, Cursor}

// Parse reads an agent's name, as a setting or a flag gives it.
func Parse(name string) (Agent, error) {
	if a := Agent(name); slices.Contains(Agents, a) {
		return a, nil
	}
	return "", fmt.Errorf("unknown agent %q: the agents are gemini, codex and cursor", name)
}

// Mapping is one event of an agent's hook file as wavehooks runs it.
type Mapping struct {
	// Event is wavehooks' (Claude Code's) event.
	Event event.Event
	// Tools, when not "", is the tool matcher the agent's event implies
	// (Cursor's beforeShellExecution is a PreToolUse of Bash); it is
	// combined with the hook's own matcher.
	Tools string
}

// eventTable is each agent's events, by the name its files use.
var eventTable = map[Agent]map[string]Mapping{
	Gemini: {
		"BeforeTool":   {Event: event.PreToolUse},
		"AfterTool":    {Event: event.PostToolUse},
		"BeforeAgent":  {Event: event.UserPromptSubmit},
		"AfterAgent":   {Event: event.Stop},
		"SessionStart": {Event: event.SessionStart},
		"SessionEnd":   {Event: event.SessionEnd},
		"PreCompress":  {Event: event.PreCompact},
		"Notification": {Event: event.Notification},
	},
	Codex: {
		"PreToolUse":        {Event: event.PreToolUse},
		"PermissionRequest": {Event: event.PermissionRequest},
		"PostToolUse":       {Event: event.PostToolUse},
		"UserPromptSubmit":  {Event: event.UserPromptSubmit},
		"Stop":              {Event: event.Stop},
		"SessionStart":      {Event: event.SessionStart},
		"PreCompact":        {Event: event.PreCompact},
		"PostCompact":       {Event: event.PostCompact},
		"SubagentStart":     {Event: event.SubagentStart},
		"SubagentStop":      {Event: event.SubagentStop},
	},
	Cursor: {
		"preToolUse":           {Event: event.PreToolUse},
		"postToolUse":          {Event: event.PostToolUse},
		"beforeShellExecution": {Event: event.PreToolUse, Tools: "Bash"},
		"afterShellExecution":  {Event: event.PostToolUse, Tools: "Bash"},
		"beforeMCPExecution":   {Event: event.PreToolUse, Tools: "mcp__.*"},
		"afterMCPExecution":    {Event: event.PostToolUse, Tools: "mcp__.*"},
		"beforeReadFile":       {Event: event.PreToolUse, Tools: "Read"},
		"afterFileEdit":        {Event: event.PostToolUse, Tools: "Edit|Write|MultiEdit"},
		"beforeSubmitPrompt":   {Event: event.UserPromptSubmit},
		"stop":                 {Event: event.Stop},
		"sessionStart":         {Event: event.SessionStart},
		"sessionEnd":           {Event: event.SessionEnd},
		"preCompact":           {Event: event.PreCompact},
		"subagentStart":        {Event: event.SubagentStart},
		"subagentStop":         {Event: event.SubagentStop},
	},
}

// Unmapped lists, per agent, the events of its hook files that have no
// wavehooks event: their hooks are read, reported, and never run.
var Unmapped = map[Agent][]string{
	Gemini: {"BeforeModel", "AfterModel", "BeforeToolSelection"},
	Codex:  {},
	Cursor: {"afterAgentResponse", "afterAgentThought", "beforeTabFileRead", "afterTabFileEdit"},
}

// EventFor is the wavehooks event of an event name in an agent's file.
func EventFor(a Agent, name string) (Mapping, bool) {
	m, ok := eventTable[a][name]
	return m, ok
}

// AgentEvents lists the agent's event names that map to ev, the general
// one (no implied tools) first; none when the agent has no such event.
func AgentEvents(a Agent, ev event.Event) []string {
	var general, specific []string
	for name, m := range eventTable[a] {
		if m.Event != ev {
			continue
		}
		if m.Tools == "" {
			general = append(general, name)
		} else {
			specific = append(specific, name)
		}
	}
	slices.Sort(general)
	slices.Sort(specific)
	return append(general, specific...)
}

// toolTable is each agent's tool names for Claude Code's, where they differ.
var toolTable = map[Agent]map[string]string{
	Gemini: {"Bash": "run_shell_command", "Read": "read_file", "Write": "write_file", "Edit": "replace",
		"Glob": "glob", "Grep": "grep_search", "LS": "list_directory", "WebFetch": "web_fetch", "WebSearch": "google_web_search",
		"TodoWrite": "write_todos"},
	Codex:  {"Write": "apply_patch", "Edit": "apply_patch", "MultiEdit": "apply_patch"},
	Cursor: {"Bash": "Shell", "Edit": "StrReplace", "MultiEdit": "StrReplace"},
}

// AgentTool is the agent's name of Claude Code's tool (itself when the agent
// has no other name for it).
func AgentTool(a Agent, claude string) string {
	if n, ok := toolTable[a][claude]; ok {
		return n
	}
	if a == Gemini && strings.HasPrefix(claude, "mcp__") {
		return "mcp_" + strings.ReplaceAll(strings.TrimPrefix(claude, "mcp__"), "__", "_")
	}
	return claude
}

// ClaudeTools lists Claude Code's tools the agent's tool name stands for.
func ClaudeTools(a Agent, name string) []string {
	var out []string
	for c, n := range toolTable[a] {
		if n == name {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		out = []string{name}
	}
	return out
}

var (
	wordRE      = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	exactListRE = regexp.MustCompile(`^[A-Za-z0-9_ ,|-]+$`)
)

// MatcherToClaude rewrites an agent's tool matcher into one over Claude
// Code's tool names: each tool name of the agent's in it becomes the Claude
// Code tools it stands for — more names of an exact list ("Write|Edit"), or
// a group of a regular expression. "" and "*" stay.
func MatcherToClaude(a Agent, m string) string {
	if m == "" || m == "*" {
		return m
	}
	exact := exactListRE.MatchString(m)
	return wordRE.ReplaceAllStringFunc(m, func(w string) string {
		cs := ClaudeTools(a, w)
		switch {
		case len(cs) == 1:
			return cs[0]
		case exact:
			return strings.Join(cs, "|")
		}
		return "(?:" + strings.Join(cs, "|") + ")"
	})
}

// MatcherFromClaude rewrites a matcher over Claude Code's tool names into
// the agent's names (Gemini CLI's own `hooks migrate` does the same).
func MatcherFromClaude(a Agent, m string) string {
	if m == "" || m == "*" {
		return m
	}
	out := wordRE.ReplaceAllStringFunc(m, func(w string) string { return AgentTool(a, w) })
	if a == Codex && out != m {
		// apply_patch stands for every file tool: say it once.
		parts := strings.Split(out, "|")
		var uniq []string
		for _, p := range parts {
			if !slices.Contains(uniq, p) {
				uniq = append(uniq, p)
			}
		}
		out = strings.Join(uniq, "|")
	}
	return out
}
