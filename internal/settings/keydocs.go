package settings

import (
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"strings"
)

// KeyDocs explains the keys of a settings file, for hover and completion:
// the settings' own keys (settingKeyDocs) and those of the hook types and
// the http hook policy (typeKeyDocs, typedocs.go), joined in one literal
// place rather than by an init function.
var KeyDocs = joinKeyDocs(settingKeyDocs, typeKeyDocs)

// settingKeyDocs explain the keys of the settings and of every hook.
var settingKeyDocs = map[string]string{
	"hooks":                 "Hook commands by event name. Hooks from the user, project and local settings all run; none overrides another.",
	"matcher":               "Which tool names (PreToolUse, PostToolUse), sources (SessionStart) or reasons (SessionEnd) the group applies to; hover an event for what its matcher is compared with. Empty or `*` matches all; `Write|Edit` is an exact list; anything else is a regular expression, e.g. `mcp__github__.*`.",
	"type":                  "The kind of hook: `command` (a shell command), `http` (POST the event's JSON to `url`), `prompt` and `agent` (a model judges `prompt`; the editor's agent evaluates it), `mcp_tool` (call `tool` of the agent's MCP `server`).",
	"command":               "The shell command to run (`sh -c`), in the project root, with the event's JSON on stdin and WAVE_PROJECT_DIR / CLAUDE_PROJECT_DIR set.",
	"timeout":               "Seconds the hook may run before its whole process group is killed (default 600; 30 for UserPromptSubmit and in VS Code's hook files, 10 for MessageDisplay, as Claude Code and VS Code do). A timed-out hook is an error, never a success.",
	"disableAllHooks":       "Turns every hook off, except those of the managed settings file (which can only be turned off there).",
	"transcriptFormat":      "`json` (default) keeps the session as `{id, state: {messages}}`; `jsonl` writes one Anthropic-API message per line.",
	"importClaudeHooks":     "Also run the hooks of Claude Code's settings files (~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json).",
	"importVSCodeHooks":     "Also run the hooks of VS Code's hook files, `.github/hooks/*.json` (workspace files: they need the workspace trusted).",
	"importAgentHooks":      "Also run the hooks of other agents' hook files, in their own formats: `gemini` (~/.gemini/settings.json, .gemini/settings.json), `codex` (~/.codex/hooks.json, .codex/hooks.json), `cursor` (~/.cursor/hooks.json, .cursor/hooks.json). Workspace files need the workspace trusted.",
	"allowManagedHooksOnly": "Only in a managed settings file (/etc/wave/managed-settings.json, or Claude Code's /etc/claude-code/managed-settings.json): ignore the hooks of every other settings file.",
	"driftRequiresApproval": "In the user's or the managed settings: a hook that something other than wavehooks or your editor added to or changed in your own settings (~/.wave/settings.json, ~/.claude/settings.json) does not run until you approve it (`wavehooks hooks approve ID`).",
	"args":                  "Exec form: run `command` directly as a program with these arguments. No shell is involved: spaces, `$VARS` and `;` reach the program as written.",
	"cwd":                   "Directory the hook runs in, relative to the project root (it may not lead outside it). Default: the project root.",
	"env":                   "Extra environment variables for the hook: an object of strings, e.g. `{\"LOG_LEVEL\": \"debug\"}`.",
	"linux":                 "Command to run instead of `command` on Linux (VS Code's per-OS override).",
	"osx":                   "Command to run instead of `command` on macOS (VS Code's per-OS override).",
	"windows":               "Command to run instead of `command` on Windows (VS Code's per-OS override).",
	"statusMessage":         "Text shown in the editor's progress notification while the hook runs.",
	"if":                    "One permission rule, as in Claude Code: the hook runs only for tool calls that match it. `Bash(git *)` (any subcommand starting with git), `Edit(*.ts)`, `Read(//etc/**)`, `mcp__github__create_issue`. Tool events only.",
	"enabled":               "`false` turns the hook (on a matcher group: every hook of the group) off without deleting it: it never runs, and the hook-run history shows it skipped (disabled). wavehooks' own key (Gemini CLI and Codex have one; Claude Code has none and ignores it). A workspace hook that is off needs no trust to stay off; turning it back on is a change the workspace must be trusted for again. Toggle it with the editor's code action or `wavehooks hooks disable|enable ID`.",
	"async":                 "`true` runs the hook in the background: the event never waits for it; its `additionalContext` and `systemMessage` reach the model with the session's next event, and everything else is only reported in the hook-run history. Its timeout still applies. Command hooks only.",
}

// RootKeys are the keys of a settings file, for completion.
var RootKeys = []string{"hooks", "disableAllHooks", "transcriptFormat", "importClaudeHooks", "importVSCodeHooks", "importAgentHooks", "allowManagedHooksOnly",
	"allowedHttpHookUrls", "httpHookAllowedEnvVars", "driftRequiresApproval"}

// HookKeys are the keys of a hook command, for completion.
var HookKeys = []string{"type", "command", "timeout", "args", "cwd", "env", "statusMessage", "async", "if", "linux", "osx", "windows",
	"asyncRewake", "shell", "once", "url", "headers", "allowedEnvVars", "prompt", "model", "continueOnBlock", "server", "tool", "input",
	"onFailure", "enabled"}

// EventDoc is the hover text of an event: when it fires, its stdin, and what
// exit code 2 means for it.
func EventDoc(e event.Event) (string, bool) {
	s, ok := event.Spec(e)
	if !ok {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** — %s\n\n", e, s.Summary)
	fields := append(append([]string{}, event.CommonFields...), s.Fields...)
	fmt.Fprintf(&b, "stdin: `%s`\n\n", strings.Join(fields, "`, `"))
	switch {
	case s.MatcherDoc != "":
		fmt.Fprintf(&b, "matcher: %s\n\n", s.MatcherDoc)
	case s.MatchField != "":
		fmt.Fprintf(&b, "matcher: compared with `%s`", s.MatchField)
		if vals := s.MatcherValues; len(vals) > 0 {
			fmt.Fprintf(&b, " (`%s`)", strings.Join(vals, "`, `"))
		}
		b.WriteString("\n\n")
	default:
		b.WriteString("matcher: ignored — the hooks run on every event\n\n")
	}
	if s.Answer != "" {
		fmt.Fprintf(&b, "JSON: %s\n\n", s.Answer)
	}
	other := "a non-blocking error shown to the user"
	if s.Quiet {
		other = "ignored (recorded in the run history)"
	}
	if e == event.WorktreeCreate {
		other = "fails the worktree creation"
	}
	fmt.Fprintf(&b, "exit 0: success · exit 2: %s · other: %s", s.Exit2, other)
	return b.String(), true
}

// KnownTools are the tool names offered when completing a matcher.
var KnownTools = []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "WebFetch", "WebSearch",
	"Task", "TodoWrite", "NotebookEdit", "NotebookRead", "ExitPlanMode", "BashOutput", "KillShell", "mcp__.*"}

// GroupKeys are the keys of a matcher group.
var GroupKeys = []string{"matcher", "hooks", "enabled"}
