//go:build linux

package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// claudeAgentACP is the entry point of the claude-agent-acp that
// testdata/claude-agent-acp/install.sh installs, or $WAVEHOOKS_CLAUDE_AGENT_ACP.
func claudeAgentACP(t *testing.T) (node, entry string) {
	t.Helper()
	entry = os.Getenv("WAVEHOOKS_CLAUDE_AGENT_ACP")
	if entry == "" {
		entry = filepath.Join("..", ".cache", "claude-agent-acp", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")
	}
	if _, err := os.Stat(entry); err != nil {
		t.Skip("SKIPPED: claude-agent-acp is not installed (sh acp/testdata/claude-agent-acp/install.sh installs it): " + err.Error())
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: claude-agent-acp needs node: " + err.Error())
	}
	entry, err = filepath.Abs(entry)
	require.NoError(t, err)
	return node, entry
}

// claudeEnv is Claude Code's offline environment, as the conformance suite
// sets it (conformance/claude.go): the API is the fake on loopback, every
// other request goes to it as a proxy that forwards nothing.
func claudeEnv(home, tmp, base string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=sk-ant-acp-offline",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"HTTPS_PROXY=" + base, "HTTP_PROXY=" + base, "https_proxy=" + base, "http_proxy=" + base,
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
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
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = claudeEnv(home, tmp, fake.URL())
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	_, first := r.newSession()
	modes := first["modes"].(map[string]any)
	initial := modes["currentModeId"].(string)
	var offered []string
	for _, m := range modes["availableModes"].([]any) {
		offered = append(offered, m.(map[string]any)["id"].(string))
	}
	t.Logf("claude-agent-acp starts sessions in %q and offers %v", initial, offered)
	require.Contains(t, offered, initial)

	for _, mode := range offered {
		t.Run(mode, func(t *testing.T) {
			open := func(t *testing.T) string {
				sess, _ := r.newSession()
				if mode != initial {
					res := r.call("session/set_mode", map[string]any{"sessionId": sess, "modeId": mode})
					require.Nil(t, res.Error, "session/set_mode %s: %s", mode, res.Line)
				}
				return sess
			}
			key := func(c string) string { return "CASE-" + mode + c }
			if os.Getenv("WAVEHOOKS_AGENT_DEBUG") != "" {
				t.Cleanup(func() {
					for _, m := range r.noted(methodSessionUpdate) {
						t.Logf("update: %.600s", m.Line)
					}
				})
			}
			// unseen ends a case whose tool call no wavehooks hook saw.
			unseen := func(t *testing.T, what string, ran bool) {
				t.Helper()
				if ran {
					knownGap(t, false, "item 5: in mode %s Claude Code ran %s without a permission request: no wavehooks hook saw it", mode, what)
				}
				knownGap(t, false, "item 5: in mode %s Claude Code refused %s itself (%s), before any permission request: no wavehooks hook saw it",
					mode, what, r.toolFailure(what))
			}

			t.Run("deny stops rm -rf", func(t *testing.T) {
				k := key("deny")
				target := filepath.Join(project, "build-"+k)
				require.NoError(t, os.MkdirAll(target, 0o755))
				fake.script(k, use("Bash", cmd("rm -rf "+target)), say("DONE-"+k))
				asked := r.countNoted(methodRequestPermission)
				require.Equal(t, "end_turn", stopReason(t, r.prompt(open(t), k+": clean the build")))
				require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that denies leaves the editor unasked")
				pre := h.runs(t, "PreToolUse", target)
				require.Len(t, h.claudeRuns(t, target), 1, "Claude Code's own PreToolUse hook ran once, in Claude Code")
				if len(pre) == 0 {
					unseen(t, "rm -rf", !exists(target))
				}
				require.True(t, exists(target), "the denied rm -rf did not run")
				require.Len(t, pre, 1, "PreToolUse ran once for the one tool call")
				require.Empty(t, h.runs(t, "PostToolUse", target), "the denied tool did not run")
				knownGap(t, len(fake.saw(denyReason)) > 0, "item 6: the model never reads the hook's reason (it reads the adapter's %q)",
					"User refused permission to run tool")
			})

			t.Run("allow lets it through and PostToolUse sees the result", func(t *testing.T) {
				k := key("allow")
				target := filepath.Join(project, "allowed-"+k+".txt")
				command := "echo OUT-" + k + " && touch " + target
				fake.script(k, use("Bash", cmd(command)), say("DONE-"+k))
				asked := r.countNoted(methodRequestPermission)
				require.Equal(t, "end_turn", stopReason(t, r.prompt(open(t), k+": make the file")))
				require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that allows leaves the editor unasked")
				require.Len(t, h.claudeRuns(t, target), 1, "Claude Code's own PreToolUse hook ran once, in Claude Code")
				pre, post := h.runs(t, "PreToolUse", target), h.runs(t, "PostToolUse", target)
				if len(pre) == 0 {
					unseen(t, "Bash", exists(target))
				}
				require.True(t, exists(target), "the allowed command ran")
				require.Len(t, pre, 1, "PreToolUse ran once")
				require.Equal(t, "Bash", pre[0].Tool)
				require.Contains(t, pre[0].Input, command, "the hook got Claude Code's own tool input")
				require.Len(t, post, 1, "PostToolUse ran once")
				require.Contains(t, post[0].Response, "OUT-"+k, "PostToolUse saw the command's output")
			})

			t.Run("ask reaches the editor once", func(t *testing.T) {
				k := key("ask")
				target := filepath.Join(project, "ASKME-"+k+".txt")
				fake.script(k, use("Bash", cmd("touch "+target)), say("DONE-"+k))
				asked := r.countNoted(methodRequestPermission)
				require.Equal(t, "end_turn", stopReason(t, r.prompt(open(t), k+": make the file")))
				got := r.noted(methodRequestPermission)[asked:]
				if len(h.runs(t, "PreToolUse", target)) == 0 {
					unseen(t, "Bash", exists(target))
				}
				require.Len(t, got, 1, "the user was asked once")
				require.True(t, exists(target), "the editor allowed it once, and it ran")
				require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
				knownGap(t, strings.Contains(got[0].Line, "ASK-REASON-52"), "item 3: the permission request the user sees does not carry the hook's reason")
			})

			t.Run("Write is hooked once, under Claude Code's name", func(t *testing.T) {
				k := key("write")
				target := filepath.Join(project, "written-"+k+".txt")
				fake.script(k, use("Write", fileArgs(target, "written\n")), say("DONE-"+k))
				require.Equal(t, "end_turn", stopReason(t, r.prompt(open(t), k+": write the file")))
				pre := h.runs(t, "PreToolUse", target)
				if len(pre) == 0 {
					unseen(t, "Write", exists(target))
				}
				require.Equal(t, "written\n", readFile(t, target))
				require.Len(t, pre, 1, "PreToolUse ran once for one Write")
				require.Equal(t, "Write", pre[0].Tool)
				require.Len(t, h.runs(t, "PostToolUse", target), 1, "PostToolUse ran once")
				require.Len(t, h.claudeRuns(t, target), 1, "Claude Code's own PreToolUse hook ran once, in Claude Code")
			})

			if mode != initial {
				return // prompts and Stop do not depend on the mode
			}
			t.Run("a blocked prompt never reaches the model", func(t *testing.T) {
				k := key("block")
				fake.script(k, say("DONE-"+k))
				require.Equal(t, "refusal", stopReason(t, r.prompt(open(t), k+": the key is "+secret)))
				require.Empty(t, fake.saw(secret), "no model request carried the blocked prompt")
			})

			t.Run("a Stop block continues the turn", func(t *testing.T) {
				k := key("stop")
				fake.script(k, say("FIRST-"+k), say("SECOND-"+k))
				require.NoError(t, os.WriteFile(h.stopFlag, nil, 0o600))
				sess := open(t)
				require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": answer twice")))
				require.Contains(t, r.chunkTexts(), "SECOND-"+k, "the agent went on after the Stop block")
				require.NotEmpty(t, fake.saw(stopReason77), "the model read the Stop hook's reason")
				require.Equal(t, 2, h.stopRuns(t, sess), "Stop ran at each end of the turn, once")
			})
		})
	}
	require.Equal(t, 0, r.wait())
}
