package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue #26 item 3: when a PreToolUse hook asks, the user is asked once,
// and the question says why: the agent's own permission request reaches the
// editor with the hook's reason added to its tool call's title, every other
// byte as the agent sent it (key order, number spelling and escapes
// included, which a re-encoding would change).
func TestAskCarriesTheHookReasonInTheAgentsRequest(t *testing.T) {
	const reason = "ASK-REASON-8 a human should look"
	dir := t.TempDir()
	ask := hook(t, dir, "ask.sh", `jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "`+reason+`\u001b[2J"}}'`)
	for _, c := range []struct {
		name      string
		toolCall  string // as the agent sends it
		wantTitle string
	}{
		{name: "with a title", toolCall: `{"toolCallId":"run-1","title":"make deploy","kind":"execute","rawInput":{"z":1.50,"command":"make deploy","a":"\u00e9"}}`,
			wantTitle: `make deploy — wavehooks: a hook asks you to decide: ` + reason + `\u001b[2J`},
		{name: "without a title", toolCall: `{"toolCallId":"run-1","kind":"execute","rawInput":{"z":1.50,"command":"make deploy","a":"\u00e9"}}`,
			wantTitle: `wavehooks: a hook asks you to decide: ` + reason + `\u001b[2J`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "", ask}),
				script: script(`[{"permission":` + c.toolCall + `,"ifAllowed":[{"say":"RAN"}],"ifRejected":[{"say":"REFUSED"}]},{"stop":"end_turn"}]`)})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			asked := r.noted(methodRequestPermission)
			require.Len(t, asked, 1, "the user was asked once")
			require.Contains(t, r.agentTexts(), "RAN", "the user's allow reached the agent")
			var p struct {
				ToolCall map[string]json.RawMessage `json:"toolCall"`
			}
			require.NoError(t, json.Unmarshal(asked[0].Params, &p))
			var title string
			require.NoError(t, json.Unmarshal(p.ToolCall["title"], &title))
			require.Equal(t, c.wantTitle, title, "the reason is in the title, escaped to one line")
			// Everything else is the agent's bytes.
			require.Contains(t, asked[0].Line, `"rawInput":{"z":1.50,"command":"make deploy","a":"\u00e9"}`)
			require.Contains(t, asked[0].Line, `"toolCallId":"run-1"`)
			require.Empty(t, r.wavehooksChunks(), "the question is the one place the reason is shown")
		})
	}
}

