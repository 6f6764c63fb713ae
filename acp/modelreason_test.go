package acp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue #26 item 6, the model's half: behind an agent without the hook
// bridge, the model reads only the agent's own "refused" or "cancelled"
// text of a tool call the proxy denied. The proxy tells it why with the
// session's next prompt to the agent — the editor's next prompt, or the
// follow-up prompt of a Stop block — as one "[wavehooks] …" text block,
// once; a tool call the hooks allowed adds nothing.
func TestDenyReasonReachesTheModelWithTheNextPrompt(t *testing.T) {
	const reason = "REASON-58 not in this repository"
	deny := `cat >/dev/null; echo "` + reason + `" >&2; exit 2`
	allow := `cat >/dev/null; exit 0`
	perm := `{"permission":{"toolCallId":"run-1","title":"make deploy","kind":"execute","rawInput":{"command":"make deploy"}},
	  "ifAllowed":[{"say":"RAN"}],"ifRejected":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"run-1","status":"failed",
	    "content":[{"type":"content","content":{"type":"text","text":"User refused permission to run tool"}}]}},{"say":"REFUSED"}]}`
	write := `{"call":{"method":"fs/write_text_file","params":{"path":"/tmp/wavehooks-never-written","content":"x"}},"ifOK":[{"say":"WROTE"}],"ifError":[{"say":"FAILED"}]}`
	terminal := `{"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","/"]}},"ifOK":[{"say":"STARTED"}],"ifError":[{"say":"FAILED"}]}`
	stopOnce := `f=$(dirname "$0")/blocked; [ -f "$f" ] && exit 0; touch "$f"; jq -n '{decision: "block", reason: "STOP-BLOCK-12"}'`
	for _, c := range []struct {
		name  string
		event string // the deciding hook's event
		hook  string
		steps string // every turn's steps before its end
		stop  bool   // a Stop hook blocks the first end of the turn once
		// want is the note the agent's second prompt carries ("" for none).
		want string
	}{
		{name: "deny at a permission request", event: "PreToolUse", hook: deny, steps: perm,
			want: "[wavehooks] The tool call Bash (make deploy) was not run: Denied by a PreToolUse hook: " + reason},
		{name: "PermissionRequest deny", event: "PermissionRequest", steps: perm,
			hook: `jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "deny", message: "` + reason + `"}}}'`,
			want: "[wavehooks] The tool call Bash (make deploy) was not run: Denied by a PermissionRequest hook: " + reason},
		{name: "deny of a file write", event: "PreToolUse", hook: deny, steps: write,
			want: "[wavehooks] The tool call Write (Write /tmp/wavehooks-never-written) was not run: Denied by a PreToolUse hook: " + reason},
		{name: "deny of a terminal", event: "PreToolUse", hook: deny, steps: terminal,
			want: "[wavehooks] The tool call Bash (Run rm -rf /) was not run: Denied by a PreToolUse hook: " + reason},
		{name: "deny, then a Stop block: the follow-up prompt carries it", event: "PreToolUse", hook: deny, steps: perm, stop: true,
			want: "[wavehooks] The tool call Bash (make deploy) was not run: Denied by a PreToolUse hook: " + reason},
		{name: "an allowed tool call adds nothing", event: "PreToolUse", hook: allow, steps: perm},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			defs := [][3]string{{c.event, "", hook(t, dir, "hook.sh", c.hook)}}
			if c.stop {
				defs = append(defs, [3]string{"Stop", "", hook(t, dir, "stop.sh", stopOnce)})
			}
			r := startRig(t, rigOptions{settings: settings(defs...), script: `{"every": [` + c.steps + `,{"stop":"end_turn"}]}`})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "FIRST-PROMPT")))
			if !c.stop {
				require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "SECOND-PROMPT")))
			}
			prompts := r.agentGot("session/prompt")
			require.Len(t, prompts, 2, "the agent got the first prompt and then the next one")
			require.Equal(t, []string{"FIRST-PROMPT"}, promptTexts(prompts[0]), "nothing was denied before the first prompt")
			second := promptTexts(prompts[1])
			if c.stop {
				require.Contains(t, second, "[Hook:Stop] STOP-BLOCK-12", "the second prompt is the Stop block's follow-up")
			} else {
				require.Equal(t, "SECOND-PROMPT", second[len(second)-1], "the editor's prompt comes last, unchanged")
			}
			var notes []string
			for _, text := range second {
				if strings.HasPrefix(text, "[wavehooks]") {
					notes = append(notes, text)
				}
			}
			if c.want == "" {
				require.Empty(t, notes, "no tool call was denied")
				return
			}
			require.Equal(t, []string{c.want}, notes, "the model reads why, once, before the prompt")
		})
	}
}
