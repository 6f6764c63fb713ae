package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// agentLayout is a workspace with one agent's hook file and its hook
// script, both from testdata/agenthooks (each agent's documented format),
// and user settings that say settingsText.
func agentLayout(t *testing.T, agent agentfmt.Agent, settingsText string) layout {
	t.Helper()
	file := map[agentfmt.Agent]string{agentfmt.Gemini: "settings.json", agentfmt.Codex: "hooks.json", agentfmt.Cursor: "hooks.json"}[agent]
	golden := map[agentfmt.Agent]string{agentfmt.Gemini: "gemini-settings.json", agentfmt.Codex: "codex-hooks.json", agentfmt.Cursor: "cursor-hooks.json"}[agent]
	text, err := os.ReadFile(filepath.Join("testdata", "agenthooks", golden))
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join("testdata", "agenthooks", string(agent)+"-guard.sh"))
	require.NoError(t, err)
	dir := "." + string(agent)
	return writeLayout(t, map[string]string{
		dir + "/" + file:           string(text),
		dir + "/hooks/guard.sh":    string(script),
		"home/settings.json":       settingsText,
		".claude/settings.json":    `{}`,
		"untouched-by-agents.json": `{}`,
	})
}

// agentRuns are the stdins an agent's guard script logged, one per run.
func agentRuns(t *testing.T, l layout, agent agentfmt.Agent) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(l.root, "runs-"+string(agent)+".jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// Each agent's own hook file, in its own format, runs under importAgentHooks
// with the workspace's trust: its hook reads its agent's stdin (compared
// with a golden file) and answers in its agent's shape, and wavehooks reads
// that answer as the same decision; each hook runs once per call.
func TestAgentHookFiles(t *testing.T) {
	for _, tc := range []struct {
		agent      agentfmt.Agent
		tool       string
		denied     string // a tool input the guard refuses
		allowed    string
		reason     string
		permission hooks.Permission // of the allowed call
	}{
		{agentfmt.Gemini, "Bash", `{"command":"rm -rf /","description":"clean up"}`, `{"command":"ls"}`, "gemini guard: no rm -rf", hooks.PermissionAllow},
		{agentfmt.Codex, "Bash", `{"command":"rm -rf /"}`, `{"command":"ls"}`, "codex guard: refused", hooks.PermissionNone},
		{agentfmt.Codex, "Write", `{"file_path":"secrets.txt","content":"k=v\n"}`, `{"file_path":"notes.txt","content":"hi\n"}`, "codex guard: refused", hooks.PermissionNone},
		{agentfmt.Cursor, "Bash", `{"command":"rm -rf /"}`, `{"command":"ls"}`, "cursor guard: no rm -rf", hooks.PermissionAllow},
	} {
		t.Run(string(tc.agent)+" "+tc.tool, func(t *testing.T) {
			off := agentLayout(t, tc.agent, `{}`)
			require.Empty(t, settings.Load(off.paths(), nil).Hooks, "not read without importAgentHooks")

			l := agentLayout(t, tc.agent, `{"importAgentHooks": ["`+string(tc.agent)+`"]}`)
			cfg := settings.Load(l.paths(), nil)
			var pre []settings.Hook
			for _, h := range cfg.Hooks {
				if h.Event == event.PreToolUse {
					pre = append(pre, h)
				}
			}
			require.Len(t, pre, 1, "the file's one tool hook")
			require.Equal(t, tc.agent, pre[0].Source.Agent())
			require.True(t, pre[0].Source.FromWorkspace())

			e := hooks.NewEngine(cfg)
			in := input(event.PreToolUse, l.root)
			in.ToolName, in.ToolInput = tc.tool, json.RawMessage(tc.denied)
			res := e.Fire(context.Background(), in)
			require.Equal(t, hooks.PermissionNone, res.Permission, "a workspace file waits for trust")
			require.Empty(t, agentRuns(t, l, tc.agent))

			e.SetWorkspaceTrusted(true)
			res = e.Fire(context.Background(), in)
			require.Equal(t, hooks.PermissionDeny, res.Permission, "runs: %+v", res.Runs)
			require.Equal(t, tc.reason, res.Reason)
			runs := agentRuns(t, l, tc.agent)
			require.Len(t, runs, 1, "the hook ran once for the call")
			goldenPath := filepath.Join("testdata", "agenthooks", string(tc.agent)+"-"+strings.ToLower(tc.tool)+"-stdin.golden.json")
			got := strings.ReplaceAll(runs[0], l.root, "$ROOT")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(goldenPath, []byte(got+"\n"), 0o644))
			}
			want, err := os.ReadFile(goldenPath)
			require.NoError(t, err)
			require.JSONEq(t, string(want), got, "the hook read its own agent's stdin")

			in.ToolInput = json.RawMessage(tc.allowed)
			res = e.Fire(context.Background(), in)
			require.Equal(t, tc.permission, res.Permission, "runs: %+v", res.Runs)
			require.Len(t, agentRuns(t, l, tc.agent), 2, "once more for the second call")
		})
	}
}

