package acp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writePermission is a permission step as Gemini CLI sends it for
// write_file: no earlier tool_call, no rawInput, a diff for a new file, and
// the agent's own option ids.
func writePermission(path string) string {
	return `{"permission": {"toolCallId":"write-1","status":"pending","title":"Writing to out.txt","kind":"edit",
	  "content":[{"type":"diff","path":` + string(mustRaw(path)) + `,"oldText":"","newText":"hello\n"}],
	  "locations":[{"path":` + string(mustRaw(path)) + `}]},
	 "ifAllowed": [{"update":{"sessionUpdate":"tool_call_update","toolCallId":"write-1","status":"completed"}},{"say":"written"}],
	 "ifRejected": [{"update":{"sessionUpdate":"tool_call_update","toolCallId":"write-1","status":"failed"}},{"say":"rejected"}],
	 "ifCancelled": [{"say":"cancelled"}]}`
}

// With no decision, or an "ask", the request goes to the editor, whose
// prompt is the ask; a user's reject is recorded in the transcript.
func TestPreToolUseAskGoesToTheEditor(t *testing.T) {
	dir := t.TempDir()
	ask := hook(t, dir, "ask.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check this"}}'`)
	target := filepath.Join(t.TempDir(), "out.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", ask}),
		script:   script(`[` + writePermission(target) + `,{"stop":"end_turn"}]`),
	})
	r.answer = func(m *testMsg) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "cancel"}}
	}
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "write")))
	asked := r.noted(methodRequestPermission)
	require.Len(t, asked, 1)
	require.Equal(t, `{"outcome":{"optionId":"cancel","outcome":"selected"}}`, r.agentResponses()[0])
	require.Contains(t, r.chunkTexts(), "rejected")
	tools := blocksOf(r.transcript(sess), "tool")
	require.Equal(t, "User denied tool execution", tools[0]["error"])
	require.Equal(t, "The user denied permission to run Write.", tools[0]["result"])
}

// Tool names and inputs come from _meta.claudeCode.toolName and rawInput
// (claude-agent-acp), merged from the tool_call and its updates; else from
// the kind (execute → Bash with the title as command).
func TestToolNameAndInputFromMetaAndKind(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.jsonl")
	record := hook(t, dir, "record.sh", `jq -c '{tool_name, tool_input, tool_use_id}' >> `+seen)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", record}),
		script: script(`[
		  {"update":{"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"Edit","kind":"edit","status":"pending","_meta":{"claudeCode":{"toolName":"Edit"}}}},
		  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","rawInput":{"file_path":"/p/a.ts","old_string":"1","new_string":"2"}}},
		  {"permission":{"toolCallId":"toolu_1","title":"Edit a.ts"},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"exec-1","title":"npm test","kind":"execute"},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"codex-1","title":"ls","kind":"execute","rawInput":{"command":["ls","-la","my dir"],"cwd":"/p"}},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"read-1","title":"Read x","kind":"read","locations":[{"path":"/p/x.go","line":3}]},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"edit-2","title":"Edit y","kind":"edit","content":[{"type":"diff","path":"/p/y.go","oldText":"a","newText":"b"}]},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"web-1","title":"https://example.org","kind":"fetch"},"ifAllowed":[],"ifRejected":[]},
		  {"permission":{"toolCallId":"mcp-1","title":"do a thing","_meta":{"claudeCode":{"toolName":"mcp__srv__thing"}},"rawInput":{"x":1}},"ifAllowed":[],"ifRejected":[]},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	got := strings.Split(strings.TrimSpace(readFile(t, seen)), "\n")
	require.Equal(t, []string{
		`{"tool_name":"Edit","tool_input":{"file_path":"/p/a.ts","new_string":"2","old_string":"1"},"tool_use_id":"toolu_1"}`,
		`{"tool_name":"Bash","tool_input":{"command":"npm test","title":"npm test"},"tool_use_id":"exec-1"}`,
		`{"tool_name":"Bash","tool_input":{"command":"ls -la 'my dir'","cwd":"/p","title":"ls"},"tool_use_id":"codex-1"}`,
		`{"tool_name":"Read","tool_input":{"file_path":"/p/x.go","title":"Read x"},"tool_use_id":"read-1"}`,
		`{"tool_name":"Edit","tool_input":{"file_path":"/p/y.go","new_string":"b","old_string":"a","title":"Edit y"},"tool_use_id":"edit-2"}`,
		`{"tool_name":"WebFetch","tool_input":{"title":"https://example.org","url":"https://example.org"},"tool_use_id":"web-1"}`,
		`{"tool_name":"mcp__srv__thing","tool_input":{"x":1},"tool_use_id":"mcp-1"}`,
	}, got)
}

// agentResponses returns the results of the responses the agent received, in order.
func (r *rig) agentResponses() []string {
	var out []string
	for _, m := range r.agentReceived() {
		if m["method"] == nil {
			if res, ok := m["result"]; ok {
				out = append(out, mustJSON(res))
			} else {
				out = append(out, mustJSON(map[string]any{"error": m["error"]}))
			}
		}
	}
	return out
}

func mustJSON(v any) string { return string(mustRaw(v)) }

// When PreToolUse does not decide, PermissionRequest hooks (Claude Code's
// event for a permission dialog about to be shown) do, before the editor
// is asked: deny rejects, allow allows, no decision asks the editor.
func TestPermissionRequestHooksDecideBeforeTheEditorAsks(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	pre := hook(t, dir, "pre.sh", `jq -r .hook_event_name >> `+seen)
	perm := hook(t, dir, "perm.sh", `in=$(cat); echo "$in" | jq -r .hook_event_name >> `+seen+`
	case $(echo "$in" | jq -r .tool_input.command) in
	  deny-*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"policy says no"}}}' ;;
	  allow-*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ;;
	esac`)
	step := func(id string) string {
		return `{"permission":{"toolCallId":"` + id + `","title":"run","kind":"execute","rawInput":{"command":"` + id + `"}},
		  "ifAllowed":[{"say":"` + id + ` allowed"}],"ifRejected":[{"say":"` + id + ` rejected"}]}`
	}
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", pre}, [3]string{"PermissionRequest", "Bash", perm}),
		script:   script(`[` + step("deny-1") + `,` + step("allow-1") + `,` + step("ask-1") + `,{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, []string{"deny-1 rejected", "allow-1 allowed", "ask-1 allowed"}, r.agentTexts())
	require.Equal(t, []string{"\n\n[wavehooks] PermissionRequest hook: run was not run. Denied by a PermissionRequest hook: policy says no\n\n"},
		r.wavehooksChunks(), "the deny is told once in the agent's reply")
	asked := r.noted(methodRequestPermission)
	require.Len(t, asked, 1, "only the call no hook decided reaches the editor")
	require.Contains(t, string(asked[0].Params), `"ask-1"`)
	require.Equal(t, strings.Repeat("PreToolUse\nPermissionRequest\n", 3), readFile(t, seen))
	failed := r.updates("tool_call")
	require.Len(t, failed, 1)
	require.Contains(t, mustJSON(failed[0]["content"]), "Denied by a PermissionRequest hook: policy says no")
}
