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