// The trust hash covers another agent's workspace hook file once it is
// imported: a changed command must be trusted again.
func TestAgentHookFilesTrust(t *testing.T) {
	l := agentLayout(t, agentfmt.Cursor, `{"importAgentHooks": ["cursor"]}`)
	before := trust.WorkspaceHash(settings.Load(l.paths(), nil))
	require.NoError(t, os.WriteFile(filepath.Join(l.root, ".cursor", "hooks.json"),
		[]byte(`{"version": 1, "hooks": {"beforeShellExecution": [{"command": "sh .cursor/hooks/other.sh"}]}}`), 0o644))
	require.NotEqual(t, before, trust.WorkspaceHash(settings.Load(l.paths(), nil)))
	require.Contains(t, trust.WorkspaceCommands(settings.Load(l.paths(), nil)), "sh .cursor/hooks/other.sh")
}

// The files' events without a wavehooks event are reported, never run;
// Gemini CLI's milliseconds are read as milliseconds.
func TestAgentHookFilesUnmappedEvents(t *testing.T) {
	for _, tc := range []struct {
		agent   agentfmt.Agent
		unknown string
	}{{agentfmt.Gemini, "BeforeModel"}, {agentfmt.Cursor, "afterAgentResponse"}} {
		l := agentLayout(t, tc.agent, `{"importAgentHooks": ["`+string(tc.agent)+`"]}`)
		cfg := settings.Load(l.paths(), nil)
		var msgs []string
		for _, d := range cfg.Diagnostics() {
			msgs = append(msgs, d.Message)
		}
		require.Contains(t, strings.Join(msgs, "\n"), `"`+tc.unknown+`" has no wavehooks event`)
		for _, h := range cfg.Hooks {
			require.NotEqual(t, tc.unknown, h.AgentEvent)
		}
	}
	l := agentLayout(t, agentfmt.Gemini, `{"importAgentHooks": ["gemini"]}`)
	cfg := settings.Load(l.paths(), nil)
	require.Equal(t, "5s", cfg.Hooks[0].Timeout.String(), "Gemini CLI's timeout is 5000 ms")
}

// Never twice for one call: in a session of Gemini CLI's ACP mode
// (AgentSession), wavehooks runs Gemini CLI's tool hooks, which Gemini CLI
// does not run there, and leaves its other hooks to it, whether or not
// importAgentHooks names it; and the same command in Claude Code's settings
// and Gemini CLI's runs once as each, each with its own stdin.
func TestAgentHookFilesNeverTwice(t *testing.T) {
	for _, imported := range []string{`{"importClaudeHooks": true}`, `{"importClaudeHooks": true, "importAgentHooks": ["gemini"]}`} {
		l := agentLayout(t, agentfmt.Gemini, imported)
		require.NoError(t, os.WriteFile(filepath.Join(l.root, ".claude", "settings.json"), []byte(
			`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "GEMINI_PROJECT_DIR=\"$CLAUDE_PROJECT_DIR\" sh .gemini/hooks/guard.sh"}]}]}}`), 0o644))
		p := l.paths()
		p.AgentSession = agentfmt.Gemini
		e := hooks.NewEngine(settings.Load(p, nil))
		e.SetWorkspaceTrusted(true)

		in := input(event.PreToolUse, l.root)
		in.ToolInput = json.RawMessage(`{"command":"rm -rf /"}`)
		res := e.Fire(context.Background(), in)
		require.Equal(t, hooks.PermissionDeny, res.Permission, imported)
		require.Len(t, agentRuns(t, l, agentfmt.Gemini), 1, "BeforeTool ran once")

		res = e.Fire(context.Background(), input(event.UserPromptSubmit, l.root))
		runs := agentRuns(t, l, agentfmt.Gemini)
		require.Len(t, runs, 2, "the prompt ran the Claude Code hook, and not Gemini CLI's BeforeAgent: Gemini CLI runs that itself")
		require.Contains(t, runs[1], `"hook_event_name":"UserPromptSubmit"`)
		var skipped []string
		for _, r := range res.Runs {
			skipped = append(skipped, r.Skipped)
		}
		require.Contains(t, skipped, "gemini runs this hook itself in this session; wavehooks does not run it again", imported)
	}
}

// The user's own file of an agent (~/.gemini/settings.json) is the user's,
// like ~/.claude/settings.json: it runs without the workspace's trust.
func TestAgentHookUserFileNeedsNoTrust(t *testing.T) {
	l := agentLayout(t, agentfmt.Gemini, `{"importAgentHooks": ["gemini"]}`)
	userDir := filepath.Join(l.home, "gemini-home")
	require.NoError(t, os.MkdirAll(userDir, 0o755))
	require.NoError(t, os.Rename(filepath.Join(l.root, ".gemini", "settings.json"), filepath.Join(userDir, "settings.json")))
	p := l.paths()
	p.AgentHomes = map[agentfmt.Agent]string{agentfmt.Gemini: userDir}
	cfg := settings.Load(p, nil)
	require.NotEmpty(t, cfg.Hooks)
	require.Equal(t, settings.SourceGeminiUser, cfg.Hooks[0].Source)
	e := hooks.NewEngine(cfg) // the workspace is not trusted
	in := input(event.PreToolUse, l.root)
	in.ToolInput = json.RawMessage(`{"command":"rm -rf /"}`)
	res := e.Fire(context.Background(), in)
	require.Equal(t, hooks.PermissionDeny, res.Permission, "runs: %+v", res.Runs)
	require.Len(t, agentRuns(t, l, agentfmt.Gemini), 1)
}
