//go:build linux

package doctor

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

var update = flag.Bool("update", false, "rewrite testdata/doctor.golden.json")

// machine is a fake user's machine: a home directory (editors' files),
// a PATH of one directory, and a wave home.
type machine struct {
	home, bin, waveHome string
}

func newMachine(t *testing.T) machine {
	t.Helper()
	m := machine{home: t.TempDir(), bin: t.TempDir(), waveHome: t.TempDir()}
	return m
}

func (m machine) options() Options {
	return Options{Home: m.home, PATH: m.bin, Self: wavehooksBin, Timeout: 3 * time.Minute,
		Settings: settings.Paths{WaveHome: m.waveHome, ProjectRoot: m.home}}
}

// file writes a file under the home directory, making its directories.
func (m machine) file(t *testing.T, rel, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(m.home, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), mode))
	return p
}

// program puts an executable named name on the machine's PATH: a sh
// script with this body.
func (m machine) program(t *testing.T, name, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(m.bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755))
}

// installedAgent puts the agent .ci/run installed (under .cache) on the
// machine's PATH as name, as npm's bin link would, or skips the test.
func (m machine) installedAgent(t *testing.T, name, cached string) {
	t.Helper()
	entry, err := filepath.Abs(filepath.Join("..", "..", ".cache", cached))
	require.NoError(t, err)
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("SKIPPED: %s is not installed (.ci/run installs it under .cache): %v", name, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("SKIPPED: %s needs node: %v", name, err)
	}
	m.program(t, name, fmt.Sprintf("exec '%s' '%s' \"$@\"", node, entry))
}

// pathByID is the report's line for a path.
func pathByID(t *testing.T, r Report, id string) Path {
	t.Helper()
	for _, p := range r.Paths {
		if p.ID == id {
			return p
		}
	}
	require.Failf(t, "no such path", "%s not in %+v", id, r.Paths)
	return Path{}
}

// Each agent .ci/run installs, found on PATH and probed through its real
// path: a hook fires, and the report says which tool it fired for.
func TestRealAgentsFire(t *testing.T) {
	for _, tc := range []struct {
		id, cached, tool string
		needs            string // a program the agent needs on this machine
	}{
		{id: "claude-cli", cached: filepath.Join("claude-code-2.1.332", "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude"), tool: "Read"},
		{id: agentClaudeACP, cached: filepath.Join("claude-agent-acp", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js"), tool: "Read"},
		{id: agentCodexACP, cached: filepath.Join("codex-acp", "node_modules", "@zed-industries", "codex-acp", "bin", "codex-acp.js"), tool: "Bash", needs: "bwrap"},
		{id: agentGemini, cached: filepath.Join("gemini-cli", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"), tool: "Edit"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if tc.needs != "" {
				if _, err := exec.LookPath(tc.needs); err != nil {
					t.Skipf("SKIPPED: %s needs %s: %v", tc.id, tc.needs, err)
				}
			}
			m := newMachine(t)
			if tc.id == "claude-cli" {
				bin, err := filepath.Abs(filepath.Join("..", "..", ".cache", tc.cached))
				require.NoError(t, err)
				if _, err := os.Stat(bin); err != nil {
					t.Skipf("SKIPPED: Claude Code is not installed (.ci/run installs it under .cache): %v", err)
				}
				require.NoError(t, os.Symlink(bin, filepath.Join(m.bin, "claude")))
			} else {
				m.installedAgent(t, tc.id, tc.cached)
			}
			r := Run(context.Background(), m.options())
			p := pathByID(t, r, tc.id)
			require.Equal(t, Fires, p.Status, "%+v", p)
			// Gemini CLI also reads the file through the editor before its
			// write (a Read of its own, acp's known gap): the list may hold more.
			require.Regexp(t, `the probe hook ran on PreToolUse for (.*, )?`+tc.tool+`(,|$)`, p.Detail)
			require.Empty(t, p.Fix)
			require.Equal(t, m.bin, filepath.Dir(p.Where), "found on the PATH given")
			require.True(t, r.OK, "every path found fires: %+v", r.Paths)
			requireNoProbeLeftovers(t)
		})
	}
}

// requireNoProbeLeftovers: every probe removed its temporary world.
func requireNoProbeLeftovers(t *testing.T) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(os.TempDir(), "wavehooks-doctor-*"))
	require.NoError(t, err)
	require.Empty(t, left, "a probe left its temporary directory")
}

