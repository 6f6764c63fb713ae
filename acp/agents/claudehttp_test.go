package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// installAdapter lays out a claude-agent-acp install as npm does, with the
// Claude Agent SDK's package.json naming the Claude Code it bundles (none
// when version is ""), and returns the adapter's script.
func installAdapter(t *testing.T, version string) string {
	t.Helper()
	root := t.TempDir()
	script := filepath.Join(root, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")
	require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	require.NoError(t, os.WriteFile(script, nil, 0o644))
	if version != "" {
		sdk := filepath.Join(root, "node_modules", filepath.FromSlash(claudeSDKPackage))
		require.NoError(t, os.MkdirAll(filepath.Dir(sdk), 0o755))
		require.NoError(t, os.WriteFile(sdk, []byte(`{"name":"@anthropic-ai/claude-agent-sdk","claudeCodeVersion":"`+version+`"}`), 0o644))
	}
	return script
}

// The http hook is given only to a Claude Code known to fail closed on
// one (2.1.295 and later, read from the SDK the adapter resolves); every
// other case keeps the command hook, with the reason for the log.
func TestClaudeHTTPHooksOnlyWhereTheyFailClosed(t *testing.T) {
	cases := []struct {
		name    string
		version string
		env     []string
		command func(script string) []string
		ok      bool
		why     string
	}{
		{name: "the bundled 2.1.318", version: "2.1.318", ok: true, why: "it runs Claude Code 2.1.318"},
		{name: "2.1.295 exactly", version: "2.1.295", ok: true},
		{name: "2.2.0", version: "2.2.0", ok: true},
		{name: "2.1.294, before onFailure", version: "2.1.294", why: "do not fail closed"},
		{name: "a version it cannot read", version: "2.1", why: "do not fail closed"},
		{name: "no SDK beside it", why: "not found"},
		{name: "CLAUDE_CODE_EXECUTABLE", version: "2.1.318", env: []string{"CLAUDE_CODE_EXECUTABLE=/opt/claude"}, why: "CLAUDE_CODE_EXECUTABLE"},
		{name: "npx", version: "2.1.318", command: func(string) []string { return []string{"npx", "@agentclientprotocol/claude-agent-acp"} }, why: "not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := installAdapter(t, c.version)
			command := []string{"node", script}
			if c.command != nil {
				command = c.command(script)
			}
			ok, why := claudeAgentACP{}.HTTPHooks(command, c.env, os.ReadFile)
			require.Equal(t, c.ok, ok, why)
			require.Contains(t, why, c.why)
		})
	}
}

// With an http hook, the session's settings name the bridge's URL and the
// header, which Claude Code fills from the variable the session's env
// gives it: the secret is in options.env, never in the settings (which the
// adapter puts on Claude Code's command line). A session that names its own
// Claude Code keeps the command hook.
func TestClaudeHTTPHookKeepsTheSecretOutOfTheSettings(t *testing.T) {
	hook := Hook{Command: "wavehooks acp-hook --socket /s --token t", HTTP: &HTTPHook{URL: "http://127.0.0.1:9/p", Header: "X-H", EnvVar: "WAVE_V", Secret: "s3cr3t-value"}}
	cases := []struct {
		name    string
		options string
		http    bool
	}{
		{name: "no options", options: `{}`, http: true},
		{name: "the editor's env is kept", options: `{"env":{"A":"1"}}`, http: true},
		{name: "its own Claude Code", options: `{"pathToClaudeCodeExecutable":"/opt/claude"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line, err := claudeAgentACP{}.SessionRequest([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[],"_meta":{"claudeCode":{"options":`+c.options+`}}}}`), hook, os.ReadFile)
			require.NoError(t, err)
			var msg struct {
				Params struct {
					Meta struct {
						ClaudeCode struct {
							Options struct {
								Env      map[string]string `json:"env"`
								Settings json.RawMessage   `json:"settings"`
							} `json:"options"`
						} `json:"claudeCode"`
					} `json:"_meta"`
				} `json:"params"`
			}
			require.NoError(t, json.Unmarshal(line, &msg))
			opts := msg.Params.Meta.ClaudeCode.Options
			require.NotContains(t, string(opts.Settings), hook.HTTP.Secret)
			if !c.http {
				require.Contains(t, string(opts.Settings), `"type":"command"`)
				require.NotContains(t, string(line), hook.HTTP.Secret)
				return
			}
			require.Equal(t, hook.HTTP.Secret, opts.Env["WAVE_V"])
			if c.options != `{}` {
				require.Equal(t, "1", opts.Env["A"])
			}
			require.Contains(t, string(opts.Settings), `{"allowedEnvVars":["WAVE_V"],"headers":{"X-H":"${WAVE_V}"},"onFailure":"block","timeout":3600,"type":"http","url":"http://127.0.0.1:9/p"}`)
			require.NotContains(t, string(opts.Settings), `"type":"command"`)
		})
	}
}
