package conformance

import (
	"fmt"
	"strings"
)

// Kind says why a difference between Claude Code and wavehooks is expected.
type Kind string

// The kinds of known differences.
const (
	// Gap: issue #14 lists it as a gap to close; the row turns "same" when
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
	model("pre-exit2-allow-json", "TOK_PRE2J_ERR"): exit2AllowJSON,
	row("pre-exit2-allow-json", "tools that ran"):  exit2AllowJSON,

	model("pre-deny-no-reason", "Blocked by hook"): {Gap, `a deny without a reason: Claude Code tells the model "Blocked by hook", wavehooks "denied by a PreToolUse hook" (issue #14: use its text)`},

	row("pre-ask", "model calls"):               askDesign,
	model("pre-ask", "TOK_ASK_REASON"):          askDesign,
	row("pre-allow", "hooks that ran"):          noDecision,
	row("pre-allow", "tools that ran"):          noDecision,
	row("pre-continue-false", "hooks that ran"): continueFalse,
	row("pre-continue-false", "tools that ran"): continueFalse,

	model("pre-system-message", "TOK_PRE_SYSMSG"): {Gap, "systemMessage is for the user only in Claude Code; wavehooks puts the warn block into the conversation as [Warning] text (issue #14: keep warn blocks out of apiMessages)"},

	model("post-updated-output", "SECRET_7d1f"): {Gap, "updatedToolOutput is ignored, so the secret a redaction hook removes reaches the model (issue #14)"},

	row("stop-context", "hooks that ran"): stopContext,
	row("stop-context", "model calls"):    stopContext,
	model("stop-context", "TOK_STOP_CTX"): stopContext,

	row("session-env-file", "tools that ran"): envFile,
	model("session-env-file", "TOK_ENV_CTX"):  envFile,

	row("if-condition", "hooks that ran"): ifCondition,
	row("if-condition", "tools that ran"): ifCondition,

	row("exec-form", "hooks that ran"): execForm,
	row("exec-form", "tools that ran"): execForm,
	model("exec-form", "TOK_EXEC_ERR"): execForm,
}

// Reasons shared by several rows.
var (
	exit2AllowJSON = Known{Found, "a hook that exits 2 blocks in Claude Code 2.1.330 whatever its stdout says; wavehooks lets stdout's JSON decide (docs/hooks.md, \"JSON output\"), so an allow printed before exit 2 runs the tool"}
	askDesign      = Known{Design, `"ask" goes to the editor's user in wavehooks (the suite's host answers Deny, and a user's Deny ends the turn: docs/hooks.md); Claude Code -p has no one to ask, denies with the hook's reason as the tool error and goes on`}
	noDecision     = Known{Gap, "an explicit PreToolUse allow skips Claude Code's permission prompt; wavehooks' result cannot say that a hook decided, so the host asks PermissionRequest, whose hook says nothing, and the tool does not run (issue #14: PreToolUse cannot say \"no decision\"; see preToolUseDecided in conformance/wave.go)"}
	continueFalse  = Known{Found, "Claude Code 2.1.330 still runs the tool (and its PostToolUse hooks) when PreToolUse answers continue:false, then stops; wavehooks denies the tool (docs/hooks.md: continue:false beats every other field)"}
	stopContext    = Known{Gap, "Stop's additionalContext makes Claude Code go on with it (as Stop hook feedback); wavehooks parses and drops it (issue #14)"}
	envFile        = Known{Gap, "wavehooks sets no CLAUDE_ENV_FILE: the set -u SessionStart hook fails, so its context is lost and the variable never reaches the Bash command (issue #14)"}
	ifCondition    = Known{Gap, `the hook's "if": "Bash(git *)" is ignored, so the guard meant for git commands blocks touch too (issue #14)`}
	execForm       = Known{Gap, "${CLAUDE_PROJECT_DIR} is not substituted in the exec form (command + args): the guard cannot start and the tool runs (issue #14)"}
)

// knownItems are the single differences expected in stdin, environment and
// replay rows: "Event.key" or "*.key" for a stdin key, "env NAME" for a
// variable, "replay key" for a replayed stdin.
var knownItems = map[string]Known{
	"*.permission_mode":                {Gap, "issue #14: permission_mode on every event"},
	"*.prompt_id":                      {Gap, "issue #14: prompt_id where the client gives one (the suite's host has none to give yet)"},
	"*.effort":                         {Host, "the model's effort level is the agent host's setting; wavehooks has no model"},
	"PostToolUse.duration_ms":          {Gap, "issue #14: duration_ms"},
	"PostToolUseFailure.duration_ms":   {Gap, "issue #14: duration_ms (Claude Code sends it on failures too)"},
	"Stop.last_assistant_message":      {Gap, "issue #14: last_assistant_message, from the session"},
	"Stop.background_tasks":            {Gap, "issue #14: background_tasks"},
	"Stop.session_crons":               {Host, "Claude Code's scheduled prompts (CronCreate), a feature of the agent, not of hooks"},
	"PreToolUse.mcp_server":            {Found, "Claude Code names the MCP server of an MCP tool call ({name, source}); wavehooks has no field for it, and the host gives none"},
	"PostToolUse.order":                {Found, "wavehooks writes tool_use_id before tool_response; Claude Code the other way round"},
	"PermissionRequest.order":          sortedKeys14,
	"PostToolUseFailure.order":         sortedKeys14,
	"replay order":                     {Gap, "issue #14: `wavehooks run` rebuilds the stdin with its keys sorted; keep the order the client sent"},
	"env WAVE_PROJECT_DIR":             {Design, "wavehooks' own name for the project root, beside CLAUDE_PROJECT_DIR (docs/hooks.md)"},
	"env AI_AGENT":                     claudeInternal,
	"env CLAUDE_CODE_CHILD_NOTES_DIR":  claudeInternal,
	"env CLAUDE_CODE_CHILD_SESSION":    claudeInternal,
	"env CLAUDE_CODE_MESSAGING_SOCKET": claudeInternal,
	"env CLAUDE_CODE_MESSAGING_TOKEN":  claudeInternal,
	"env CLAUDE_CODE_SESSION_ATTENDED": claudeInternal,
	"env CLAUDECODE":                   envGap,
	"env CLAUDE_CODE_SESSION_ID":       envGap,
	"env CLAUDE_PID":                   envGap,
	"env CLAUDE_EFFORT":                envGap,
	"env CLAUDE_CODE_ENTRYPOINT":       envGap,
	"env CLAUDE_ENV_FILE":              envGap,
}

var (
	sortedKeys14   = Known{Gap, "issue #14: the stdin of events fired through wave/runHooks is rebuilt with its keys sorted"}
	claudeInternal = Known{Host, "Claude Code's own plumbing (agent id, child sessions, messaging socket), not part of the hooks contract"}
	envGap         = Known{Gap, "issue #14: Claude Code sets it for hooks; decide per variable"}
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