// Claude Code's VS Code extension (its directory as the Marketplace
// installs it, the native CLI bundled under resources/) skips hooks: the
// doctor says so and gives the claude-agent-acp snippet, and the run fails.
func TestClaudeCodeVSCodeExtensionSkipsHooks(t *testing.T) {
	m := newMachine(t)
	ext := filepath.Join(".vscode", "extensions", "anthropic.claude-code-2.1.332-linux-x64")
	m.file(t, filepath.Join(ext, "package.json"), `{"name": "claude-code", "publisher": "Anthropic", "version": "2.1.332"}`, 0o644)
	m.file(t, filepath.Join(ext, "resources", "native-binary", "claude"), "#!/bin/sh\nexit 0\n", 0o755)
	r := Run(context.Background(), m.options())
	p := pathByID(t, r, "claude-vscode")
	require.Equal(t, DoesNotFire, p.Status)
	require.Equal(t, "~/"+filepath.ToSlash(ext), p.Where)
	require.Contains(t, p.Detail, "resources/native-binary/claude")
	require.Contains(t, p.Fix, "Claude Code's VS Code extension skips hooks: use `wavehooks acp` with claude-agent-acp")
	require.Contains(t, p.Fix, `"args": ["acp", "--", "claude-agent-acp"]`)
	require.False(t, r.OK)
}

// Both wavehooks extensions are probed through the server they start:
// VS Code's bundled server/wavehooks, Neovim's wavehooks on PATH.
func TestWavehooksExtensionsFire(t *testing.T) {
	for _, tc := range []struct {
		id    string
		setup func(t *testing.T, m machine)
	}{
		{"wavehooks-vscode", func(t *testing.T, m machine) {
			ext := filepath.Join(m.home, ".vscode", "extensions", "wavehooks.wavehooks-0.9.0-linux-x64")
			require.NoError(t, os.MkdirAll(filepath.Join(ext, "server"), 0o755))
			require.NoError(t, os.Symlink(wavehooksBin, filepath.Join(ext, "server", "wavehooks")))
		}},
		{"wavehooks-nvim", func(t *testing.T, m machine) {
			m.file(t, ".local/share/nvim/site/pack/plugins/start/wavehooks/lua/wavehooks/init.lua", "return {}\n", 0o644)
			require.NoError(t, os.Symlink(wavehooksBin, filepath.Join(m.bin, "wavehooks")))
		}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			m := newMachine(t)
			tc.setup(t, m)
			r := Run(context.Background(), m.options())
			p := pathByID(t, r, tc.id)
			require.Equal(t, Fires, p.Status, "%+v", p)
			require.Contains(t, p.Detail, "the probe hook ran on PreToolUse for Read")
			require.True(t, r.OK)
			requireNoProbeLeftovers(t)
		})
	}
}

// The VS Code extension starts the server its user's wavehooks.serverPath
// names before the one it carries (editors/vscode/src/serverPath.ts): the
// doctor probes that one, and a setting naming no file does not fire.
func TestVSCodeServerPathSetting(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		status        Status
		says          string
	}{
		{"the setting's server is probed", wavehooksBin, Fires, wavehooksBin + " serve, sent wave/preToolUse"},
		{"a setting naming no file", "~/nowhere/wavehooks", DoesNotFire, "names ~/nowhere/wavehooks, which does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t)
			ext := filepath.Join(".vscode", "extensions", "wavehooks.wavehooks-0.9.0-linux-x64")
			m.file(t, filepath.Join(ext, "server", "wavehooks"), "#!/bin/sh\nexit 1\n", 0o755) // never started: the setting wins
			m.file(t, ".config/Code/User/settings.json", fmt.Sprintf(`{
  // VS Code's settings allow comments
  "wavehooks.serverPath": %q,
}`, tc.setting), 0o644)
			r := Run(context.Background(), m.options())
			p := pathByID(t, r, "wavehooks-vscode")
			require.Equal(t, tc.status, p.Status, "%+v", p)
			require.Contains(t, p.Detail, tc.says)
		})
	}
}

