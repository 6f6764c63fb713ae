package acp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wavehooksChunks are the texts of the agent_message_chunks the proxy
// wrote itself ("[wavehooks] …"), in order.
func (r *rig) wavehooksChunks() []string {
	var out []string
	for _, text := range r.chunkTexts() {
		if strings.Contains(text, "[wavehooks]") {
			out = append(out, text)
		}
	}
	return out
}

// agentTexts are the texts of the agent's own agent_message_chunks.
func (r *rig) agentTexts() []string {
	var out []string
	for _, text := range r.chunkTexts() {
		if !strings.Contains(text, "[wavehooks]") {
			out = append(out, text)
		}
	}
	return out
}

// Issue #26 item 2: whatever the client shows of a failed tool call (some,
// CodeCompanion, show none of its content), a deny at a permission request,
// a deny of a file or terminal request, a blocked prompt and a Stop block
// each put exactly one readable "[wavehooks] …" message with the hook's
// reason into the agent's reply; a hook's systemMessage warning appears once,
// not once more inside the deny's message.
func TestUserSeesWhyOnce(t *testing.T) {
	const reason = "REASON-31 policy says no"
	const warning = "WARNING-17 look at this"
	denyJSON := `jq -n '{systemMessage: "` + warning + `", hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "` + reason + `"}}'`
	exit2 := `cat >/dev/null; echo "` + reason + `" >&2; exit 2`
	perm := `{"permission":{"toolCallId":"run-1","title":"make deploy","kind":"execute","rawInput":{"command":"make deploy"}},
	  "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"run-1","status":"failed"}},{"say":"REFUSED"}]}`
	for _, c := range []struct {
		name    string
		event   string
		hook    string
		steps   string // the turn's steps before its end
		prompt  string
		want    string // the stop reason
		warning bool   // the hook also gave a systemMessage
		label   string // the message's label
	}{
		{name: "deny at a permission request", event: "PreToolUse", hook: exit2, steps: perm, want: "end_turn",
			label: "[wavehooks] PreToolUse hook"},
		{name: "deny with a warning at a permission request", event: "PreToolUse", hook: denyJSON, steps: perm, want: "end_turn",
			warning: true, label: "[wavehooks] PreToolUse hook"},
		{name: "PermissionRequest deny", event: "PermissionRequest",
			hook:  `jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "deny", message: "` + reason + `"}}}'`,
			steps: perm, want: "end_turn", label: "[wavehooks] PermissionRequest hook"},
		{name: "deny of a file write", event: "PreToolUse", hook: denyJSON, want: "end_turn", warning: true,
			steps: `{"call":{"method":"fs/write_text_file","params":{"path":"/tmp/wavehooks-never-written","content":"x"}},"ifOK":[{"say":"WROTE"}],"ifError":[{"say":"FAILED"}]}`,
			label: "[wavehooks] PreToolUse hook"},
		{name: "deny of a terminal", event: "PreToolUse", hook: exit2, want: "end_turn",
			steps: `{"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","/"]}},"ifOK":[{"say":"STARTED"}],"ifError":[{"say":"FAILED"}]}`,
			label: "[wavehooks] PreToolUse hook"},
		{name: "blocked prompt", event: "UserPromptSubmit", hook: exit2, want: "refusal", label: "[wavehooks] UserPromptSubmit hook"},
		{name: "Stop block", event: "Stop", want: "end_turn", label: "[wavehooks] Stop hook",
			hook: `f=$(dirname "$0")/blocked; [ -f "$f" ] && exit 0; touch "$f"; jq -n '{decision: "block", reason: "` + reason + `"}'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			h := hook(t, dir, "hook.sh", c.hook)
			steps := `{"stop":"end_turn"}`
			if c.steps != "" {
				steps = c.steps + `,` + steps
			}
			r := startRig(t, rigOptions{settings: settings([3]string{c.event, "", h}),
				script: `{"every": [` + steps + `]}`})
			sess := r.handshake()
			require.Equal(t, c.want, stopReason(t, r.prompt(sess, "go")))
			var why, warned []string
			for _, text := range r.wavehooksChunks() {
				if strings.Contains(text, reason) {
					why = append(why, text)
				}
				if strings.Contains(text, warning) {
					warned = append(warned, text)
				}
			}
			require.Len(t, why, 1, "one message says why; the proxy's messages: %q", r.wavehooksChunks())
			require.True(t, strings.HasPrefix(strings.TrimSpace(why[0]), c.label), "%q", why[0])
			if c.warning {
				require.Len(t, warned, 1, "the warning is shown once: %q", r.wavehooksChunks())
				require.NotContains(t, why[0], warning)
			}
		})
	}
}

// Issue #26 item 6: a tool card the proxy denied keeps the hook's reason
// when the agent sends its own failure update afterwards (claude-agent-acp's
// "User refused permission to run tool"): an update's content replaces the
// card's, so the proxy puts the reason first in it, the rest as the agent
// sent it. Updates without content, and calls the proxy did not deny (the
// user rejected them), pass unchanged.
func TestDeniedToolCardKeepsTheReason(t *testing.T) {
	const reason = "REASON-64 not on a Friday"
	// As the scripted agent sends it (keys sorted).
	const refused = `{"content":{"text":"User refused permission to run tool","type":"text"},"type":"content"}`
	dir := t.TempDir()
	deny := hook(t, dir, "deny.sh", `jq -e '.tool_input.command | test("DENYME")' >/dev/null || exit 0; echo "`+reason+`" >&2; exit 2`)
	perm := func(id, update string) string {
		return `{"permission":{"toolCallId":"` + id + `","title":"` + id + `","kind":"execute","rawInput":{"command":"` + id + `"}},
		  "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"update":` + update + `}]}`
	}
	for _, c := range []struct {
		name   string
		id     string
		update string // the agent's own update after the reject
		want   string // the content of the editor's last update for the call
	}{
		{name: "the agent's failure replaces the content", id: "DENYME-1",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"DENYME-1","status":"failed","content":[` + refused + `]}`,
			want:   `[{"content":{"text":"Denied by a PreToolUse hook: ` + reason + `","type":"text"},"type":"content"},` + refused + `]`},
		{name: "empty content", id: "DENYME-2",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"DENYME-2","status":"failed","content":[]}`,
			want:   `[{"content":{"text":"Denied by a PreToolUse hook: ` + reason + `","type":"text"},"type":"content"}]`},
		{name: "no content: the card keeps the proxy's", id: "DENYME-3",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"DENYME-3","status":"failed"}`,
			want:   ``},
		{name: "the user rejected it: unchanged", id: "ok-4",
			update: `{"sessionUpdate":"tool_call_update","toolCallId":"ok-4","status":"failed","content":[` + refused + `]}`,
			want:   `[` + refused + `]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "", deny}),
				script: script(`[` + perm(c.id, c.update) + `,{"stop":"end_turn"}]`)})
			r.answer = func(m *testMsg) any { // the user rejects what reaches the editor
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "cancel"}}
			}
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			var last *testMsg
			for _, m := range r.noted(methodSessionUpdate) {
				if strings.Contains(m.Line, `"toolCallId":"`+c.id+`"`) {
					last = m
				}
			}
			require.NotNil(t, last)
			rest := `"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"` + c.id + `"}}}`
			if c.want == "" {
				require.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{`+rest, last.Line)
				require.Contains(t, r.lastFailure(sess), reason, "the card still shows the proxy's content")
				return
			}
			require.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"content":`+c.want+`,`+rest, last.Line,
				"the reason goes first in the content; the rest is the agent's")
		})
	}
}
