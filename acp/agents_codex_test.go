//go:build linux

package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// codexACP is the codex-acp that testdata/codex-acp/install.sh installs,
// or $WAVEHOOKS_CODEX_ACP.
func codexACP(t *testing.T) (node, entry string) {
	t.Helper()
	entry = os.Getenv("WAVEHOOKS_CODEX_ACP")
	if entry == "" {
		entry = filepath.Join("..", ".cache", "codex-acp", "node_modules", "@zed-industries", "codex-acp", "bin", "codex-acp.js")
	}
	if _, err := os.Stat(entry); err != nil {
		t.Skip("SKIPPED: codex-acp is not installed (sh acp/testdata/codex-acp/install.sh installs it): " + err.Error())
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: codex-acp needs node: " + err.Error())
	}
	entry, err = filepath.Abs(entry)
	require.NoError(t, err)
	return node, entry
}

// codexHome writes a CODEX_HOME whose only model provider is the fake
// Responses API on loopback.
func codexHome(t *testing.T, base string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(fmt.Sprintf(`model = "gpt-5-codex"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[analytics]
enabled = false
`, base)), 0o600))
	return dir
}

// codex-acp (OpenAI's Codex behind Zed's ACP adapter) through the proxy,
// offline against the fake Responses API, in every mode it offers: the
// behaviour matrix of agents_matrix_test.go, one agent process for all
// cases. Codex has no file-writing tool with this model's fallback
// metadata (it writes with exec_command), so the Write case is skipped.
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
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
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
	})
	require.Equal(t, 0, r.wait())
}
