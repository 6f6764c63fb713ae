package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippet is one fenced code block of docs/acp.md's editor configuration,
// with the editor it is for (the bold name that comes before it).
type snippet struct {
	editor, lang, code string
}

// editorSnippets reads the code blocks of a document's "Editor
// configuration" section.
func editorSnippets(t *testing.T, doc string) []snippet {
	t.Helper()
	start := strings.Index(doc, "## Editor configuration")
	require.GreaterOrEqual(t, start, 0, "docs/acp.md has an Editor configuration section")
	section := doc[start+len("## Editor configuration"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var out []snippet
	editor := ""
	lines := strings.Split(section, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "**") {
			editor = strings.SplitN(line[2:], "**", 2)[0]
		}
		if !strings.HasPrefix(line, "```") {
			continue
		}
		s := snippet{editor: editor, lang: strings.TrimPrefix(line, "```")}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			s.code += lines[i] + "\n"
		}
		out = append(out, s)
	}
	return out
}

var (
	luaStringList = regexp.MustCompile(`\{\s*("(?:[^"\\]|\\.)*"(?:\s*,\s*"(?:[^"\\]|\\.)*")*)\s*,?\s*\}`)
	luaCommand    = regexp.MustCompile(`(?:^|[^\w.])command\s*=\s*("(?:[^"\\]|\\.)*")`)
	luaArgs       = regexp.MustCompile(`(?:^|[^\w.])args\s*=\s*$`)
	elispList     = regexp.MustCompile(`-command\s+'\(([^)]*)\)`)
	quoted        = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
)

// snippetCommands returns every command line (program and arguments) a
// snippet gives an editor to start, as the editor would read it.
func snippetCommands(s snippet) ([][]string, error) {
	var out [][]string
	switch s.lang {
	case "json":
		var v any
		if err := json.Unmarshal([]byte(s.code), &v); err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if c, ok := v["command"].(string); ok {
					argv := []string{c}
					args, _ := v["args"].([]any)
					for _, a := range args {
						argv = append(argv, fmt.Sprint(a))
					}
					out = append(out, argv)
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(v)
	case "lua":
		// A list of strings is a whole command (commands.default, .yolo),
		// unless it is the args of a `command = "…"` before it.
		code := s.code
		commands := luaCommand.FindAllStringSubmatchIndex(code, -1)
		lists := luaStringList.FindAllStringSubmatchIndex(code, -1)
		usedAsArgs := map[int]bool{}
		for _, c := range commands {
			var program string
			_ = json.Unmarshal([]byte(code[c[2]:c[3]]), &program)
			argv := []string{program}
			for i, l := range lists {
				if l[0] > c[1] && luaArgs.MatchString(code[c[1]:l[0]]) {
					for _, q := range quoted.FindAllStringSubmatch(code[l[2]:l[3]], -1) {
						argv = append(argv, q[1])
					}
					usedAsArgs[i] = true
					break
				}
			}
			out = append(out, argv)
		}
		for i, l := range lists {
			if usedAsArgs[i] {
				continue
			}
			var argv []string
			for _, q := range quoted.FindAllStringSubmatch(code[l[2]:l[3]], -1) {
				argv = append(argv, q[1])
			}
			out = append(out, argv)
		}
	case "elisp":
		for _, m := range elispList.FindAllStringSubmatch(s.code, -1) {
			var argv []string
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				argv = append(argv, q[1])
			}
			out = append(out, argv)
		}
	default:
		return nil, fmt.Errorf("a %q block: no reader for it", s.lang)
	}
	return out, nil
}

// throughTheProxy says why a command line does not start the agent behind
// `wavehooks acp … --`, or "" when it does.
func throughTheProxy(argv []string) string {
	switch {
	case len(argv) < 4 || path.Base(argv[0]) != "wavehooks" || argv[1] != "acp":
		return fmt.Sprintf("%q does not start `wavehooks acp`", argv)
	}
	for i, a := range argv[2:] {
		if a == "--" {
			if i+3 >= len(argv) {
				return fmt.Sprintf("%q names no agent after --", argv)
			}
			return ""
		}
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(argv[i+1], "--") {
			return fmt.Sprintf("%q has %q before --, where only wavehooks acp's flags go", argv, a)
		}
	}
	return fmt.Sprintf("%q has no -- before the agent's command", argv)
}

// Issue #26 item 9: every editor snippet in docs/acp.md starts each agent
// command it configures — yolo variants included — through `wavehooks acp
// --`, for each editor the docs promise. The checker itself is held to
// snippets that leave a command bare.
func TestEditorSnippetsRouteThroughTheProxy(t *testing.T) {
	data, err := os.ReadFile("../docs/acp.md")
	require.NoError(t, err)
	byEditor := map[string][][]string{}
	for _, s := range editorSnippets(t, string(data)) {
		commands, err := snippetCommands(s)
		require.NoError(t, err, "%s: %s", s.editor, s.code)
		require.NotEmpty(t, commands, "%s: the snippet starts nothing:\n%s", s.editor, s.code)
		for _, argv := range commands {
			require.Empty(t, throughTheProxy(argv), "%s snippet", s.editor)
		}
		byEditor[s.editor] = append(byEditor[s.editor], commands...)
	}
	agents := func(commands [][]string) []string {
		var out []string
		for _, argv := range commands {
			i := 0
			for argv[i] != "--" {
				i++
			}
			out = append(out, strings.Join(argv[i+1:], " "))
		}
		return out
	}
	want := map[string][]string{
		"Zed":            {"gemini --acp", "claude-agent-acp", "codex-acp"},
		"JetBrains IDEs": {"gemini --acp", "claude-agent-acp", "codex-acp"},
		"CodeCompanion":  {"gemini --acp", "gemini --yolo --acp", "claude-agent-acp", "claude-agent-acp --yolo", "codex-acp"},
		"avante.nvim":    {"gemini --acp", "claude-agent-acp", "codex-acp"},
		"agent-shell":    {"gemini --acp", "claude-agent-acp", "codex-acp"},
		"VS Code":        {"npx @google/gemini-cli@0.61.0 --acp", "npx @agentclientprotocol/claude-agent-acp", "npx @zed-industries/codex-acp"},
	}
	for editor, agentCommands := range want {
		require.ElementsMatch(t, agentCommands, agents(byEditor[editor]), "%s: the agents (and their yolo variants) it starts", editor)
	}
	require.Len(t, byEditor, len(want), "snippets for exactly these editors: %v", byEditor)

	for _, bad := range []snippet{
		{lang: "lua", code: `commands = { default = { "wavehooks", "acp", "--", "gemini", "--acp" }, yolo = { "gemini", "--yolo", "--acp" } }`},
		{lang: "lua", code: `["codex"] = { command = "codex-acp", args = {} }`},
		{lang: "lua", code: `["codex"] = { command = "wavehooks", args = { "codex-acp" } }`},
		{lang: "json", code: `{"agent_servers": {"x": {"command": "wavehooks", "args": ["acp", "gemini"]}}}`},
		{lang: "json", code: `{"agent_servers": {"x": {"command": "wavehooks", "args": ["acp", "--"]}}}`},
		{lang: "elisp", code: `(setq agent-shell-google-gemini-command '("gemini" "--acp"))`},
	} {
		commands, err := snippetCommands(bad)
		require.NoError(t, err)
		failed := false
		for _, argv := range commands {
			failed = failed || throughTheProxy(argv) != ""
		}
		require.True(t, failed, "the check refuses %s", bad.code)
	}
}
