package acp

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// PostToolUse runs when a tool call completes, with its rawOutput as
// tool_response; its context and block reason reach the model with the next
// prompt. PostToolUseFailure runs when one fails.
func TestPostToolUseAndFailure(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	post := hook(t, dir, "post.sh", `jq -c '{hook_event_name, tool_name, tool_response}' >> `+seen+`; echo "lint found 2 problems" >&2; exit 2`)
	fail := hook(t, dir, "fail.sh", `jq -c '{hook_event_name, tool_name, error}' >> `+seen+`
	jq -n '{hookSpecificOutput: {hookEventName: "PostToolUseFailure", additionalContext: "retry with sudo? no."}}'`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PostToolUse", "Edit", post}, [3]string{"PostToolUseFailure", "", fail}),
		script: script(`[
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"e1","title":"Edit a.go","kind":"edit","status":"pending","_meta":{"claudeCode":{"toolName":"Edit"}},"rawInput":{"file_path":"/p/a.go","old_string":"a","new_string":"b"}}},
		  {"permission":{"toolCallId":"e1"},"ifAllowed":[
		    {"update":{"sessionUpdate":"tool_call_update","toolCallId":"e1","status":"completed","rawOutput":{"success":true,"output":"edited"}}}],"ifRejected":[]},
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"x1","title":"make","kind":"execute","status":"in_progress","rawInput":{"command":"make"}}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"x1","status":"failed","content":[{"type":"content","content":{"type":"text","text":"exit 2: missing rule"}}]}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"x1","status":"failed"}},
		  {"stop":"end_turn"}]`, `[{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, `{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_response":{"output":"edited","success":true}}
{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"exit 2: missing rule"}
`, readFile(t, seen), "each finished call runs its hooks once")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "next")))
	prompts := r.agentGot("session/prompt")
	require.Equal(t, []string{"[Hook:PostToolUse] lint found 2 problems", "[Hook:PostToolUseFailure] retry with sudo? no.", "next"},
		promptTexts(prompts[1]))

	tools := blocksOf(r.transcript(sess), "tool")
	require.Len(t, tools, 2)
	require.Equal(t, "edited", tools[0]["result"])
	require.Equal(t, true, tools[0]["success"])
	require.Equal(t, "exit 2: missing rule", tools[1]["result"])
	require.Equal(t, false, tools[1]["success"])
}

// A tool the agent ran without asking is not claimed blocked: the hooks
// never ran for it, and the transcript and the run history say it ran
// without a permission request.
func TestToolWithoutPermissionIsRecordedAsUnchecked(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	deny := hook(t, dir, "deny.sh", `cat > `+ran+`; echo "no reads" >&2; exit 2`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Read", deny}),
		script: script(`[
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"r1","title":"Reading x","kind":"read","status":"in_progress","locations":[{"path":"/p/x"}]}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"r1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"file body"}}]}},
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"g1","title":"grep","kind":"search","status":"completed"}},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Empty(t, readFile(t, ran), "no PreToolUse hook ran: there was no point to stop the read")
	msgs := r.transcript(sess)
	warns := blocksOf(msgs, "warn")
	require.Len(t, warns, 1, "only the tool a PreToolUse hook matches is noted")
	require.Equal(t, "Read ran without a permission request: the agent did not ask, so its PreToolUse hooks could not decide on it", warns[0]["content"])
	tools := blocksOf(msgs, "tool")
	require.Equal(t, "Read", tools[0]["name"])
	require.Equal(t, "file body", tools[0]["result"])
	require.Nil(t, tools[0]["error"], "never claimed blocked")

	runs := r.call(methodHookRuns, map[string]any{"sessionId": sess, "event": "PreToolUse"})
	var res struct {
		Runs []struct {
			Event      string `json:"event"`
			MatchValue string `json:"matchValue"`
			Outcome    string `json:"outcome"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(runs.Result, &res))
	require.Len(t, res.Runs, 1)
	require.Equal(t, "Read", res.Runs[0].MatchValue)
	require.Equal(t, "not enforced: ran without a permission request", res.Runs[0].Outcome)
	require.Empty(t, r.agentGot(methodHookRuns), "the proxy's own method never reaches the agent")
}

// A hook's continue:false in the middle of a turn cancels the agent's turn,
// and no Stop hook runs for it.
func TestContinueFalseStopsTheTurn(t *testing.T) {
	dir := t.TempDir()
	stopRan := filepath.Join(dir, "stop")
	post := hook(t, dir, "post.sh", `cat >/dev/null; echo '{"continue": false, "stopReason": "build is red"}'`)
	stop := hook(t, dir, "stop.sh", `cat > `+stopRan)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PostToolUse", "", post}, [3]string{"Stop", "", stop}),
		script: script(`[
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"b1","title":"build","kind":"execute","status":"completed"}},
		  {"waitCancel":true},{"say":"stopping"},{"stop":"cancelled"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "cancelled", stopReason(t, r.prompt(sess, "go")))
	require.Len(t, r.agentGot(methodSessionCancel), 1)
	require.Contains(t, strings.Join(r.chunkTexts(), ""), "[wavehooks] PostToolUse hook error: stopped by hook: build is red")
	require.Empty(t, readFile(t, stopRan))
}

// A hook's systemMessage reaches the user as a chunk marked as from a hook.
func TestHookMessagesAreMarked(t *testing.T) {
	dir := t.TempDir()
	warn := hook(t, dir, "warn.sh", `cat >/dev/null; echo '{"systemMessage": "disk almost full"}'`)
	r := startRig(t, rigOptions{settings: settings([3]string{"UserPromptSubmit", "", warn}), script: script(`[{"say":"hi"},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	chunks := r.updates("agent_message_chunk")
	require.Len(t, chunks, 2)
	require.Equal(t, "\n\n[wavehooks] UserPromptSubmit hook warning: disk almost full\n\n", chunks[0]["content"].(map[string]any)["text"])
	require.Equal(t, map[string]any{"wavehooks": map[string]any{"hookEvent": "UserPromptSubmit", "level": "warning"}}, chunks[0]["_meta"])
	require.Nil(t, chunks[1]["_meta"])
	texts := blocksOf(r.transcript(sess), "text")
	require.Equal(t, "hi", texts[len(texts)-1]["content"], "hook messages are not recorded as the agent's words")
}

// claude-agent-acp runs Claude Code's own hooks: with it, imported Claude
// Code hooks do not run here too; with another agent they do.
func TestImportedClaudeHooksDoNotRunTwiceWithClaudeAgent(t *testing.T) {
	for _, tc := range []struct {
		agent string
		runs  bool
	}{
		{"@agentclientprotocol/claude-agent-acp", false},
		{"@zed-industries/claude-code-acp", false},
		{"gemini-cli", true},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			dir := t.TempDir()
			ran := filepath.Join(dir, "ran")
			claudeHook := hook(t, dir, "claude.sh", `cat >/dev/null; echo claude >> `+ran)
			waveHook := hook(t, dir, "wave.sh", `cat >/dev/null; echo wave >> `+ran)
			r := startRig(t, rigOptions{
				settings: `{"importClaudeHooks": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "` + waveHook + `"}]}]}}`,
				claude:   `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "` + claudeHook + `"}]}]}}`,
				script:   `{"agentName": "` + tc.agent + `", "turns": [[{"stop":"end_turn"}]]}`,
			})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			got := strings.Fields(readFile(t, ran)) // the hooks run in parallel
			sort.Strings(got)
			if tc.runs {
				require.Equal(t, []string{"claude", "wave"}, got)
			} else {
				require.Equal(t, []string{"wave"}, got)
			}
		})
	}
}
