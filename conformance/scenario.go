//go:build linux

package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Hook is one configured hook of a scenario: a real sh script that records
// its stdin and the names of its agent-set environment variables to
// .rec/<Name>.jsonl in the project, then runs Answer (shell, with the hook's
// stdin in $input) to decide.
type Hook struct {
	Name    string // unique in its scenario; the script is .hooks/<Name>.sh
	Event   string
	Matcher string // "" leaves the matcher out
	// If is Claude Code's `if` key (permission-rule syntax, e.g. "Bash(git *)"); "" leaves it out.
	If string
	// Exec writes the hook in the exec form: command "${CLAUDE_PROJECT_DIR}/.hooks/<Name>.sh" with args [].
	Exec bool
	// KeepRunning makes the hook ignore SIGTERM, SIGINT and SIGHUP: Claude
	// Code 2.1.330 signals StopFailure hooks as soon as a -p session's turn
	// has ended, which cuts off a hook that does not finish in milliseconds
	// (measured; docs/parity.md).
	KeepRunning bool
	Answer      string
}

// Scenario is one agent session, played by the real Claude Code against the
// fake model and by wavehooks with an agent host standing in for the editor.
type Scenario struct {
	Name  string
	About string // one line for the results table
	// Prompt is the user's prompt; "Do the task." when empty.
	Prompt string
	// Turns is the model's script: Turns[N] answers the request that already
	// holds N assistant messages; after the script the model says "Done.".
	Turns [][]Block
	Hooks []Hook
	// Allowed are the tools that run without a permission prompt
	// (--allowedTools); nil means Bash and the MCP tool.
	Allowed []string
	// ExitCode is the exit status Claude Code ends with (an API error that
	// ends the turn makes -p exit 1).
	ExitCode int
	// Args are further arguments of the claude command line (e.g. --init).
	Args []string
	// MCP adds the suite's MCP server ("conf", tool mcp__conf__touch).
	MCP bool
	// Stdin and Env name the hooks whose stdin (key by key) and environment
	// (variable names) are compared; Replay the hooks whose recorded stdin is
	// replayed through `wavehooks run`.
	Stdin, Env, Replay []string
	// Texts are literal texts, beside the TOK_ tokens of the answers, whose
	// way to the model is compared.
	Texts []string
	// Since is the first Claude Code release that has what the scenario
	// plays (an event, an answer field); a run against an older release
	// skips it. "" for every release the suite knows.
	Since string
	// Files are further files of the project (CLAUDE.md, .claude/commands/…),
	// by path relative to its root.
	Files map[string]string
}

// tokenPattern finds the marker texts hook answers carry, so that the suite
// can tell where each reached the model.
var tokenPattern = regexp.MustCompile(`TOK_[A-Z0-9_]+`)

// Tokens are the texts whose way to the model the scenario compares.
func (s *Scenario) Tokens() []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range s.Hooks {
		for _, t := range tokenPattern.FindAllString(h.Answer, -1) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	for _, t := range s.Texts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// AllowedTools is the --allowedTools list.
func (s *Scenario) AllowedTools() []string {
	if s.Allowed != nil {
		return s.Allowed
	}
	return []string{"Bash", mcpTool}
}

// mcpTool and mcpAskTool are the tools of the suite's MCP server, as the
// agent names them.
const (
	mcpTool    = "mcp__conf__touch"
	mcpAskTool = "mcp__conf__ask"
)

// hookScript is the script of one hook. It records the stdin as jq prints it
// compactly (jq keeps the order of keys) with the names of the variables an
// agent sets for hooks, then answers.
func hookScript(h Hook) string {
	trap := ""
	if h.KeepRunning {
		trap = "trap '' TERM INT HUP\n"
	}
	return fmt.Sprintf(`#!/bin/sh
# conformance hook %[1]s (%[2]s): record stdin and the agent's variables, then answer.
%[4]sinput=$(cat)
names=$(env | grep -oE '^(CLAUDE|WAVE|AI_AGENT)[A-Za-z0-9_]*=' | tr -d '=' | sort | tr '\n' ' ')
printf '%%s' "$input" | jq -c --arg env "$names" '{stdin: ., env: ($env | split(" ") | map(select(. != "")))}' \
	>>"$CLAUDE_PROJECT_DIR/.rec/%[1]s.jsonl"
%[3]s
`, h.Name, h.Event, h.Answer, trap)
}

// WriteProject lays the scenario's project out in dir: the hook scripts in
// .hooks/, an empty .rec/ for their records, and .claude/settings.json.
func (s *Scenario) WriteProject(dir string) error {
	for _, d := range []string{".hooks", ".rec", ".claude"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	settings, err := s.Settings(s.Hooks)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), settings, 0o644); err != nil {
		return err
	}
	for _, h := range s.Hooks {
		if err := os.WriteFile(filepath.Join(dir, ".hooks", h.Name+".sh"), []byte(hookScript(h)), 0o755); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(s.Files) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(s.Files[name]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Settings is the .claude/settings.json that configures hooks: one matcher
// group per hook, in the scenario's order.
func (s *Scenario) Settings(hooks []Hook) ([]byte, error) {
	byEvent := map[string][]any{}
	for _, h := range hooks {
		handler := map[string]any{"type": "command", "command": `"$CLAUDE_PROJECT_DIR"/.hooks/` + h.Name + ".sh"}
		if h.Exec {
			handler = map[string]any{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/.hooks/" + h.Name + ".sh", "args": []string{}}
		}
		if h.If != "" {
			handler["if"] = h.If
		}
		group := map[string]any{"hooks": []any{handler}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		byEvent[h.Event] = append(byEvent[h.Event], group)
	}
	return json.MarshalIndent(map[string]any{"hooks": byEvent}, "", "  ")
}

// HookCall is one run of a hook as the hook itself recorded it.
type HookCall struct {
	Stdin json.RawMessage `json:"stdin"`
	Env   []string        `json:"env"`
}

// ReadCalls reads the records of every hook of the scenario in dir.
func (s *Scenario) ReadCalls(dir string) (map[string][]HookCall, error) {
	calls := map[string][]HookCall{}
	for _, h := range s.Hooks {
		data, err := os.ReadFile(filepath.Join(dir, ".rec", h.Name+".jsonl"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if line == "" {
				continue
			}
			var c HookCall
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				return nil, fmt.Errorf("%s record %d: %w", h.Name, i+1, err)
			}
			calls[h.Name] = append(calls[h.Name], c)
		}
	}
	return calls, nil
}

// Markers lists the files named ran-* in dir: the scenario's tools create
// them, so they say which tool calls ran and with which input.
func Markers(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "ran-") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// hookByName finds a hook of the scenario.
func (s *Scenario) hookByName(name string) (Hook, bool) {
	for _, h := range s.Hooks {
		if h.Name == name {
			return h, true
		}
	}
	return Hook{}, false
}
