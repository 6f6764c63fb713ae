package settings

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/event"
)

// This file finds hooks that can never run, so that the user learns it
// from lint and the editor before wondering why a hook did not fire: a
// matcher that names no tool the agent has, an "if" rule on a tool the
// group's matcher never lets through, and a hook shadowed by an identical
// one (identical commands run once). A matcher on an event that ignores
// matchers is parse.go's CodeMatcherIgnored; an event the agent host never
// sends is the server's to know (lsp, initializationOptions.hostEvents).

// Diagnostic codes of hooks that can never run.
const (
	// CodeUnknownTool: a tool event's matcher names no tool the agent has.
	// Data is the matcher with the names corrected, when every unknown name
	// has a likely correction.
	CodeUnknownTool = "unknown-tool"
	// CodeIfNeverMatches: the hook's "if" rule names a tool its group's
	// matcher never lets through. Data is that tool: the quick fix gives
	// the hook a group whose matcher is it (MoveHookEdits).
	CodeIfNeverMatches = "if-never-matches"
	// CodeShadowed: an identical hook earlier in configuration order runs
	// for the same calls; this one never runs itself. Its range is the
	// hook's: the quick fix removes it (RemoveHookEdit).
	CodeShadowed = "shadowed-hook"
)

// AgentTools are the tool names hooks see: Claude Code's (2.1.332's hooks
// reference, and older tools Claude Code still reports), and the names the
// ACP proxy gives ACP tool kinds (acp/tools.go, docs/acp.md). MCP tools are
// mcp__<server>__<tool>.
var AgentTools = []string{
	"Bash", "PowerShell", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "WebFetch", "WebSearch",
	"Agent", "Task", "TodoWrite", "NotebookEdit", "NotebookRead", "ExitPlanMode", "BashOutput", "KillShell",
	"AskUserQuestion", "Skill", "SlashCommand", "LSP",
	// The ACP proxy's names for kinds Claude Code has no tool for.
	"Delete", "Move", "Think", "SwitchMode", "Other",
}

// toolAliases are other agents' names for the same tools (Gemini CLI's,
// Codex's), as a user who copies a matcher from their settings writes them.
var toolAliases = map[string]string{
	"read_file": "Read", "read_many_files": "Read", "write_file": "Write", "replace": "Edit", "edit_file": "Edit",
	"run_shell_command": "Bash", "shell": "Bash", "exec": "Bash", "execute": "Bash", "glob": "Glob",
	"search_file_content": "Grep", "grep_search": "Grep", "search": "Grep", "list_directory": "LS", "web_fetch": "WebFetch",
	"google_web_search": "WebSearch", "web_search": "WebSearch", "apply_patch": "Edit", "read": "Read", "edit": "Edit",
	"write": "Write", "fetch": "WebFetch", "delete": "Delete", "move": "Move", "think": "Think",
}

// mcpToolName reports whether name has the shape of an MCP tool's name,
// mcp__<server>__<tool>.
func mcpToolName(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	server, tool, found := strings.Cut(rest, "__")
	return ok && found && server != "" && tool != ""
}

// toolEventNames are the names an event's matcher is compared with, when
// they are a closed list: tool events, and PreSkillShellCommand's shells.
func toolEventNames(ev event.Event) []string {
	if ev == event.PreSkillShellCommand {
		return event.MatcherValues[ev]
	}
	if event.ToolEvent(ev) {
		return AgentTools
	}
	return nil
}

// suggestTool is the known name a misspelt or foreign tool name most
// likely means, or "".
func suggestTool(name string, known []string) string {
	if t, ok := toolAliases[strings.ToLower(name)]; ok && slices.Contains(known, t) {
		return t
	}
	best, bestD := "", 3 // at most two edits away, case aside
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return best
	}
	// A word of a snake_case or kebab-case name that is a tool: write_file → Write.
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' }) {
		for _, k := range known {
			if strings.EqualFold(w, k) {
				return k
			}
		}
	}
	return ""
}