// A probed path where no hook runs reads DOES NOT FIRE, never FIRES: here
// the `claude` on PATH is a program that exits at once.
func TestAProbeThatRunsNoHookDoesNotFire(t *testing.T) {
	m := newMachine(t)
	m.program(t, "claude", "exit 0")
	r := Run(context.Background(), m.options())
	p := pathByID(t, r, "claude-cli")
	require.Equal(t, DoesNotFire, p.Status, "%+v", p)
	require.Contains(t, p.Detail, "claude -p never reached the fake model")
	require.Contains(t, p.Detail, "the probe hook did not run")
	require.Contains(t, p.Fix, "claude --debug")
	require.False(t, r.OK)
	requireNoProbeLeftovers(t)
}

// A probe that runs out of time proved nothing: NOT PROBED, with the
// advice to raise --timeout, and its process group is gone. Here the
// Neovim plugin's `wavehooks` reads everything and answers nothing.
func TestAProbeThatTimesOutIsNotProbed(t *testing.T) {
	m := newMachine(t)
	m.file(t, ".local/share/nvim/lazy/wavehooks.nvim/lua/wavehooks/init.lua", "return {}\n", 0o644)
	m.program(t, "wavehooks", "echo $$ > "+filepath.Join(m.home, "server.pid")+"; while read -r line; do :; done")
	o := m.options()
	o.Timeout = 3 * time.Second
	r := Run(context.Background(), o)
	p := pathByID(t, r, "wavehooks-nvim")
	require.Equal(t, NotProbed, p.Status, "%+v", p)
	require.Contains(t, p.Detail, "the probe ran out of time (initialize: timed out) before the hook could run: raise --timeout")
	require.False(t, r.OK)
	pid, err := os.ReadFile(filepath.Join(m.home, "server.pid"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join("/proc", strings.TrimSpace(string(pid))))
	require.True(t, os.IsNotExist(err), "the server the probe started is gone")
	requireNoProbeLeftovers(t)
}

// Zed's and JetBrains' agent entries (docs/acp.md, "Editor configuration"):
// an agent started directly, or by an editor's built-in entry, runs no
// wavehooks hook; one routed through wavehooks acp is probed where the
// doctor can run it offline, and otherwise is NOT PROBED, never FIRES.
func TestEditorAgentEntries(t *testing.T) {
	m := newMachine(t)
	m.file(t, ".config/zed/settings.json", `{
  // Zed's settings allow comments and trailing commas
  "agent_servers": {
    "claude-code": {},
    "Gemini direct": {"type": "custom", "command": "gemini", "args": ["--acp"]},
    "Mystery (hooks)": {"type": "custom", "command": "wavehooks", "args": ["acp", "--", "mystery-agent"]},
    "Broken (hooks)": {"type": "custom", "command": "wavehooks", "args": ["acp"]},
  },
}`, 0o644)
	m.file(t, ".jetbrains/acp.json", `{"agent_servers": {"Codex": {"command": "/usr/local/bin/codex-acp", "args": []}}}`, 0o644)
	require.NoError(t, os.Symlink(wavehooksBin, filepath.Join(m.bin, "wavehooks")))
	r := Run(context.Background(), m.options())
	for _, tc := range []struct {
		id     string
		status Status
		says   string
	}{
		{"zed:claude-code", DoesNotFire, `"args": ["acp", "--", "claude-agent-acp"]`},
		{"zed:Gemini direct", DoesNotFire, `"args": ["acp", "--", "gemini", "--acp"]`},
		{"zed:Mystery (hooks)", NotProbed, "no offline model for mystery-agent"},
		{"zed:Broken (hooks)", DoesNotFire, "no agent command after --"},
		{"jetbrains:Codex", DoesNotFire, `"args": ["acp", "--", "codex-acp"]`},
	} {
		t.Run(tc.id, func(t *testing.T) {
			p := pathByID(t, r, tc.id)
			require.Equal(t, tc.status, p.Status, "%+v", p)
			require.Contains(t, p.Detail+"\n"+p.Fix, tc.says)
		})
	}
	require.False(t, r.OK)
}

// A Zed entry routed through wavehooks acp to an agent the doctor can run
// offline is probed with the editor's own wavehooks command, and the
// entry's environment cannot point the agent away from the fake model.
func TestZedEntryThroughWavehooksFires(t *testing.T) {
	m := newMachine(t)
	m.installedAgent(t, agentClaudeACP, filepath.Join("claude-agent-acp", "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js"))
	m.file(t, ".config/zed/settings.json", fmt.Sprintf(`{"agent_servers": {"Claude Code (hooks)":
  {"type": "custom", "command": %q, "args": ["acp", "--", "claude-agent-acp"],
   "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}}}}`, wavehooksBin), 0o644)
	r := Run(context.Background(), m.options())
	p := pathByID(t, r, "zed:Claude Code (hooks)")
	require.Equal(t, Fires, p.Status, "%+v", p)
	require.Contains(t, p.Detail, "the probe hook ran on PreToolUse for Read")
}

// The user's own configuration is summarised with lint's engine: its
// files, hooks per event and lint's findings; an error fails the run.
func TestConfigSummary(t *testing.T) {
	m := newMachine(t)
	require.NoError(t, os.WriteFile(filepath.Join(m.waveHome, "settings.json"), []byte(`{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command >/dev/null"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "true", "enabled": false}]}],
  "NoSuchEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}}`), 0o600))
	r := Run(context.Background(), m.options())
	require.Equal(t, []string{filepath.Join(m.waveHome, "settings.json")}, r.Config.Files)
	require.Equal(t, map[string]int{"PreToolUse": 1, "Stop": 1}, r.Config.Events)
	require.Equal(t, 2, r.Config.Hooks)
	require.Equal(t, 1, r.Config.Active)
	require.Len(t, r.Config.Inactive, 1)
	require.Contains(t, r.Config.Inactive[0], "Stop hook `true`")
	require.Contains(t, r.Config.Inactive[0], `"enabled": false`)
	require.NotZero(t, r.Config.Errors+r.Config.Warnings, "lint flags the unknown event")
	require.Contains(t, strings.Join(r.Config.Diagnostics, "\n"), "NoSuchEvent")
}

// The JSON report's shape is stable (docs/hooks.md documents it): a
// machine with Claude Code's VS Code extension, a Zed entry that starts
// Gemini CLI directly and one hook, nothing probed.
func TestJSONReportGolden(t *testing.T) {
	m := newMachine(t)
	m.file(t, filepath.Join(".vscode", "extensions", "anthropic.claude-code-2.1.332-linux-x64", "package.json"), `{}`, 0o644)
	m.file(t, ".config/zed/settings.json", `{"agent_servers": {"Gemini CLI": {"type": "custom", "command": "gemini", "args": ["--acp"]}}}`, 0o644)
	require.NoError(t, os.WriteFile(filepath.Join(m.waveHome, "settings.json"), []byte(`{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -r .tool_input.command >/dev/null"}]}]}}`), 0o600))
	r := Run(context.Background(), m.options())
	var out strings.Builder
	require.NoError(t, WriteJSON(&out, r))
	got := strings.ReplaceAll(out.String(), m.waveHome, "$WAVE_HOME")
	golden := filepath.Join("testdata", "doctor.golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
	var back Report
	require.NoError(t, json.Unmarshal([]byte(got), &back), "the report reads back")
}
