//go:build linux

package conformance

// The scenarios: each is one headless Claude Code session against the fake
// model, and the same session through wavehooks. Hook answers carry TOK_…
// texts so the suite can tell where each reached the model; tools create
// ran-… files so it can tell which ran and with which input.

func bash(id, command string) Block {
	return Call(id, "Bash", map[string]any{"command": command, "description": "conformance step"})
}

// emit prints a JSON answer on stdout.
func emit(json string) string { return "cat <<'JSON'\n" + json + "\nJSON" }

// firstStopOnly runs answer only when no Stop hook blocked before
// (stop_hook_active is false), so that a blocking Stop hook lets the agent
// stop the second time.
func firstStopOnly(answer string) string {
	return `if [ "$(printf '%s' "$input" | jq -r .stop_hook_active)" = true ]; then exit 0; fi` + "\n" + answer
}

const record = "exit 0" // an answer that says nothing: the hook only records

// oneTool is a turn that runs one Bash command that makes ran-1.
var oneTool = [][]Block{{Say("I will create the file."), bash("toolu_01", "touch ran-1")}}

// Scenarios lists every scenario, in the order of the results table.
var Scenarios = []Scenario{
	{
		Name:  "record",
		About: "every event of a -p session, each hook only recording (Bash needs a permission, which a PermissionRequest hook grants)",
		Turns: [][]Block{
			{Say("I will create the file."), bash("toolu_01", "touch ran-1")},
			{bash("toolu_02", "echo failing >&2; exit 3")},
		},
		Allowed: []string{"Read"},
		Hooks: []Hook{
			{Name: "start", Event: "SessionStart", Answer: record},
			{Name: "prompt", Event: "UserPromptSubmit", Answer: record},
			{Name: "pre", Event: "PreToolUse", Answer: record},
			{Name: "permission", Event: "PermissionRequest", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)},
			{Name: "post", Event: "PostToolUse", Answer: record},
			{Name: "failure", Event: "PostToolUseFailure", Answer: record},
			{Name: "stop", Event: "Stop", Answer: record},
			{Name: "end", Event: "SessionEnd", Answer: record},
		},
		Stdin:  []string{"start", "prompt", "pre", "permission", "post", "failure", "stop", "end"},
		Env:    []string{"start", "prompt", "pre", "permission", "post", "failure", "stop", "end"},
		Replay: []string{"start", "prompt", "pre", "permission", "post", "failure", "stop", "end"},
	},

	// PreToolUse
	{
		Name: "pre-exit0", About: "PreToolUse exits 0 with text on stdout and stderr",
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: "echo TOK_PRE0_OUT; echo TOK_PRE0_ERR >&2; exit 0"}},
	},
	{
		Name: "pre-exit1", About: "PreToolUse exits 1 (a non-blocking error)",
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: "echo TOK_PRE1_OUT; echo TOK_PRE1_ERR >&2; exit 1"}},
	},
	{
		Name: "pre-exit2", About: "PreToolUse exits 2: the tool is blocked, stderr is the reason",
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: "echo TOK_PRE2_OUT; echo TOK_PRE2_ERR >&2; exit 2"}},
	},
	{
		Name: "pre-exit2-allow-json", About: "PreToolUse prints a JSON allow on stdout and exits 2",
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"TOK_PRE2J_ALLOW"}}`) + "\necho TOK_PRE2J_ERR >&2; exit 2"}},
	},
	{
		Name: "pre-exit2-deny-json", About: `PreToolUse exits 2 with stderr and a JSON "deny" with a reason on stdout: the JSON's reason is the tool error`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"TOK_PRE2D_REASON"}}`) + "\necho TOK_PRE2D_ERR >&2; exit 2"}},
	},
	{
		Name: "pre-exit2-block-json", About: `PreToolUse exits 2 with stderr and {"decision":"block","reason":…} on stdout`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"decision":"block","reason":"TOK_PRE2B_REASON"}`) + "\necho TOK_PRE2B_ERR >&2; exit 2"}},
	},
	{
		Name: "pre-exit2-ask-json", About: `PreToolUse exits 2 with stderr and a JSON "ask" with a reason on stdout`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"TOK_PRE2A_REASON"}}`) + "\necho TOK_PRE2A_ERR >&2; exit 2"}},
	},
	{
		Name: "pre-deny", About: `PreToolUse JSON permissionDecision "deny" with a reason`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"TOK_DENY_REASON"}}`)}},
	},
	{
		Name: "pre-deny-no-reason", About: `PreToolUse JSON "deny" without a reason: the text the model gets`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`)}},
		Texts: []string{"Blocked by hook"},
	},
	{
		Name: "pre-deny-beats-allow", About: "two PreToolUse hooks, one allows and one denies",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "allow", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"TOK_BEATS_ALLOW"}}`)},
			{Name: "deny", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"TOK_BEATS_DENY"}}`)},
		},
	},
	{
		Name: "pre-ask", About: `PreToolUse JSON "ask" in a session with no one to ask (-p; wavehooks' host answers Deny)`,
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"TOK_ASK_REASON"}}`)},
			{Name: "permission", Event: "PermissionRequest", Answer: record},
		},
	},
	{
		Name: "pre-defer", About: `PreToolUse JSON permissionDecision "defer": -p ends the session with the call unrun (stop_reason tool_deferred), no PostToolUse, no Stop`,
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"TOK_DEFER_REASON"}}`)},
			{Name: "post", Event: "PostToolUse", Answer: record},
			{Name: "stop", Event: "Stop", Answer: record},
			{Name: "end", Event: "SessionEnd", Answer: record},
		},
	},
	{
		Name: "pre-allow", About: `PreToolUse JSON "allow" for a tool that needs a permission: no PermissionRequest`,
		Turns:   oneTool,
		Allowed: []string{"Read"},
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"TOK_ALLOW_REASON"}}`)},
			{Name: "permission", Event: "PermissionRequest", Answer: record},
		},
	},
	{
		Name: "pre-updated-input", About: "PreToolUse allows with updatedInput: the tool runs with the new input",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"touch ran-updated","description":"conformance step"}}}`)},
			{Name: "post", Event: "PostToolUse", Answer: record},
		},
		Stdin: []string{"post"},
	},
	{
		Name: "pre-continue-false", About: "PreToolUse answers continue:false with a stopReason",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"continue":false,"stopReason":"TOK_PRE_STOPREASON"}`)},
			{Name: "post", Event: "PostToolUse", Answer: record},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "pre-system-message", About: "PreToolUse JSON systemMessage (a warning for the user)",
		Turns: oneTool,
		Hooks: []Hook{{Name: "pre", Event: "PreToolUse", Answer: emit(`{"systemMessage":"TOK_PRE_SYSMSG"}`)}},
	},

	// PostToolUse and PostToolUseFailure
	{
		Name: "post-exit1", About: "PostToolUse exits 1",
		Turns: oneTool,
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: "echo TOK_POST1_OUT; echo TOK_POST1_ERR >&2; exit 1"}},
	},
	{
		Name: "post-exit2", About: "PostToolUse exits 2: stderr is feedback for the model",
		Turns: oneTool,
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: "echo TOK_POST2_OUT; echo TOK_POST2_ERR >&2; exit 2"}},
	},
	{
		Name: "post-exit2-json", About: `PostToolUse exits 2 with stderr and {"decision":"block","reason":…} on stdout`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: emit(`{"decision":"block","reason":"TOK_POST2J_REASON"}`) + "\necho TOK_POST2J_ERR >&2; exit 2"}},
	},
	{
		Name: "post-block-context", About: `PostToolUse JSON decision "block" with a reason, and additionalContext`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: emit(`{"decision":"block","reason":"TOK_POST_REASON","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"TOK_POST_CTX"}}`)}},
	},
	{
		Name: "post-updated-output", About: "PostToolUse replaces a secret in Bash's output with updatedToolOutput",
		Turns: [][]Block{{bash("toolu_01", "touch ran-1; printf 'SECRET_%s\\n' 7d1f")}},
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":{"stdout":"[redacted]","stderr":"","interrupted":false,"isImage":false}}}`)}},
		Texts: []string{"SECRET_7d1f"},
	},
	{
		Name: "post-mcp-output", About: `PostToolUse updatedMCPToolOutput replaces an MCP tool's output and is ignored on a Bash call`,
		MCP:   true,
		Turns: [][]Block{{Call("toolu_01", mcpTool, map[string]any{"name": "ran-mcp"})}, {bash("toolu_02", "touch ran-1; echo TOK_BASH_ORIG")}},
		Hooks: []Hook{
			{Name: "post-mcp", Event: "PostToolUse", Matcher: mcpTool, Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"TOK_MCP_NEW"}]}}`)},
			{Name: "post-bash", Event: "PostToolUse", Matcher: "Bash", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"stdout":"TOK_BASH_NEW","stderr":"","interrupted":false,"isImage":false}}}`)},
		},
		Texts: []string{"touched ran-mcp", "TOK_BASH_ORIG"},
	},
	{
		Name: "post-continue-false", About: "PostToolUse answers continue:false after the first of two tools",
		Turns: [][]Block{{bash("toolu_01", "touch ran-1")}, {bash("toolu_02", "touch ran-2")}},
		Hooks: []Hook{
			{Name: "post", Event: "PostToolUse", Answer: emit(`{"continue":false,"stopReason":"TOK_POST_STOPREASON"}`)},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "failure-exit2", About: "a failing Bash command: PostToolUseFailure (not PostToolUse) runs, exit 2 is feedback",
		Turns: [][]Block{{bash("toolu_01", "echo failing >&2; exit 3")}},
		Hooks: []Hook{
			{Name: "post", Event: "PostToolUse", Answer: record},
			{Name: "failure", Event: "PostToolUseFailure", Answer: "echo TOK_FAIL2_ERR >&2; exit 2"},
		},
	},
	{
		Name: "failure-exit2-json", About: `PostToolUseFailure exits 2 with stderr and {"reason":…} (no decision) on stdout`,
		Turns: [][]Block{{bash("toolu_01", "echo failing >&2; exit 3")}},
		Hooks: []Hook{{Name: "failure", Event: "PostToolUseFailure", Answer: emit(`{"reason":"TOK_FAIL2J_REASON"}`) + "\necho TOK_FAIL2J_ERR >&2; exit 2"}},
	},

	// UserPromptSubmit
	{
		Name: "prompt-exit0", About: "UserPromptSubmit exits 0: stdout is context",
		Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: "echo TOK_UPS0_OUT; echo TOK_UPS0_ERR >&2; exit 0"}},
	},
	{
		Name: "prompt-exit1", About: "UserPromptSubmit exits 1",
		Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: "echo TOK_UPS1_OUT; echo TOK_UPS1_ERR >&2; exit 1"}},
	},
	{
		Name: "prompt-exit2", About: "UserPromptSubmit exits 2: the prompt is blocked",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "prompt", Event: "UserPromptSubmit", Answer: "echo TOK_UPS2_ERR >&2; exit 2"},
			{Name: "stop", Event: "Stop", Answer: record},
			{Name: "end", Event: "SessionEnd", Answer: record},
		},
	},
	{
		Name: "prompt-exit2-json", About: `UserPromptSubmit exits 2 with stderr and {"decision":"block","reason":…} on stdout: the prompt is blocked`,
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "prompt", Event: "UserPromptSubmit", Answer: emit(`{"decision":"block","reason":"TOK_UPS2J_REASON"}`) + "\necho TOK_UPS2J_ERR >&2; exit 2"},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "prompt-block", About: `UserPromptSubmit JSON decision "block" with a reason`,
		Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: emit(`{"decision":"block","reason":"TOK_UPS_REASON"}`)}},
	},
	{
		Name: "prompt-context", About: "UserPromptSubmit JSON additionalContext",
		Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"TOK_UPS_CTX"}}`)}},
	},

	// Stop
	{
		Name: "stop-block", About: `Stop JSON decision "block" once; the second stop has stop_hook_active`,
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: firstStopOnly(emit(`{"decision":"block","reason":"TOK_STOP_REASON"}`))}},
		Stdin: []string{"stop"},
	},
	{
		Name: "stop-exit2", About: "Stop exits 2 once: stderr is feedback and the agent goes on",
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: firstStopOnly("echo TOK_STOP2_ERR >&2; exit 2")}},
	},
	{
		Name: "stop-exit2-json", About: `Stop exits 2 once with stderr and {"decision":"block","reason":…} on stdout: the JSON's reason is the feedback (issue #24)`,
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: firstStopOnly(emit(`{"decision":"block","reason":"TOK_STOP2J_REASON"}`) + "\necho TOK_STOP2J_ERR >&2; exit 2")}},
	},
	{
		Name: "stop-exit2-json-no-stderr", About: `Stop exits 2 once with only {"reason":…} (no decision, no stderr) on stdout`,
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: firstStopOnly(emit(`{"reason":"TOK_STOP2R_REASON"}`) + "\nexit 2")}},
	},
	{
		Name: "stop-exit1", About: "Stop exits 1: the agent stops",
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: "echo TOK_STOP1_OUT; echo TOK_STOP1_ERR >&2; exit 1"}},
	},
	{
		Name: "stop-context", About: "Stop JSON additionalContext once: the agent goes on with it",
		Turns: [][]Block{{Say("First answer.")}, {Say("Second answer.")}},
		Hooks: []Hook{{Name: "stop", Event: "Stop", Answer: firstStopOnly(emit(`{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"TOK_STOP_CTX"}}`))}},
	},

	// SessionStart and SessionEnd
	{
		Name: "session-start", About: "SessionStart stdout and additionalContext; matchers on source and reason; SessionEnd exit 2",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "start-out", Event: "SessionStart", Answer: "echo TOK_SS_OUT"},
			{Name: "start-ctx", Event: "SessionStart", Matcher: "startup", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"TOK_SS_CTX"}}`)},
			{Name: "start-resume", Event: "SessionStart", Matcher: "resume", Answer: record},
			{Name: "end-exit2", Event: "SessionEnd", Answer: "echo TOK_SE2_ERR >&2; exit 2"},
			{Name: "end-other", Event: "SessionEnd", Matcher: "other", Answer: record},
			{Name: "end-logout", Event: "SessionEnd", Matcher: "logout", Answer: record},
		},
	},
	{
		Name: "session-start-host", About: "SessionStart initialUserMessage (a first user turn before the prompt) and sessionTitle",
		Turns: [][]Block{{Say("TOK_REPLY_ONE")}, {Say("TOK_REPLY_TWO")}},
		Hooks: []Hook{
			{Name: "start", Event: "SessionStart", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"SessionStart","initialUserMessage":"TOK_SS_INITIAL","sessionTitle":"conf title"}}`)},
			{Name: "prompt", Event: "UserPromptSubmit", Answer: record},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "session-env-file", About: "SessionStart (set -u) writes an export to $CLAUDE_ENV_FILE; a later Bash command uses it",
		Turns: [][]Block{{bash("toolu_01", `touch "ran-${CONF_VAR:-unset}"`)}},
		Hooks: []Hook{{Name: "start", Event: "SessionStart", Answer: "set -u\necho 'export CONF_VAR=fromhook' >>\"$CLAUDE_ENV_FILE\"\necho TOK_ENV_CTX"}},
	},

	// PermissionRequest
	{
		Name: "permission-allow", About: `PermissionRequest JSON behavior "allow"`,
		Turns: oneTool, Allowed: []string{"Read"},
		Hooks: []Hook{{Name: "permission", Event: "PermissionRequest", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)}},
	},
	{
		Name: "permission-deny", About: `PermissionRequest JSON behavior "deny" with a message`,
		Turns: oneTool, Allowed: []string{"Read"},
		Hooks: []Hook{{Name: "permission", Event: "PermissionRequest", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"TOK_PERM_DENY"}}}`)}},
	},
	{
		Name: "permission-exit2-deny-json", About: `PermissionRequest exits 2 with stderr and a JSON "deny" with a message on stdout`,
		Turns:   oneTool,
		Allowed: []string{"Read"},
		Hooks:   []Hook{{Name: "permission", Event: "PermissionRequest", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"TOK_PR2J_MSG"}}}`) + "\necho TOK_PR2J_ERR >&2; exit 2"}},
	},
	{
		Name: "expansion-exit2-json", About: `UserPromptExpansion exits 2 with stderr and {"decision":"block","reason":…} on stdout`,
		Prompt: "/greet world", Files: laterFiles, Turns: oneTool,
		Hooks: []Hook{{Name: "expansion", Event: "UserPromptExpansion", Answer: emit(`{"decision":"block","reason":"TOK_UPE2J_REASON"}`) + "\necho TOK_UPE2J_ERR >&2; exit 2"}},
	},
	{
		Name: "permission-updated-input", About: `PermissionRequest "allow" with updatedInput`,
		Turns: oneTool, Allowed: []string{"Read"},
		Hooks: []Hook{{Name: "permission", Event: "PermissionRequest", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"touch ran-perm-updated","description":"conformance step"}}}}`)}},
	},

	// Matchers and hook options
	{
		Name: "matchers", About: "PreToolUse matchers on a Bash call and an MCP tool call (exact names, lists, regexes, case, spaces)",
		Turns: [][]Block{{bash("toolu_01", "touch ran-bash")}, {Call("toolu_02", mcpTool, map[string]any{"name": "ran-mcp"})}},
		MCP:   true,
		Hooks: []Hook{
			{Name: "m-Bash", Event: "PreToolUse", Matcher: "Bash", Answer: record},
			{Name: "m-Write-or-Edit", Event: "PreToolUse", Matcher: "Write|Edit", Answer: record},
			{Name: "m-Bash-or-Write", Event: "PreToolUse", Matcher: "Bash|Write", Answer: record},
			{Name: "m-comma-list", Event: "PreToolUse", Matcher: "Write, Bash", Answer: record},
			{Name: "m-regex", Event: "PreToolUse", Matcher: "^Ba.*h$", Answer: record},
			{Name: "m-substring", Event: "PreToolUse", Matcher: "ash", Answer: record},
			{Name: "m-lowercase", Event: "PreToolUse", Matcher: "bash", Answer: record},
			{Name: "m-trailing-space", Event: "PreToolUse", Matcher: "Bash ", Answer: record},
			{Name: "m-star", Event: "PreToolUse", Matcher: "*", Answer: record},
			{Name: "m-mcp-server-regex", Event: "PreToolUse", Matcher: "mcp__conf__.*", Answer: record},
			{Name: "m-mcp-exact", Event: "PreToolUse", Matcher: mcpTool, Answer: record},
			{Name: "m-mcp-server-only", Event: "PreToolUse", Matcher: "mcp__conf", Answer: record},
			{Name: "m-mcp-any-server", Event: "PreToolUse", Matcher: "mcp__.*__touch", Answer: record},
		},
		Stdin: []string{"m-mcp-exact"},
	},
	{
		Name: "if-condition", About: `a PreToolUse hook with "if": "Bash(git *)" that blocks, and two commands, one of them git`,
		Turns: [][]Block{{bash("toolu_01", "touch ran-1")}, {bash("toolu_02", "git --version >/dev/null 2>&1; touch ran-git")}},
		Hooks: []Hook{{Name: "git-guard", Event: "PreToolUse", Matcher: "Bash", If: "Bash(git *)", Answer: "echo TOK_IF_ERR >&2; exit 2"}},
	},
	{
		Name: "exec-form", About: "a PreToolUse guard in the exec form (command with ${CLAUDE_PROJECT_DIR} and args) that blocks",
		Turns: oneTool,
		Hooks: []Hook{{Name: "guard", Event: "PreToolUse", Exec: true, Answer: "echo TOK_EXEC_ERR >&2; exit 2"}},
	},

	// Claude Code's later events: those 2.1.330 fires in a -p session
	// (docs/parity.md says which it does not, and why).
	{
		Name:   "later-record",
		About:  "the later events of a -p session started with --init, a CLAUDE.md and a slash command as the prompt; two parallel tool calls, a cd, a task created and completed; each hook only recording",
		Prompt: "/greet world",
		Args:   []string{"--init"},
		Files:  laterFiles,
		Turns: [][]Block{
			{Say("Two at once."), bash("toolu_01", "touch ran-1"), bash("toolu_02", "touch ran-2")},
			{bash("toolu_03", "mkdir -p sub && cd sub && touch ../ran-cd")},
			{Call("toolu_04", "TaskCreate", map[string]any{"subject": "Write tests", "description": "conformance"})},
			{Call("toolu_05", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})},
		},
		Allowed: taskTools,
		Hooks: []Hook{
			{Name: "setup", Event: "Setup", Answer: record},
			{Name: "instructions", Event: "InstructionsLoaded", Answer: record},
			{Name: "expansion", Event: "UserPromptExpansion", Answer: record},
			{Name: "batch", Event: "PostToolBatch", Answer: record},
			{Name: "display", Event: "MessageDisplay", Answer: record},
			{Name: "cwd", Event: "CwdChanged", Answer: record},
			{Name: "task-created", Event: "TaskCreated", Answer: record},
			{Name: "task-completed", Event: "TaskCompleted", Answer: record},
		},
		Stdin:  []string{"setup", "instructions", "expansion", "batch", "display", "cwd", "task-created", "task-completed"},
		Env:    []string{"setup", "instructions", "expansion", "batch", "display", "cwd", "task-created", "task-completed"},
		Replay: []string{"setup", "instructions", "expansion", "batch", "display", "cwd", "task-created", "task-completed"},
	},
	{
		Name: "setup-context", About: "Setup (--init) prints plain stdout and JSON additionalContext",
		Args:  []string{"--init"},
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "setup-out", Event: "Setup", Answer: "echo TOK_SETUP_OUT"},
			{Name: "setup-ctx", Event: "Setup", Matcher: "init", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"Setup","additionalContext":"TOK_SETUP_CTX"}}`)},
			{Name: "setup-maintenance", Event: "Setup", Matcher: "maintenance", Answer: record},
		},
	},
	{
		Name: "expansion-exit2", About: "UserPromptExpansion exits 2: the slash command is not expanded",
		Prompt: "/greet world", Files: laterFiles, Turns: oneTool,
		Hooks: []Hook{
			{Name: "expansion", Event: "UserPromptExpansion", Answer: "echo TOK_UPE2_OUT; echo TOK_UPE2_ERR >&2; exit 2"},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "expansion-context", About: "UserPromptExpansion prints plain stdout and JSON additionalContext; a matcher on the command's name",
		Prompt: "/greet world", Files: laterFiles, Turns: oneTool,
		Hooks: []Hook{
			{Name: "expansion-out", Event: "UserPromptExpansion", Answer: "echo TOK_UPE_OUT"},
			{Name: "expansion-ctx", Event: "UserPromptExpansion", Matcher: "greet", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"UserPromptExpansion","additionalContext":"TOK_UPE_CTX"}}`)},
			{Name: "expansion-other", Event: "UserPromptExpansion", Matcher: "deploy", Answer: record},
		},
	},
	{
		Name: "skill-shell-record", About: "a slash command whose text holds a shell command (!`…`): PreSkillShellCommand fires before it runs, the hook only records",
		Prompt: "/check", Files: skillFiles, Turns: [][]Block{{Say("Checked.")}}, Since: "2.1.332",
		Hooks: []Hook{
			{Name: "skill-shell", Event: "PreSkillShellCommand", Answer: record},
			{Name: "skill-shell-other", Event: "PreSkillShellCommand", Matcher: "PowerShell", Answer: record},
		},
		Stdin: []string{"skill-shell"},
	},
	{
		Name: "skill-shell-deny", About: `PreSkillShellCommand answers "deny" with a reason: the embedded command does not run`,
		Prompt: "/check", Files: skillFiles, Turns: [][]Block{{Say("Checked.")}}, Since: "2.1.332",
		Hooks: []Hook{{Name: "skill-shell", Event: "PreSkillShellCommand", Matcher: "Bash",
			Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"TOK_PSSC_REASON"}}`)}},
	},
	{
		Name: "batch-block", About: `PostToolBatch JSON decision "block" with a reason, and additionalContext, after two parallel tool calls`,
		Turns: [][]Block{{bash("toolu_01", "touch ran-1"), bash("toolu_02", "touch ran-2")}, {bash("toolu_03", "touch ran-3")}},
		Hooks: []Hook{
			{Name: "batch", Event: "PostToolBatch", Answer: firstBatchOnly(emit(`{"decision":"block","reason":"TOK_BATCH_REASON","hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"TOK_BATCH_CTX"}}`))},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "batch-context", About: "PostToolBatch prints plain stdout and JSON additionalContext after two parallel tool calls",
		Turns: [][]Block{{bash("toolu_01", "touch ran-1"), bash("toolu_02", "touch ran-2")}},
		Hooks: []Hook{
			{Name: "batch-out", Event: "PostToolBatch", Answer: "echo TOK_BATCH_OUT"},
			{Name: "batch-ctx", Event: "PostToolBatch", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"TOK_BATCH_CTX2"}}`)},
		},
	},
	{
		Name: "batch-exit2", About: "PostToolBatch exits 2 after two parallel tool calls",
		Turns: [][]Block{{bash("toolu_01", "touch ran-1"), bash("toolu_02", "touch ran-2")}, {bash("toolu_03", "touch ran-3")}},
		Hooks: []Hook{
			{Name: "batch", Event: "PostToolBatch", Answer: firstBatchOnly("echo TOK_BATCH2_OUT; echo TOK_BATCH2_ERR >&2; exit 2")},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "batch-continue-false", About: "PostToolBatch answers continue:false with a stopReason",
		Turns: [][]Block{{bash("toolu_01", "touch ran-1"), bash("toolu_02", "touch ran-2")}, {bash("toolu_03", "touch ran-3")}},
		Hooks: []Hook{
			{Name: "batch", Event: "PostToolBatch", Answer: emit(`{"continue":false,"stopReason":"TOK_BATCH_STOPREASON"}`)},
			{Name: "stop", Event: "Stop", Answer: record},
		},
	},
	{
		Name: "task-created-exit2", About: "TaskCreated exits 2: the task is not created, stderr is the tool's error",
		Turns:   [][]Block{{Call("toolu_01", "TaskCreate", map[string]any{"subject": "Write tests", "description": "conformance"})}},
		Allowed: taskTools,
		Hooks: []Hook{
			{Name: "task-created", Event: "TaskCreated", Answer: "echo TOK_TC2_OUT; echo TOK_TC2_ERR >&2; exit 2"},
			{Name: "post", Event: "PostToolUse", Answer: record},
			{Name: "failure", Event: "PostToolUseFailure", Answer: record},
		},
	},
	{
		Name: "task-completed-exit2", About: "TaskCompleted exits 2: the task stays open, stderr is feedback in the tool's result",
		Turns: [][]Block{
			{Call("toolu_01", "TaskCreate", map[string]any{"subject": "Write tests"})},
			{Call("toolu_02", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})},
		},
		Allowed: taskTools,
		Hooks: []Hook{
			{Name: "task-completed", Event: "TaskCompleted", Answer: "echo TOK_TD2_OUT; echo TOK_TD2_ERR >&2; exit 2"},
			{Name: "task-created", Event: "TaskCreated", Answer: record},
			{Name: "failure", Event: "PostToolUseFailure", Answer: record},
		},
		Stdin: []string{"task-created", "task-completed"},
	},
	{
		Name: "task-completed-exit2-json", About: `TaskCompleted exits 2 with stderr and {"reason":…} on stdout`,
		Turns: [][]Block{
			{Call("toolu_01", "TaskCreate", map[string]any{"subject": "Write tests"})},
			{Call("toolu_02", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"})},
		},
		Allowed: taskTools,
		Hooks:   []Hook{{Name: "task-completed", Event: "TaskCompleted", Answer: emit(`{"reason":"TOK_TD2J_REASON"}`) + "\necho TOK_TD2J_ERR >&2; exit 2"}},
	},
	{
		Name: "elicitation-record", About: "an MCP tool asks the user (an elicitation); no hook answers, and -p has no one to ask",
		MCP: true, Turns: askTool, Allowed: []string{mcpAskTool},
		Hooks: []Hook{
			{Name: "elicitation", Event: "Elicitation", Matcher: "conf", Answer: record},
			{Name: "result", Event: "ElicitationResult", Answer: record},
		},
		Stdin: []string{"elicitation", "result"},
		Env:   []string{"elicitation", "result"},
	},
	{
		Name: "elicitation-accept", About: `Elicitation answers "accept" with content; ElicitationResult sees it`,
		MCP: true, Turns: askTool, Allowed: []string{mcpAskTool},
		Hooks: []Hook{
			{Name: "elicitation", Event: "Elicitation", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"answer":"blue"}}}`)},
			{Name: "result", Event: "ElicitationResult", Answer: record},
		},
		Stdin: []string{"result"},
	},
	{
		Name: "elicitation-exit2", About: "Elicitation exits 2: the elicitation is declined",
		MCP: true, Turns: askTool, Allowed: []string{mcpAskTool},
		Hooks: []Hook{
			{Name: "elicitation", Event: "Elicitation", Answer: "echo TOK_EL2_ERR >&2; exit 2"},
			{Name: "result", Event: "ElicitationResult", Answer: record},
		},
	},
	{
		Name: "elicitation-result-override", About: "ElicitationResult changes the answer to accept with content",
		MCP: true, Turns: askTool, Allowed: []string{mcpAskTool},
		Hooks: []Hook{{Name: "result", Event: "ElicitationResult", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"ElicitationResult","action":"accept","content":{"answer":"green"}}}`)}},
	},
	{
		Name: "stop-failure", About: "the API answers 429: StopFailure fires instead of Stop (its output is discarded)",
		Turns: [][]Block{{Fail(429, "rate_limit_error", "TOK_API_RATE")}}, ExitCode: 1,
		Hooks: []Hook{
			{Name: "stop-failure", Event: "StopFailure", Matcher: "rate_limit", KeepRunning: true, Answer: "echo TOK_SF_OUT; echo TOK_SF_ERR >&2; exit 2"},
			{Name: "stop-failure-other", Event: "StopFailure", Matcher: "server_error", KeepRunning: true, Answer: record},
			{Name: "stop", Event: "Stop", Answer: record},
			{Name: "end", Event: "SessionEnd", Answer: awaitRecord("stop-failure")},
		},
		Stdin: []string{"stop-failure"},
		Env:   []string{"stop-failure"},
	},
}

// The projects of the later events' scenarios.
var (
	laterFiles = map[string]string{
		"CLAUDE.md":                 "Project instructions: be brief.\n",
		".claude/commands/greet.md": "Greet $ARGUMENTS warmly.\n",
	}
	// skillFiles is a slash command whose text holds a shell command in
	// Claude Code's !`…` form, which runs when the command is expanded.
	skillFiles = map[string]string{
		".claude/commands/check.md": "---\nallowed-tools: Bash(touch:*)\ndescription: conformance check\n---\nThe state: !`touch ran-skill`\nSay what it is.\n",
	}
	taskTools = []string{"Bash", "TaskCreate", "TaskUpdate"}
	askTool   = [][]Block{{Call("toolu_01", mcpAskTool, map[string]any{"name": "ran-ask"})}}
)

// measureScenarios measure answer fields whose effect in a -p session is
// outside what the suite compares (a title, the text of a block shown to
// the user, a terminal sequence, the auto-mode classifier, the desktop
// host's permission card): issue #24 item 4, written down in docs/parity.md
// ("Measured with 2.1.332"). They run only with -measure, and their files
// (the CLI's stream-json output, its transcript in home/.claude) are read
// under -keep:
//
//	go test ./conformance -run 'TestConformance/scenarios/prompt-title$' -args -measure -keep /tmp/m
var measureScenarios = []Scenario{
	{
		Name: "prompt-suppress", About: `UserPromptSubmit blocks with suppressOriginalPrompt and a sessionTitle`, Since: "2.1.332",
		Prompt: "Do the task TOK_SUP_PROMPT.", Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: emit(`{"decision":"block","reason":"TOK_SUP_REASON","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","suppressOriginalPrompt":true,"sessionTitle":"TOK_SUP_TITLE"}}`)}},
	},
	{
		Name: "prompt-title", About: `UserPromptSubmit sessionTitle`, Since: "2.1.332",
		Turns: oneTool,
		Hooks: []Hook{{Name: "prompt", Event: "UserPromptSubmit", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"TOK_UPS_TITLE"}}`)}},
	},
	{
		Name: "expansion-suppress", About: `UserPromptExpansion blocks with suppressOriginalPrompt`, Since: "2.1.332",
		Prompt: "/greet TOK_UPES_ARG", Files: laterFiles, Turns: oneTool,
		Hooks: []Hook{{Name: "expansion", Event: "UserPromptExpansion", Answer: emit(`{"decision":"block","reason":"TOK_UPES_REASON","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","suppressOriginalPrompt":true}}`)}},
	},
	{
		Name: "post-classifier", About: `PostToolUse classifierContext`, Since: "2.1.332",
		Turns: oneTool,
		Hooks: []Hook{{Name: "post", Event: "PostToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostToolUse","classifierContext":"TOK_CLS_CTX"}}`)}},
	},
	{
		Name: "pre-permission-display", About: `PreToolUse "ask" with permissionDisplay`, Since: "2.1.332",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"TOK_PD_REASON","permissionDisplay":{"title":"TOK_PD_TITLE","description":"TOK_PD_DESC"}}}`)},
			{Name: "permission", Event: "PermissionRequest", Answer: record},
		},
	},
	{
		Name: "model-switch", About: `a -p prompt "/model haiku": do PreModelSwitch and PostModelSwitch fire?`, Since: "2.1.332",
		Prompt: "/model haiku", Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre-switch", Event: "PreModelSwitch", Answer: record},
			{Name: "post-switch", Event: "PostModelSwitch", Answer: record},
			{Name: "prompt", Event: "UserPromptSubmit", Answer: record},
		},
	},
	{
		Name: "model-switch-deny", About: `a -p prompt "/model haiku" with PreModelSwitch answering "deny"`, Since: "2.1.332",
		Prompt: "/model haiku", Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre-switch", Event: "PreModelSwitch", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"TOK_PMS_REASON"}}`)},
			{Name: "post-switch", Event: "PostModelSwitch", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"TOK_POMS_CTX"}}`)},
		},
	},
	{
		Name: "model-switch-context", About: `a -p prompt "/model haiku" with PostModelSwitch additionalContext`, Since: "2.1.332",
		Prompt: "/model haiku", Turns: oneTool,
		Hooks: []Hook{
			{Name: "post-switch", Event: "PostModelSwitch", Answer: emit(`{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"TOK_POMS_CTX"}}`)},
		},
	},
	{
		Name: "skill-shell-claude", About: "the model loads a skill whose text holds a shell command (the Skill tool): PreSkillShellCommand's invoked_by", Since: "2.1.332",
		Turns:   [][]Block{{Call("toolu_01", "Skill", map[string]any{"skill": "checker"})}},
		Allowed: []string{"Bash", "Skill"},
		Files:   map[string]string{".claude/skills/checker/SKILL.md": "---\nname: checker\ndescription: conformance check\nallowed-tools: Bash(touch:*)\n---\nThe state: !`touch ran-skill2`\n"},
		Hooks:   []Hook{{Name: "skill-shell", Event: "PreSkillShellCommand", Answer: record}},
	},
	{
		Name: "terminal-sequence", About: `a top-level terminalSequence (an OSC 0 title) on PreToolUse and Stop`, Since: "2.1.332",
		Turns: oneTool,
		Hooks: []Hook{
			{Name: "pre", Event: "PreToolUse", Answer: `printf '{"terminalSequence":"\\u001b]0;TOK_TS_PRE\\u0007"}'`},
			{Name: "stop", Event: "Stop", Answer: `printf '{"terminalSequence":"\\u001b]9;TOK_TS_STOP\\u0007"}'`},
		},
	},
}

// firstBatchOnly runs answer for the first PostToolBatch only (the one of
// toolu_01), so that a blocking hook lets the agent go on afterwards.
func firstBatchOnly(answer string) string {
	return `if [ "$(printf '%s' "$input" | jq -r '.tool_calls[0].tool_use_id')" != toolu_01 ]; then exit 0; fi` + "\n" + answer
}

// awaitRecord waits (at most 30 s) for the record of hook name: Claude Code
// fires StopFailure without waiting for its hooks and exits after SessionEnd,
// so a SessionEnd hook that waits for the record keeps the suite from
// reading the records before they are written.
func awaitRecord(name string) string {
	return `i=0; while [ ! -s "$CLAUDE_PROJECT_DIR/.rec/` + name + `.jsonl" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done`
}
