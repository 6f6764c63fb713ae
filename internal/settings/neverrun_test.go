package settings_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestUnknownToolMatchers: a tool event's matcher that names no tool the
// agent has is an unknown-tool warning whose Data is the corrected matcher
// when every unknown name has a likely correction (the quick fix), and no
// warning for Claude Code's names, the ACP proxy's names for ACP kinds,
// full MCP names, or a regular expression that matches some tool.
func TestUnknownToolMatchers(t *testing.T) {
	cases := []struct {
		name, event, matcher string
		warn                 bool
		data, says           string
	}{
		{name: "Claude Code's names", event: "PreToolUse", matcher: "Write|Edit|Bash|WebFetch"},
		{name: "the ACP proxy's names for ACP kinds", event: "PreToolUse", matcher: "Delete|Move|Think|SwitchMode|Other"},
		{name: "a full MCP name", event: "PostToolUse", matcher: "mcp__github__create_issue"},
		{name: "an MCP regex", event: "PreToolUse", matcher: "mcp__memory__.*"},
		{name: "a regex some tool matches", event: "PreToolUse", matcher: "Write.*"},
		{name: "everything", event: "PreToolUse", matcher: "*"},
		{name: "Gemini CLI's name", event: "PreToolUse", matcher: "write_file", warn: true, data: "Write",
			says: `"write_file" is no tool; did you mean "Write"?; these hooks never run`},
		{name: "Codex's shell", event: "PreToolUse", matcher: "shell", warn: true, data: "Bash"},
		{name: "a typo", event: "PostToolUse", matcher: "Bsh", warn: true, data: "Bash"},
		{name: "a word of a snake_case name", event: "PreToolUse", matcher: "edit_notebook", warn: true, data: "Edit"},
		{name: "one of several unknown", event: "PreToolUse", matcher: "Bash|write_file", warn: true, data: "Bash|Write",
			says: "these hooks never run for it"},
		{name: "a server but no tool", event: "PreToolUse", matcher: "mcp__memory", warn: true, data: "mcp__memory__.*",
			says: "to take every tool of the server, write \"mcp__memory__.*\""},
		{name: "no likely correction: no fix", event: "PreToolUse", matcher: "Bash|Frobnicate", warn: true, data: "",
			says: `"Frobnicate" is no tool; these hooks never run for it`},
		{name: "a regex no tool matches", event: "PreToolUse", matcher: "^write_.*", warn: true, data: "",
			says: "matches none of the tool names PreToolUse reports"},
		{name: "PreSkillShellCommand's shells", event: "PreSkillShellCommand", matcher: "Bash|PowerShell"},
		{name: "a shell that is no shell of PreSkillShellCommand", event: "PreSkillShellCommand", matcher: "Zsh", warn: true, data: "Bash"},
		{name: "a matcher of another event is not a tool", event: "SessionStart", matcher: "startup"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := `{"hooks": {"` + c.event + `": [{"matcher": "` + c.matcher + `", "hooks": [{"type": "command", "command": "true"}]}]}}`
			f := settings.ParseFile("settings.json", settings.SourceUser, []byte(text), t.TempDir())
			var got []settings.Diagnostic
			for _, d := range f.Diagnostics {
				if d.Code == settings.CodeUnknownTool {
					got = append(got, d)
				}
			}
			if !c.warn {
				require.Empty(t, got, "%v", f.Diagnostics)
				return
			}
			require.Len(t, got, 1, "%v", f.Diagnostics)
			require.Equal(t, c.data, got[0].Data, got[0].Message)
			require.Contains(t, got[0].Message, c.says)
		})
	}
}

// TestIfRuleNamesNoTool: an "if" rule whose tool is no tool the agent has
// but likely means one (another agent's name, a case slip) is a bad-if
// error saying which, with the corrected rule as Data for the quick fix;
// the corrected rule has no such error. A rule on a real tool or an MCP
// tool has none.
func TestIfRuleNamesNoTool(t *testing.T) {
	cases := []struct{ rule, fix, says string }{
		{"write_file(*.env)", "Write(*.env)", `"if" names "write_file", which is no tool the agent has; did you mean "Write"? This hook never runs`},
		{"run_shell_command(git *)", "Bash(git *)", `did you mean "Bash"?`},
		{"bash(rm *)", "Bash(rm *)", `"bash" matches no tool; did you mean "Bash"?`},
		{"Edt", "Edit", `did you mean "Edit"?`},
		{"Write(*.env)", "", ""},
		{"mcp__github__create_issue", "", ""},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			parse := func(rule string) []settings.Diagnostic {
				text := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "if": "` + rule + `"}]}]}}`
				var out []settings.Diagnostic
				for _, d := range settings.ParseFile("settings.json", settings.SourceUser, []byte(text), t.TempDir()).Diagnostics {
					if d.Code == settings.CodeBadIf {
						out = append(out, d)
					}
				}
				return out
			}
			got := parse(c.rule)
			if c.fix == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			require.Equal(t, settings.SeverityError, got[0].Severity)
			require.Contains(t, got[0].Message, c.says)
			require.Equal(t, c.fix, got[0].Data)
			require.Empty(t, parse(c.fix), "the corrected rule is fine")
		})
	}
}
