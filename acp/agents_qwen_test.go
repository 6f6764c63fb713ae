//go:build linux

package acp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// qwenCode is the Qwen Code that testdata/qwen-code/install.sh installs, or
// $WAVEHOOKS_QWEN_CODE.
func qwenCode(t *testing.T) (node, entry string) {
	return installedAgent(t, "Qwen Code", "WAVEHOOKS_QWEN_CODE", "qwen-code",
		filepath.Join("qwen-code", "node_modules", "@qwen-code", "qwen-code", "cli-entry.js"))
}

// qwenEnv is Qwen Code's offline environment: its settings
// (~/.qwen/settings.json) choose the OpenAI auth type, whose base URL is
// the fake Chat Completions API on loopback; no telemetry, usage
// statistics, update check, IDE, sandbox, pty shell (under load its
// commands end with SIGHUP, failed, before PostToolUse), checkpointing, follow-up
// suggestions or managed memory (side requests that carry the conversation,
// case marker and all, with tools, which the fake would answer from the
// case's script); every other request goes to the fake as a proxy that
// forwards nothing.
func qwenEnv(t *testing.T, home, tmp, base string) []string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".qwen"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(`{
	  "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
	  "model": {"name": "fake-model"},
	  "memory": {"enableManagedAutoMemory": false},
	  "telemetry": {"enabled": false}, "privacy": {"usageStatisticsEnabled": false},
	  "general": {"disableAutoUpdate": true, "enableAutoUpdate": false, "checkpointing": {"enabled": false}},
	  "ui": {"enableFollowupSuggestions": false},
	  "ide": {"enabled": false}, "tools": {"sandbox": false, "shell": {"enableInteractiveShell": false}}}`), 0o600))
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "NO_COLOR=1",
		"OPENAI_API_KEY=sk-offline", "OPENAI_BASE_URL=" + base + "/v1", "OPENAI_MODEL=fake-model",
		"HTTPS_PROXY=" + base, "HTTP_PROXY=" + base, "https_proxy=" + base, "http_proxy=" + base,
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
}

// Qwen Code (npm @qwen-code/qwen-code, `qwen --acp`) through the proxy,
// offline against a fake Chat Completions API, in every mode it offers:
// the behaviour matrix of agents_matrix_test.go, one agent process for all
// cases.
func TestQwenCode(t *testing.T) {
	node, entry := qwenCode(t)
	fake := startChatModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry, "--acp"}
		o.AgentDir = project
		o.AgentEnv = qwenEnv(t, home, tmp, fake.URL())
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	t.Cleanup(func() {
		require.Empty(t, fake.tried(), "Qwen Code tried to reach the network (refused)")
	})
	initial, offered := sessionModes(t, r)
	t.Logf("Qwen Code starts sessions in %q and offers %v", initial, offered)
	runMatrix(t, r, fake.fakeModel, h, initial, offered, agentSpec{
		name:  "Qwen Code",
		shell: func(c string) step { return use("run_shell_command", cmd(c)) }, shellTool: "Bash",
		write:     func(path, content string) step { return use("write_file", fileArgs(path, content)) },
		writeTool: "Write",
		denyText:  "Qwen Code's own refusal",
		gaps: matrixGaps{transcriptName: "Qwen Code's tool_call says kind edit with no diff until the write is done (the transcript's name, Edit); " +
			"the hook was told Write from its permission request's diff, or from the editor's fs/write_text_file that carries the write out " +
			"(a second transcript entry, Write, where no permission request ties it to the tool call)"},
	})
	require.Equal(t, 0, r.wait())
}
