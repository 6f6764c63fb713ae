//go:build linux

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// openCode is the opencode binary that testdata/opencode/install.sh installs
// (opencode-ai's bin/opencode.exe, copied there from the opencode-linux-x64
// package), or $WAVEHOOKS_OPENCODE.
func openCode(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("WAVEHOOKS_OPENCODE")
	if bin == "" {
		bin = filepath.Join("..", ".cache", "opencode", "node_modules", "opencode-ai", "bin", "opencode.exe")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SKIPPED: opencode is not installed (sh acp/testdata/opencode/install.sh installs it): %v", err)
	}
	bin, err := filepath.Abs(bin)
	require.NoError(t, err)
	return bin
}

// openCodeEnv is opencode's offline environment: its home, config, data and
// cache under home; its config file (OPENCODE_CONFIG) has one provider, the
// fake Chat Completions API on loopback (@ai-sdk/openai-compatible, which
// the binary bundles); no update check, no models.dev fetch, no default or
// external plugins, no LSP downloads, no sharing, no Claude Code files; and
// every other request goes to the fake as a proxy that forwards nothing.
// permission is the config's "permission" object (nil: opencode's own
// defaults).
func openCodeEnv(t *testing.T, home, tmp, base string, permission map[string]any) []string {
	t.Helper()
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"model": "fake/fake-model", "small_model": "fake/fake-model", "enabled_providers": []string{"fake"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": base + "/v1", "apiKey": "sk-offline"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake model", "tool_call": true}},
		}},
	}
	if permission != nil {
		cfg["permission"] = permission
	}
	config := filepath.Join(t.TempDir(), "opencode.json")
	require.NoError(t, os.WriteFile(config, mustRaw(cfg), 0o600))
	// At start opencode installs @opencode-ai/plugin (for a user's own
	// plugins) into each config directory from the npm registry, in the
	// background, unless the directory's package-lock.json already lists
	// it (its Npm.install): this one does, so nothing is fetched.
	global := filepath.Join(home, ".config", "opencode")
	require.NoError(t, os.MkdirAll(filepath.Join(global, "node_modules"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(global, "package.json"), []byte(`{"dependencies": {"@opencode-ai/plugin": "*"}}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(global, "package-lock.json"),
		[]byte(`{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}`), 0o600))
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"OPENCODE_CONFIG=" + config, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_PURE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"HTTPS_PROXY=" + base, "HTTP_PROXY=" + base, "https_proxy=" + base, "http_proxy=" + base,
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
}

// configModes returns the mode a session starts in and the modes it
// offers, from session/new's configOptions (category "mode"): opencode
// says its modes (its primary agents) there, not in "modes"; its
// session/set_mode takes them all the same.
func configModes(t *testing.T, first map[string]any) (initial string, offered []string) {
	t.Helper()
	var res struct {
		ConfigOptions []struct {
			Category     string `json:"category"`
			CurrentValue string `json:"currentValue"`
			Options      []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	require.NoError(t, json.Unmarshal(mustRaw(first), &res))
	for _, o := range res.ConfigOptions {
		if o.Category == "mode" {
			for _, v := range o.Options {
				offered = append(offered, v.Value)
			}
			require.Contains(t, offered, o.CurrentValue)
			return o.CurrentValue, offered
		}
	}
	t.Fatalf("session/new gave no mode option: %s", mustJSON(first))
	return "", nil
}

// startOpenCode starts `opencode acp` behind the proxy with the matrix's
// hooks, offline against a Chat Completions fake.
func startOpenCode(t *testing.T, permission map[string]any) (*rig, *chatModel, matrixHooks) {
	bin := openCode(t)
	fake := startChatModel(t)
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	hookExe, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = hookExe
		o.Agent = []string{bin, "acp"}
		o.AgentDir = project
		o.AgentEnv = openCodeEnv(t, home, tmp, fake.URL(), permission)
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	t.Cleanup(func() {
		require.Empty(t, fake.tried(), "opencode tried to reach the network (refused)")
	})
	return r, fake, h
}

// openCodeSpec: opencode's model calls bash ({command, description}) and
// write ({filePath, content}); its permission requests carry no tool name,
// so the proxy names them from their kind: execute is Bash, an edit of a
// new file is Write.
var openCodeSpec = agentSpec{
	name: "opencode",
	shell: func(c string) step {
		return use("bash", map[string]any{"command": c, "description": "Runs the command"})
	}, shellTool: "Bash",
	write: func(path, content string) step {
		return use("write", map[string]any{"filePath": path, "content": content})
	}, writeTool: "Write",
	denyText: "opencode ends the turn when a permission is rejected: the model reads nothing",
	gaps:     openCodeGaps,
}

// openCodeGaps: what the proxy does not yet do for opencode 1.18.33.
var openCodeGaps = matrixGaps{
	rejudged: "opencode's permission request carries rawInput {command} only; after it is allowed, its tool_call_update " +
		"carries {command, description, cwd}, which the proxy takes for a changed input (\"a decided tool call's input changed: " +
		"its PreToolUse hooks judge it again\")",
	transcriptName: "opencode's tool_call says kind edit with no diff (the transcript's name, Edit); only its permission request " +
		"carries the diff of a new file, from which the hook was told Write",
}

// opencode (npm opencode-ai) through the proxy, offline against a fake Chat
// Completions API, with the permissions a wavehooks user gives it: ask for
// bash and edits, so each reaches the editor as a permission request, where
// the hooks decide. The behaviour matrix of agents_matrix_test.go runs in
// every mode it offers (build, plan), one agent process for all cases. (A
// global "permission" applies in plan mode too: it asks for edits, which
// plan mode, with no "permission" set, refuses by its own rule.)
func TestOpenCode(t *testing.T) {
	r, fake, h := startOpenCode(t, map[string]any{"bash": "ask", "edit": "ask"})
	_, first := r.newSession()
	initial, offered := configModes(t, first)
	t.Logf("opencode starts sessions in %q and offers %v", initial, offered)
	runMatrix(t, r, fake.fakeModel, h, initial, offered, openCodeSpec)
	require.Equal(t, 0, r.wait())
}

// opencode as it ships: no "permission" in its config, so it runs bash
// without asking in both its modes, and writes without asking in build
// (plan refuses edits itself, by its own rule).
// No permission request, no wavehooks PreToolUse hook: each tool case ends
// in the matrix's KNOWN GAP (item 5), and the editor is told once per
// session that a tool ran that no hook could see. The prompt-level cases
// hold all the same: the proxy decides them before and after the agent.
func TestOpenCodeDefaultPermissions(t *testing.T) {
	r, fake, h := startOpenCode(t, nil)
	_, first := r.newSession()
	initial, offered := configModes(t, first)
	runMatrix(t, r, fake.fakeModel, h, initial, offered, openCodeSpec)
	require.Equal(t, 0, r.wait())
}
