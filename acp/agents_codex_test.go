//go:build linux

package acp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// codexACP is the codex-acp that testdata/codex-acp/install.sh installs, or
// $WAVEHOOKS_CODEX_ACP.
func codexACP(t *testing.T) (node, entry string) {
	return installedAgent(t, "codex-acp", "WAVEHOOKS_CODEX_ACP", "codex-acp",
		filepath.Join("codex-acp", "node_modules", "@zed-industries", "codex-acp", "bin", "codex-acp.js"))
}

// codexHome writes a CODEX_HOME whose only model provider is the fake
// Responses API on loopback.
func codexHome(t *testing.T, base string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(fakemodel.CodexConfig(base)), 0o600))
	return dir
}

// codex-acp (OpenAI's Codex behind Zed's ACP adapter) through the proxy,
// offline against the fake Responses API, in every mode it offers: the
// behaviour matrix of agents_matrix_test.go, one agent process for all
// cases. Codex has no file-writing tool with this model's fallback
// metadata (it writes with exec_command), so the Write case is skipped.
// The proxy gives Codex its PreToolUse hook (acp/agents/codex.go), so the hooks
// decide in every mode; read-only's sandbox still refuses a write they
// allow, which the matrix checks and reports as the mode's own decision.
func TestCodexACP(t *testing.T) {
	node, entry := codexACP(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		// Without it every command fails in Codex's sandbox launcher,
		// which would read as the agent refusing them.
		t.Skip("SKIPPED: codex-acp's Linux sandbox needs bubblewrap (apt-get install bubblewrap): " + err.Error())
	}
	fake := startFakeModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
			"CODEX_HOME=" + codexHome(t, fake.URL()), "FAKE_OPENAI_API_KEY=sk-offline", "OPENAI_API_KEY=sk-offline",
			"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "HTTPS_PROXY=" + fake.URL(), "HTTP_PROXY=" + fake.URL()}
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	initial, offered := sessionModes(t, r)
	t.Logf("codex-acp starts sessions in %q and offers %v", initial, offered)
	runMatrix(t, r, fake, h, initial, offered, agentSpec{
		name:  "Codex",
		shell: func(c string) step { return use("exec_command", map[string]any{"cmd": c}) }, shellTool: "Bash",
		denyText: "Codex ends the turn when a command is refused: the model reads nothing",
		bridged:  true,
		// Its read-only sandbox refuses the write the hooks allowed; the
		// model reads why (a real one would then ask to escalate).
		refuses: map[string]string{"read-only": "Read-only file system"},
	})

	// What a real model does when the sandbox stops a command: it asks to
	// run it outside, and Codex asks the editor, where the hooks decide.
	escalated := func(c string) step {
		return use("exec_command", map[string]any{"cmd": c, "sandbox_permissions": "require_escalated", "justification": "needs to write"})
	}
	t.Run("escalated/allow lets it through and PostToolUse sees the result", func(t *testing.T) {
		k := "CASE-escalatedallow"
		target := filepath.Join(project, "allowed-"+k+".txt")
		command := "echo OUT-" + k + " && touch " + target
		fake.script(k, escalated(command), say("DONE-"+k))
		asked := r.countNoted(methodRequestPermission)
		sess, _ := r.newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": make the file")))
		require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that allows leaves the editor unasked")
		require.True(t, exists(target), "the allowed command ran")
		pre, post := h.runs(t, "PreToolUse", target), h.runs(t, "PostToolUse", target)
		require.Len(t, pre, 1, "PreToolUse ran once")
		require.Equal(t, "Bash", pre[0].Tool)
		require.Len(t, post, 1, "PostToolUse ran once")
		require.Contains(t, post[0].Response, "OUT-"+k, "PostToolUse saw the command's output")
	})
	t.Run("escalated/ask reaches the editor once", func(t *testing.T) {
		k := "CASE-escalatedask"
		target := filepath.Join(project, "ASKME-"+k+".txt")
		fake.script(k, escalated("touch "+target), say("DONE-"+k))
		asked := r.countNoted(methodRequestPermission)
		sess, _ := r.newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": make the file")))
		got := r.noted(methodRequestPermission)[asked:]
		require.Len(t, got, 1, "the user was asked once")
		require.True(t, exists(target), "the editor allowed it once, and it ran")
		require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
		require.Contains(t, got[0].Line, askReason, "the permission request the user sees carries the hook's reason (item 3)")
	})
	require.Equal(t, 0, r.wait())
}

// When the proxy dies while Codex's tool call waits for the bridge's
// decision, the command does not run: Codex reads the hook's exit 2 as a
// block, through wavehooks-hook and `wavehooks acp-hook` alike. The session
// is in full-access, where neither Codex nor its sandbox would stop the
// command, so only the hook can. The proxy is the real binary, killed with
// SIGKILL while the user's PreToolUse hook runs (proxyKilledMidHook); the
// test waits for Codex to give the model the call's output before it looks
// for the command's marker file.
func TestCodexBridgeFailsClosedWhenTheProxyDies(t *testing.T) {
	node, entry := codexACP(t)
	for _, hc := range hookClients(t) {
		t.Run(hc.name, func(t *testing.T) {
			fake := startFakeModel(t)
			project := t.TempDir()
			marker := filepath.Join(project, "tool-ran")
			const k = "CASE-killedcodex"
			fake.script(k, use("exec_command", map[string]any{"cmd": "touch " + marker}), say("DONE-"+k))
			env := func(tmp string) []string {
				return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + tmp, "LANG=C.UTF-8",
					"CODEX_HOME=" + codexHome(t, fake.URL()), "FAKE_OPENAI_API_KEY=sk-offline", "OPENAI_API_KEY=sk-offline",
					"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "HTTPS_PROXY=" + fake.URL(), "HTTP_PROXY=" + fake.URL()}
			}
			log := proxyKilledMidHook(t, hc.bin, project, env, []string{node, entry}, "full-access", k+": mark it")
			require.Contains(t, log, hc.log)
			// Codex gives the model the call's output: after that the
			// command has run or it never will.
			require.Eventually(t, func() bool { return len(fake.saw(`"function_call_output"`)) > 0 }, 2*time.Minute, 20*time.Millisecond,
				"Codex went on after the proxy died")
			require.False(t, exists(marker), "the command ran though no hook decided it")
			out := fake.saw(`"function_call_output"`)[0].Body
			t.Logf("what Codex told the model: %.400s", out[bytes.Index(out, []byte(`"function_call_output"`)):])
		})
	}
}
