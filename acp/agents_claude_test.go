//go:build linux

package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// claudeAgentACP is the claude-agent-acp that testdata/claude-agent-acp/install.sh
// installs, or $WAVEHOOKS_CLAUDE_AGENT_ACP.
func claudeAgentACP(t *testing.T) (node, entry string) {
	return installedAgent(t, "claude-agent-acp", "WAVEHOOKS_CLAUDE_AGENT_ACP", "claude-agent-acp",
		filepath.Join("claude-agent-acp", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js"))
}

// claudeEnv is Claude Code's offline environment, as the conformance suite
// sets it (conformance/claude.go): the API is the fake on loopback, every
// other request goes to it as a proxy that forwards nothing.
func claudeEnv(home, tmp, base string) []string {
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8"}, fakemodel.ClaudeEnv(base)...)
	if os.Geteuid() == 0 {
		// As root the adapter hides bypassPermissions unless it is told it
		// runs in a sandbox; a user's machine offers it.
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// claude-agent-acp (Claude Code behind Zed's ACP adapter) through the proxy,
// offline, in every mode it offers: the behaviour matrix of
// agents_matrix_test.go, one agent process for all cases, one session each.
func TestClaudeAgentACP(t *testing.T) {
	node, entry := claudeAgentACP(t)
	fake := startFakeModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	h.writeClaudeHook(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = claudeEnv(home, tmp, fake.URL())
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	initial, offered := sessionModes(t, r)
	t.Logf("claude-agent-acp starts sessions in %q and offers %v", initial, offered)
	runMatrix(t, r, fake, h, initial, offered, agentSpec{
		name:  "Claude Code",
		shell: func(c string) step { return use("Bash", cmd(c)) }, shellTool: "Bash",
		write: func(path, content string) step { return use("Write", fileArgs(path, content)) }, writeTool: "Write",
		ownHooks: true, bridged: true,
		// Offline, plan mode's classifier cannot reach a model and blocks.
		refuses: map[string]string{"plan": "Auto mode could not evaluate this action"},
	})
	require.Equal(t, 0, r.wait())
}

// A repository's .claude/settings.json can turn Claude Code's hooks off
// (disableAllHooks), which would turn the hook bridge off with them: the
// bridge's settings layer, which Claude Code ranks above the project's,
// turns them back on, so a wavehooks deny still stops rm -rf in the
// adapter's default mode, and its hook runs once.
func TestClaudeAgentACPBridgeHoldsWhenTheProjectDisablesHooks(t *testing.T) {
	node, entry := claudeAgentACP(t)
	fake := startFakeModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"disableAllHooks": true}`), 0o600))
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = claudeEnv(home, tmp, fake.URL())
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	const k = "CASE-disabled"
	target := filepath.Join(project, "build-disabled")
	require.NoError(t, os.MkdirAll(target, 0o755))
	fake.script(k, use("Bash", cmd("rm -rf "+target)), say("DONE-"+k))
	sess, _ := r.newSession()
	stopReason(t, r.prompt(sess, k+": clean the build"))
	require.True(t, exists(target), "the denied rm -rf did not run")
	require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
	require.NotEmpty(t, fake.saw(denyReason), "the model read the hook's reason")
	require.Equal(t, 0, r.wait())
}

// A session the editor loads (session/load) or resumes (session/resume) in a
// new agent process is bridged like a new one: the deny stops rm -rf in the
// adapter's default mode, auto, with the hook run once.
func TestClaudeAgentACPBridgesLoadedSessions(t *testing.T) {
	node, entry := claudeAgentACP(t)
	fake := startFakeModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	start := func() *rig {
		r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
			o.HookExe = bin
			o.Agent = []string{node, entry}
			o.AgentDir = project
			o.AgentEnv = claudeEnv(home, tmp, fake.URL())
			o.TrustWorkspace = true
		}})
		r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
		return r
	}
	for _, method := range []string{"session/load", "session/resume"} {
		t.Run(method, func(t *testing.T) {
			first := start()
			sess, _ := first.newSession()
			// No case marker: the fake finds the first marker in the
			// conversation, which the loaded session carries on.
			require.Equal(t, "end_turn", stopReason(t, first.prompt(sess, "hello")))
			require.Equal(t, 0, first.wait())

			r := start()
			res := r.call(method, map[string]any{"sessionId": sess, "cwd": project, "mcpServers": []any{}})
			require.Nil(t, res.Error, "%s: %s", method, res.Line)
			k := "CASE-" + strings.ReplaceAll(method, "/", "")
			target := filepath.Join(project, "build-"+k)
			require.NoError(t, os.MkdirAll(target, 0o755))
			// The fake answers a conversation's N-th model turn with the
			// script's N-th step: the loaded conversation had one turn.
			fake.script(k, say("unused"), use("Bash", cmd("rm -rf "+target)), say("DONE-"+k))
			stopReason(t, r.prompt(sess, k+": clean the build"))
			require.True(t, exists(target), "the denied rm -rf did not run")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			require.NotEmpty(t, fake.saw(denyReason), "the model read the hook's reason")
			require.Equal(t, 0, r.wait())
		})
	}
}
