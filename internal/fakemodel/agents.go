package fakemodel

import (
	"encoding/json"
	"fmt"
)

// ClaudeEnv is what points Claude Code (the CLI, or the one
// claude-agent-acp runs) at a fake Messages API at base (http://127.0.0.1:PORT)
// and keeps it offline: every other request goes to the fake as a proxy that
// forwards nothing, and nonessential traffic, telemetry and updates are off.
// The conformance suite's settings; the caller adds PATH, HOME and TMPDIR.
func ClaudeEnv(base string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=sk-ant-offline",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"HTTPS_PROXY=" + base, "HTTP_PROXY=" + base, "https_proxy=" + base, "http_proxy=" + base,
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
}

// CodexConfig is a CODEX_HOME's config.toml whose only model provider is a
// fake Responses API at base (ServeResponses behind it), with retries,
// update checks and analytics off. Codex reads the key from
// FAKE_OPENAI_API_KEY.
func CodexConfig(base string) string {
	return fmt.Sprintf(`model = "gpt-5-codex"
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
`, base)
}

// GeminiSettings is an offline Gemini CLI's ~/.gemini/settings.json: API-key
// auth (the key is never used), no folder trust prompt, telemetry, update
// checks, IDE mode or sandbox.
const GeminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
  "telemetry": {"enabled": false}, "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true, "enableAutoUpdate": false}, "ide": {"enabled": false}, "tools": {"sandbox": false}}`

// GeminiTurn is one scripted model answer as Gemini CLI's
// --fake-responses-non-strict file reads it (one JSON line): Gemini CLI has
// its own fake model, so no server is needed.
func GeminiTurn(parts ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0}}}}})
	return string(b) + "\n"
}
