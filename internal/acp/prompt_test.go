package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A UserPromptSubmit block answers the editor's prompt with stopReason
// "refusal" and a hook message with the reason; the agent never sees the
// prompt, and the transcript keeps only the error block.
func TestUserPromptSubmitBlockNeverReachesTheAgent(t *testing.T) {
	dir := t.TempDir()
	gate := hook(t, dir, "gate.sh", `if jq -e '.prompt | test("password")' >/dev/null; then echo "prompts must not hold secrets" >&2; exit 2; fi`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"UserPromptSubmit", "", gate}),
		script:   script(`[{"say":"fine"},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	res := r.prompt(sess, "my password is hunter2")
	require.Equal(t, "refusal", stopReason(t, res))
	chunks := r.updates("agent_message_chunk")
	require.Len(t, chunks, 1)
	text := chunks[0]["content"].(map[string]any)["text"].(string)
	require.Contains(t, text, "[wavehooks] UserPromptSubmit hook error: prompts must not hold secrets")
	require.Equal(t, map[string]any{"wavehooks": map[string]any{"hookEvent": "UserPromptSubmit", "level": "error"}}, chunks[0]["_meta"])
	require.Empty(t, r.agentGot("session/prompt"), "the agent never saw the blocked prompt")
	require.NotContains(t, readFile(t, r.agentLog), "hunter2")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "a harmless question")))
	require.Len(t, r.agentGot("session/prompt"), 1)

	msgs := r.transcript(sess)
	raw, _ := json.Marshal(msgs)
	require.NotContains(t, string(raw), "hunter2", "the blocked prompt is erased from the transcript")
	require.Equal(t, "prompts must not hold secrets", blocksOf(msgs, "error")[0]["content"])
}

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

// A Stop hook that blocks keeps the editor's prompt open: the agent gets a
// follow-up prompt with the reason, its updates stream to the editor, and
// the editor's prompt is answered when the agent stops for good.
func TestStopBlockSendsAFollowUpPrompt(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	stop := hook(t, dir, "stop.sh", `active=$(jq -r .stop_hook_active); echo "$active" >> `+count+`
if [ "$active" = "false" ]; then echo '{"decision":"block","reason":"run the tests first"}'; fi`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"Stop", "", stop}),
		script:   script(`[{"say":"done"},{"stop":"end_turn"}]`, `[{"say":"tests pass"},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	res := r.prompt(sess, "change it")
	require.Equal(t, "end_turn", stopReason(t, res))
	require.Contains(t, res.Line, `"_meta":{"scriptagent":"kept"}`, "the answer is the agent's last one, under the editor's id")
	prompts := r.agentGot("session/prompt")
	require.Len(t, prompts, 2)
	require.Equal(t, []string{"[Hook:Stop] run the tests first"}, promptTexts(prompts[1]))
	require.Equal(t, "false\ntrue\n", readFile(t, count))
	texts := strings.Join(r.chunkTexts(), "|")
	require.Contains(t, texts, "done|")
	require.Contains(t, texts, "|tests pass")
	require.Contains(t, texts, "[wavehooks] Stop hook: the agent goes on: run the tests first")

	var users []string
	for _, m := range r.transcript(sess) {
		if m["role"] == "user" {
			users = append(users, m["blocks"].([]any)[0].(map[string]any)["content"].(string))
		}
	}
	require.Equal(t, []string{"change it", "run the tests first"}, users)
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

// Stop runs only when the turn ends with end_turn.
func TestStopOnlyOnEndTurn(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	stop := hook(t, dir, "stop.sh", `cat > `+ran)
	r := startRig(t, rigOptions{settings: settings([3]string{"Stop", "", stop}), script: script(`[{"stop":"max_tokens"}]`)})
	sess := r.handshake()
	require.Equal(t, "max_tokens", stopReason(t, r.prompt(sess, "go")))
	require.Empty(t, readFile(t, ran))
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
