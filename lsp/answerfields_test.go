package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/lsp"
)

// answerFieldsSettings are real sh + jq hooks that answer with the fields
// Claude Code 2.1.332 reads beyond the older ones.
const answerFieldsSettings = `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -e .tool_input.command >/dev/null || exit 1; d=$(cat \"$WAVE_PROJECT_DIR/pre-decision\"); jq -n --arg d \"$d\" '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: $d, permissionDecisionReason: \"said \\($d)\", updatedInput: {command: \"make -n\"}, additionalContext: \"ctx\", permissionDisplay: {title: \"Run make?\"}}}'"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "p=$(jq -r .prompt); case \"$p\" in *secret*) jq -n '{decision: \"block\", reason: \"the prompt holds a secret\", hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", suppressOriginalPrompt: true}}' ;; *) jq -n --arg t \"$p\" '{hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", sessionTitle: (\"Chat: \" + $t)}}' ;; esac"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "jq -n --arg c \"$(jq -r .tool_input.command)\" '{hookSpecificOutput: {hookEventName: \"PostToolUse\", classifierContext: (\"a dry run: \" + $c)}}'"}]}],
  "Notification": [{"hooks": [{"type": "command", "command": "m=$(jq -r .message); seq=$(printf '\\033]777;notify;Claude;%s\\007' \"$m\"); jq -nc --arg seq \"$seq\" '{terminalSequence: $seq}'"}]}]
}}`

// TestAnswerFieldsOnTheWire: through the server, a PreToolUse "defer"
// keeps the tool from running until the host sends the call again; a
// blocked prompt asks that its text be left out; a prompt that goes ahead
// names the session; PostToolUse's classifierContext, PreToolUse's
// permissionDisplay and a Notification's terminalSequence come back as data.
func TestAnswerFieldsOnTheWire(t *testing.T) {
	e := startEditor(t, editorOpts{settings: answerFieldsSettings})
	sid, _ := e.startSession()
	decide := func(d string) {
		require.NoError(t, os.WriteFile(filepath.Join(e.root, "pre-decision"), []byte(d), 0o644))
	}
	pre := func() map[string]any {
		return e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_d", "toolName": "Bash", "toolInput": map[string]any{"command": "make"}})
	}

	decide("defer")
	out := pre()
	require.Equal(t, "defer", out["permission"])
	require.Equal(t, "defer", out["decision"])
	require.Equal(t, map[string]any{"command": "make"}, out["toolInput"], "updatedInput is ignored for defer")
	require.Equal(t, map[string]any{"title": "Run make?"}, out["permissionDisplay"])
	var got lsp.GetSessionResult
	require.NoError(t, e.call("wave/getSession", map[string]any{"sessionId": sid}, &got))
	tool := findTool(got.Messages, "toolu_d")
	require.NotNil(t, tool)
	require.Empty(t, tool.Tool().Result, "the deferred call stays pending")
	require.Nil(t, tool.Tool().Success)
	require.NotContains(t, mustJSON(got.Messages), `"ctx"`, "additionalContext is ignored for defer")

	decide("allow") // the host resumes the call: its hooks decide anew
	out = pre()
	require.Equal(t, "allow", out["permission"])
	require.Equal(t, map[string]any{"command": "make -n"}, out["toolInput"])

	post := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "toolu_d", "toolName": "Bash",
		"toolInput": map[string]any{"command": "make -n"}, "toolResponse": "ok"})
	require.Equal(t, "a dry run: make -n", post["classifierContext"])
	api := e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})
	require.NotContains(t, mustJSON(api["messages"]), "a dry run", "the classifier's note never reaches the model")

	ok := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "fix the parser"})
	require.Equal(t, "Chat: fix the parser", ok["sessionTitle"])
	require.Nil(t, ok["suppressOriginalPrompt"])
	blocked := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "my secret is hunter2"})
	require.Equal(t, true, blocked["blocked"])
	require.Equal(t, true, blocked["suppressOriginalPrompt"])
	require.Nil(t, blocked["sessionTitle"])

	raw, err := e.callRaw("wave/runHooks", mustRaw(t, map[string]any{"sessionId": sid, "event": "Notification",
		"input": map[string]any{"message": "Build done", "notification_type": "idle_prompt"}}), 10*time.Second)
	require.NoError(t, err)
	require.Contains(t, string(raw.Result), `"terminalSequences":["\u001b]777;notify;Claude;Build done\u0007"]`, "escaped on the wire")
	require.NotContains(t, string(raw.Result), "\x1b")
}

func findTool(msgs []lsp.Message, id string) *lsp.Block {
	for i := range msgs {
		for j := range msgs[i].Blocks {
			if b := &msgs[i].Blocks[j]; b.Tool().ID == id {
				return b
			}
		}
	}
	return nil
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
