//go:build linux

package conformance

import (
	"fmt"
	"strings"
)

// Kind says why a difference between Claude Code and wavehooks is expected.
type Kind string

// The kinds of known differences.
const (
	// Gap: issue #14 or #24 lists it as a gap to close; the row turns "same" when
	// the fix is merged, and the suite then fails until the entry is removed.
	Gap Kind = "gap"
	// Design: wavehooks differs on purpose, as its docs say.
	Design Kind = "design"
	// Host: the value belongs to the agent host (its model, its modes, its
	// own features), which gives it to wavehooks or not.
	Host Kind = "host"
	// Found: found by this suite, not yet decided.
	Found Kind = "found"
)

// Known is an expected difference and why.
type Known struct {
	Kind Kind
	Why  string
}

// knownRows are the rows expected to differ, by Row.ID.
var knownRows = map[string]Known{

	row("pre-ask", "model calls"):                askDesign,
	model("pre-ask", "TOK_ASK_REASON"):           askDesign,
	row("pre-continue-false", "hooks that ran"):  continueFalse,
	row("pre-continue-false", "tools that ran"):  continueFalse,
	model("skill-shell-deny", "TOK_PSSC_REASON"): {Host, `the expanded text of a slash command, with its shell commands' output or Claude Code's "[not run: blocked by hook: REASON]", is the agent host's; the suite's host submits the prompt as typed (as UserPromptSubmit sees it) and sends no expansion`},
	model("setup-context", "TOK_SETUP_CTX"):      {Found, "Claude Code (2.1.330 and 2.1.332) runs Setup hooks for --init before the session's conversation exists, and their additionalContext never reaches the model in -p mode; wavehooks adds it to the conversation, as Claude Code's hooks reference documents"},
}

// Reasons shared by several rows.
var (
	askDesign     = Known{Design, `"ask" goes to the editor's user in wavehooks (the suite's host answers Deny, and a user's Deny ends the turn: docs/hooks.md); Claude Code -p has no one to ask, denies with the hook's reason as the tool error and goes on`}
	continueFalse = Known{Found, "Claude Code (2.1.330 and 2.1.332) still runs the tool (and its PostToolUse hooks) when PreToolUse answers continue:false, then stops; wavehooks denies the tool (docs/hooks.md: continue:false beats every other field)"}
)

// knownItems are the single differences expected in stdin, environment and
// replay rows: "Event.key" or "*.key" for a stdin key, "env NAME" for a
// variable, "replay key" for a replayed stdin.
var knownItems = map[string]Known{
	"*.prompt_id":                      {Gap, "issue #14: prompt_id where the client gives one (the suite's host has none to give yet)"},
	"PreSkillShellCommand.tool_use_id": {Host, "the id of a skill's shell command is the agent host's (Claude Code 2.1.332: `<session id>:inner:preamble-N` from a slash command, `<tool id>:preamble-N` from a skill the model loads); the suite's host makes its own of the same form"},
	"*.effort":                         {Host, "the model's effort level is the agent host's setting; wavehooks has no model"},
	"PostToolBatch.tool_calls[].tool_response": {Host, "the text the model sees of a tool's result is the agent host's rendering (Claude Code's \"(Bash completed with no output)\", \"Task #1 created successfully: …\"); the suite's host reports the tool's response object, which wavehooks keeps as that text"},
	"PreToolUse.mcp_server":                    {Found, "Claude Code names the MCP server of an MCP tool call ({name, source}); wavehooks has no field for it, and the host gives none"},
	"PermissionRequest.order":                  sortedKeys14,
	"PostToolUseFailure.order":                 sortedKeys14,
	"env WAVEHOOKS_HOOK_RUN":                   {Design, "a marker every process of a hook run inherits, so that a child that left the hook's process group is still found and killed (docs/security.md)"},
	"UserPromptSubmit.user_prompt":             waveAlias,
	"SessionEnd.end_source":                    waveAlias,
	"replay user_prompt":                       waveAlias,
	"replay end_source":                        waveAlias,
	"env WAVE_PROJECT_DIR":                     {Design, "wavehooks' own name for the project root, beside CLAUDE_PROJECT_DIR (docs/hooks.md)"},
	"env AI_AGENT":                             claudeInternal,
	"env CLAUDE_CODE_CHILD_NOTES_DIR":          claudeInternal,
	"env CLAUDE_CODE_CHILD_SESSION":            claudeInternal,
	"env CLAUDE_CODE_MESSAGING_SOCKET":         claudeInternal,
	"env CLAUDE_CODE_MESSAGING_TOKEN":          claudeInternal,
	"env CLAUDE_CODE_SESSION_ATTENDED":         claudeInternal,
	"env CLAUDE_EFFORT":                        {Host, "the model's effort level: set for hooks only when the agent host gives it (effort), which the suite's host does not (docs/parity.md)"},
	"env CLAUDE_CODE_ENTRYPOINT":               {Design, "not set: any value would misstate how Claude Code was started (docs/parity.md, Claude Code compatibility details)"},
}

var (
	waveAlias      = Known{Design, "Wave's own name for the field, sent beside Claude Code's (prompt, reason) so hooks written for Wave run unchanged (docs/parity.md)"}
	sortedKeys14   = Known{Host, "the suite's host sends wave/runHooks input as a Go map, whose keys encoding/json sorts; wavehooks keeps the order the client sent (the replay rows prove it)"}
	claudeInternal = Known{Host, "Claude Code's own plumbing (agent id, child sessions, messaging socket), not part of the hooks contract"}
)

func row(scenario, aspect string) string { return scenario + " / " + aspect }

func model(scenario, text string) string { return row(scenario, modelAspect(text)) }

// modelAspect names the row that says where text reached the model.
func modelAspect(text string) string { return fmt.Sprintf("%q reaches the model", text) }

// lookupItem finds the entry for an item key, the exact one first, then the
// one for every event ("*.key").
func lookupItem(key string) (Known, string, bool) {
	if k, ok := knownItems[key]; ok {
		return k, key, true
	}
	if i := strings.IndexByte(key, '.'); i > 0 && !strings.Contains(key[:i], " ") {
		wild := "*" + key[i:]
		if k, ok := knownItems[wild]; ok {
			return k, wild, true
		}
	}
	return Known{}, "", false
}