// Issue #26 item 3: a file or terminal request that carries out a tool
// call already decided at its permission request (Gemini CLI asks to write,
// then reads and writes through the editor) is neither hooked nor asked
// again: one logical tool call, one PreToolUse, one question. A request
// that does something else than what was judged (another path, other
// content, another command) is judged on its own, and a file request's
// transcript entry is named as its hook was told.
func TestDecidedToolCallsFileRequestsAreNotHookedAgain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ASKME.txt")
	other := filepath.Join(t.TempDir(), "other.txt")
	perm := func(id, kind, diffPath string, rawInput string, then string) string {
		tc := `{"toolCallId":"` + id + `","title":"` + id + `","kind":"` + kind + `","status":"pending"`
		if diffPath != "" {
			tc += `,"locations":[{"path":` + mustJSON(diffPath) + `}],"content":[{"type":"diff","path":` + mustJSON(diffPath) + `,"oldText":"old\n","newText":"new\n"}]`
		}
		if rawInput != "" {
			tc += `,"rawInput":` + rawInput
		}
		return `{"permission":` + tc + `},"ifAllowed":[` + then + `,{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed"}}],"ifRejected":[{"say":"REFUSED"}]}`
	}
	call := func(method, params string) string {
		return `{"call":{"method":"` + method + `","params":` + params + `},"ifOK":[],"ifError":[{"say":"$error"}]}`
	}
	for _, c := range []struct {
		name  string
		steps string
		tools []string // the PreToolUse runs, in order
		asked int
	}{
		{name: "write_file: read and write through the editor after the permission",
			steps: perm("write-1", "edit", file, "",
				call("fs/read_text_file", `{"path":`+mustJSON(file)+`}`)+`,`+call("fs/write_text_file", `{"path":`+mustJSON(file)+`,"content":"new\n"}`)),
			tools: []string{"Edit"}, asked: 1},
		{name: "a write with other content than the diff is judged",
			steps: perm("write-1", "edit", file, "", call("fs/write_text_file", `{"path":`+mustJSON(file)+`,"content":"SOMETHING ELSE\n"}`)),
			tools: []string{"Edit", "Write"}, asked: 2},
		{name: "a read of another file is judged",
			steps: perm("write-1", "edit", file, "", call("fs/read_text_file", `{"path":`+mustJSON(other)+`}`)),
			tools: []string{"Edit", "Read"}, asked: 1},
		{name: "a terminal running the decided command",
			steps: perm("run-1", "execute", "", `{"command":"make ASKME"}`, call("terminal/create", `{"command":"make","args":["ASKME"]}`)),
			tools: []string{"Bash"}, asked: 1},
		{name: "a terminal running another command is judged",
			steps: perm("run-1", "execute", "", `{"command":"make ASKME"}`, call("terminal/create", `{"command":"rm","args":["-rf","ASKME"]}`)),
			tools: []string{"Bash", "Bash"}, asked: 2},
		{name: "a write before any permission request is judged",
			steps: call("fs/write_text_file", `{"path":`+mustJSON(other)+`,"content":"x"}`),
			tools: []string{"Write"}, asked: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(file, []byte("old\n"), 0o600))
			dir := t.TempDir()
			audit := filepath.Join(dir, "audit.jsonl")
			pre := hook(t, dir, "pre.sh", `in=$(cat); printf "%s" "$in" | jq -c '{tool: .tool_name, id: .tool_use_id}' >> `+audit+`
	case $(printf "%s" "$in" | jq -r '.tool_input | tostring') in
	  *ASKME*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "look"}}' ;;
	esac`)
			r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "", pre}),
				script: script(`[` + c.steps + `,{"stop":"end_turn"}]`)})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			var tools []string
			for _, line := range strings.Split(strings.TrimSpace(readFile(t, audit)), "\n") {
				var a struct{ Tool string }
				require.NoError(t, json.Unmarshal([]byte(line), &a))
				tools = append(tools, a.Tool)
			}
			require.Equal(t, c.tools, tools, "PreToolUse runs")
			require.Len(t, r.noted(methodRequestPermission), c.asked, "questions the user got")
			var names []string
			for _, b := range blocksOf(r.transcript(sess), "tool") {
				names = append(names, b["name"].(string))
			}
			require.Equal(t, c.tools, names, "the transcript names each tool call as its hook was told")
		})
	}
}

// A file request is left to the decision on its tool call only when the
// hooks that would judge it judged the call: a guard on Write alone never
// saw Gemini CLI's write_file of an existing file (an Edit, which the user
// allowed), so the editor write that carries it out is judged — and denied.
func TestFileRequestIsJudgedByHooksTheDecisionDidNotRun(t *testing.T) {
	dir := t.TempDir()
	guard := hook(t, dir, "guard.sh", `cat >/dev/null; echo "no writes" >&2; exit 2`)
	file := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(file, []byte("old\n"), 0o600))
	r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "Write", guard}),
		script: script(`[{"permission":{"toolCallId":"w1","title":"Edit f","kind":"edit","locations":[{"path":` + mustJSON(file) + `}],
		    "content":[{"type":"diff","path":` + mustJSON(file) + `,"oldText":"old\n","newText":"new\n"}]},
		  "ifAllowed":[{"call":{"method":"fs/write_text_file","params":{"path":` + mustJSON(file) + `,"content":"new\n"}},"ifOK":[{"say":"WROTE"}],"ifError":[{"say":"REFUSED"}]}],
		  "ifRejected":[]},{"stop":"end_turn"}]`)})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Len(t, r.noted(methodRequestPermission), 1, "no hook decided the Edit: the user was asked, and allowed it")
	require.Contains(t, r.agentTexts(), "REFUSED", "the Write guard judged the editor write")
	require.Equal(t, "old\n", readFile(t, file))
	require.Empty(t, r.noted(methodWriteTextFile))
}