// checkMatcherNames warns about a tool event's matcher that names a tool
// the agent does not have: an exact name that is no tool, a server-only
// MCP name (mcp__memory, which Claude Code compares exactly), or a regular
// expression that no tool name matches.
func (p *fileParser) checkMatcherNames(ev event.Event, v *hujson.Value, m *Matcher) {
	known := toolEventNames(ev)
	if known == nil || m == nil || m.all {
		return
	}
	if m.re != nil {
		if strings.Contains(m.raw, "mcp") {
			return // MCP servers and tools are the user's to name
		}
		for _, k := range known {
			if m.re.MatchString(k) {
				return
			}
		}
		p.report(v, SeverityWarning, CodeUnknownTool, fmt.Sprintf("matcher %q matches none of the tool names %s reports; its hooks never run",
			m.raw, ev), "")
		return
	}
	var unknown, why []string
	fixed := make([]string, 0, len(m.names))
	fixable := true
	for _, n := range m.names {
		switch {
		case slices.Contains(known, n), ev != event.PreSkillShellCommand && mcpToolName(n):
			fixed = append(fixed, n)
		case ev != event.PreSkillShellCommand && strings.HasPrefix(n, "mcp__"):
			unknown = append(unknown, n)
			why = append(why, fmt.Sprintf("%q names an MCP server but no tool: MCP tools are mcp__<server>__<tool>, and a name without '.*' is compared exactly; to take every tool of the server, write %q", n, n+"__.*"))
			if len(m.names) == 1 {
				fixed = append(fixed, strings.TrimSuffix(n, "__")+"__.*")
			} else {
				fixable = false // "a|b.*" would turn the whole list into an unanchored regex
			}
		default:
			unknown = append(unknown, n)
			if s := suggestTool(n, known); s != "" {
				why = append(why, fmt.Sprintf("%q is no tool; did you mean %q?", n, s))
				fixed = append(fixed, s)
			} else {
				why = append(why, fmt.Sprintf("%q is no tool", n))
				fixable = false
			}
		}
	}
	if len(unknown) == 0 {
		return
	}
	effect := "these hooks never run for it"
	if len(unknown) == len(m.names) {
		effect = "these hooks never run"
	}
	data := ""
	if fixable {
		data = strings.Join(fixed, "|")
	}
	p.report(v, SeverityWarning, CodeUnknownTool, fmt.Sprintf("matcher names no tool the agent has: %s; %s",
		strings.Join(why, "; "), effect), data)
}

// checkIfMatcher flags an "if" rule whose tool the group's matcher never
// lets through: the hook needs both, so it never runs.
func (p *fileParser) checkIfMatcher(ev event.Event, m *Matcher, v *hujson.Value, h *Hook) {
	if h.If == nil || m == nil || m.all || !ifEvents[ev] || h.If.malformed || h.If.tool == "" {
		return
	}
	if !m.Match(h.If.tool) {
		p.report(v, SeverityWarning, CodeIfNeverMatches, fmt.Sprintf(
			`"if" names %s, but the group's matcher %q never lets %s calls through: this hook never runs`, h.If.tool, m.raw, h.If.tool), h.If.tool)
	}
}

// shadowKey is what makes two hooks identical for the engine: the same
// event and matcher (so both match the same calls) and the same run key
// (so the engine runs the command once, for the first).
func shadowKey(h *Hook) string {
	return string(h.Event) + "\x00" + strings.TrimSpace(MatcherRaw(h.Matcher)) + "\x00" + h.RunKey()
}

// checkShadowed flags each hook of the file that an identical, enabled
// hook earlier in the file shadows.
func (p *fileParser) checkShadowed() {
	first := map[string]*Hook{}
	for i := range p.file.Hooks {
		h := &p.file.Hooks[i]
		if h.Disabled {
			continue
		}
		k := shadowKey(h)
		if prev, ok := first[k]; ok {
			p.file.Diagnostics = append(p.file.Diagnostics, shadowDiagnostic(h, prev, "line "+fmt.Sprint(prev.Place.Range.Start.Line+1)))
			continue
		}
		first[k] = h
	}
}

func shadowDiagnostic(h, prev *Hook, where string) Diagnostic {
	return Diagnostic{File: h.File, Range: h.Place.Range, Severity: SeverityWarning, Code: CodeShadowed, Message: fmt.Sprintf(
		"this hook never runs: an identical %s hook (%s) with the same matcher runs `%s` first, and identical commands run once; delete this one or turn it off (\"enabled\": false)",
		h.Event, where, h.Display())}
}

// explainShadowed flags the hooks that an identical hook of an earlier
// settings file shadows (within one file, checkShadowed does), so that a
// copy of a user hook in the project's file says it never runs.
func (c *Config) explainShadowed() {
	first := map[string]*Hook{}
	for i := range c.Hooks {
		h := &c.Hooks[i]
		if ok, _ := c.Active(h); !ok {
			continue
		}
		k := shadowKey(h)
		prev, ok := first[k]
		if !ok {
			first[k] = h
			continue
		}
		if prev.File == h.File {
			continue // checkShadowed said so
		}
		for j := range c.Files {
			if c.Files[j].Path == h.File {
				c.Files[j].Diagnostics = append(c.Files[j].Diagnostics,
					shadowDiagnostic(h, prev, fmt.Sprintf("%s settings %s, line %d", prev.Source, prev.File, prev.Place.Range.Start.Line+1)))
			}
		}
	}
}
