package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestUpdatedPromptOnTheWire: through the server, a UserPromptSubmit hook's
// updatedPrompt comes back in wave/userPromptSubmit's result, and the
// transcript (what the model sees, wave/apiMessages) holds the rewritten
// prompt, not what the user typed; a blocked prompt has no updatedPrompt.
func TestUpdatedPromptOnTheWire(t *testing.T) {
	const settings = `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "p=$(jq -r .prompt); jq -n --arg p \"$p\" '{hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", updatedPrompt: ($p | sub(\"sk-[a-z0-9]+\"; \"[key]\"))}}'"},
  {"type": "command", "command": "if jq -e '.prompt | test(\"drop table\")' >/dev/null; then echo 'no' >&2; exit 2; fi"}
]}]}}`
	for _, format := range []string{"json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			updatedPromptOnTheWire(t, strings.Replace(settings, `{"hooks"`, `{"transcriptFormat": "`+format+`", "hooks"`, 1))
		})
	}
}

func updatedPromptOnTheWire(t *testing.T, settings string) {
	e := startEditor(t, editorOpts{settings: settings})
	sid, transcript := e.startSession()

	ok := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "deploy with sk-abc123"})
	require.Equal(t, false, ok["blocked"])
	require.Equal(t, "deploy with [key]", ok["updatedPrompt"])
	api := mustJSON(e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})["messages"])
	require.Contains(t, api, "deploy with [key]")
	require.NotContains(t, api, "sk-abc123", "the model never sees the user's text")
	file, err := os.ReadFile(transcript)
	require.NoError(t, err)
	require.Contains(t, string(file), "deploy with [key]")
	require.NotContains(t, string(file), "sk-abc123", "the transcript file holds the rewritten prompt")

	blocked := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "drop table users"})
	require.Equal(t, true, blocked["blocked"])
	require.Nil(t, blocked["updatedPrompt"], "a block beats a rewrite")
}

// TestUpdatedPromptHover: hovering a UserPromptSubmit key in a settings
// file says that updatedPrompt is wavehooks' own extension, so a user who
// shares the file with Claude Code learns there that Claude Code ignores it.
func TestUpdatedPromptHover(t *testing.T) {
	text := "{\"hooks\": {\n  \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}]\n}}"
	e := startEditor(t, editorOpts{settings: text})
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri.File(filepath.Join(e.home, "settings.json"))},
		"position": map[string]any{"line": 1, "character": 5}}, &hover))
	require.Contains(t, hover.Contents.Value, "**UserPromptSubmit**")
	require.Contains(t, hover.Contents.Value, "`updatedPrompt` (wavehooks' own extension")
}
