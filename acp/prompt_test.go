package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A UserPromptSubmit hook's context goes to the agent as an extra text block
// after the prompt; the prompt's own blocks (and their _meta) are kept.
func TestUserPromptSubmitContextIsAnExtraBlock(t *testing.T) {
	dir := t.TempDir()
	ctx := hook(t, dir, "ctx.sh", `jq -n --arg p "$(jq -r .prompt)" '{hookSpecificOutput: {hookEventName: "UserPromptSubmit", additionalContext: ("branch is main; you asked: " + $p)}}'`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"UserPromptSubmit", "", ctx}),
		script:   script(`[{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	res := r.call("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{
		map[string]any{"type": "text", "text": "fix it", "_meta": map[string]any{"keep": 1}},
		map[string]any{"type": "resource_link", "uri": "file:///a.go", "name": "a.go"},
		map[string]any{"type": "text", "text": "please"},
	}, "_meta": map[string]any{"editor": "x"}})
	require.Equal(t, "end_turn", stopReason(t, res))
	got := r.agentGot("session/prompt")
	require.Len(t, got, 1)
	params := got[0]["params"].(map[string]any)
	require.Equal(t, map[string]any{"editor": "x"}, params["_meta"])
	blocks := params["prompt"].([]any)
	require.Len(t, blocks, 4)
	require.Equal(t, map[string]any{"type": "text", "text": "fix it", "_meta": map[string]any{"keep": float64(1)}}, blocks[0])
	require.Equal(t, "resource_link", blocks[1].(map[string]any)["type"])
	require.Equal(t, "[Hook:UserPromptSubmit] branch is main; you asked: fix it\n\nplease", blocks[3].(map[string]any)["text"])
}

// A Stop hook that always blocks gets at most 8 follow-ups, as in serve.
func TestStopBlocksAreCapped(t *testing.T) {
	dir := t.TempDir()
	stop := hook(t, dir, "stop.sh", `cat >/dev/null; echo '{"decision":"block","reason":"again"}'`)
	turns := make([]string, 12)
	for i := range turns {
		turns[i] = `[{"stop":"end_turn"}]`
	}
	r := startRig(t, rigOptions{settings: settings([3]string{"Stop", "", stop}), script: script(turns...)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Len(t, r.agentGot("session/prompt"), 9, "the prompt and 8 follow-ups")
	require.Contains(t, strings.Join(r.chunkTexts(), ""), "blocked stopping 8 times in a row")
}

// A UserPromptSubmit hook's updatedPrompt (wavehooks' own extension)
// reaches the agent instead of what the user typed: the prompt's text blocks
// become one block of the rewritten text where the first was, its other
// blocks stay, and the transcript holds the rewritten prompt. A hook that
// blocks beats one that rewrites: the agent gets nothing.
func TestUserPromptSubmitUpdatedPromptReachesTheAgent(t *testing.T) {
	dir := t.TempDir()
	rewrite := hook(t, dir, "rewrite.sh", `p=$(jq -r .prompt); jq -n --arg p "$p" '{hookSpecificOutput: {hookEventName: "UserPromptSubmit", updatedPrompt: ("[redacted] " + ($p | sub("hunter2"; "***")))}}'`)
	gate := hook(t, dir, "gate.sh", `if jq -e '.prompt | test("rm -rf")' >/dev/null; then echo "no destructive requests" >&2; exit 2; fi`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"UserPromptSubmit", "", rewrite}, [3]string{"UserPromptSubmit", "", gate}),
		script:   script(`[{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	res := r.call("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{
		map[string]any{"type": "text", "text": "my password is hunter2"},
		map[string]any{"type": "resource_link", "uri": "file:///a.go", "name": "a.go"},
		map[string]any{"type": "text", "text": "fix it"},
	}})
	require.Equal(t, "end_turn", stopReason(t, res))
	got := r.agentGot("session/prompt")
	require.Len(t, got, 1)
	blocks := got[0]["params"].(map[string]any)["prompt"].([]any)
	require.Len(t, blocks, 2)
	require.Equal(t, map[string]any{"type": "text", "text": "[redacted] my password is ***\n\nfix it"}, blocks[0])
	require.Equal(t, "resource_link", blocks[1].(map[string]any)["type"])
	raw, _ := json.Marshal(r.transcript(sess))
	require.NotContains(t, string(raw), "hunter2", "the transcript holds what the model sees")
	require.Contains(t, string(raw), "[redacted] my password is ***")
	require.NotContains(t, readFile(t, r.agentLog), "hunter2")

	require.Equal(t, "refusal", stopReason(t, r.prompt(sess, "please rm -rf /")))
	require.Len(t, r.agentGot("session/prompt"), 1, "a block beats a rewrite")
}
