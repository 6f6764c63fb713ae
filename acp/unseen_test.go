package acp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// unseenNotices are the proxy's notices to a session that a tool ran where
// no hook could see it, as the editor got them.
func (r *rig) unseenNotices(sess string) []string {
	var out []string
	for _, u := range r.editorUpdates(sess, "agent_message_chunk") {
		if text := u.text(); strings.Contains(text, "ran without a permission request") {
			if u.Update.Meta.Wavehooks.Notice && u.Update.Meta.Wavehooks.Level == "warning" {
				out = append(out, text)
			} else {
				out = append(out, "NOT MARKED AS A NOTICE: "+text)
			}
		}
	}
	return out
}

// A tool the agent runs without asking (an auto-approve mode, codex-acp's
// full-access) is one no hook could stop: the user is told so in the
// agent's reply, once per session however many such tools run, and not for
// a tool the hooks decided at its permission request.
func TestUnseenToolIsToldInTheEditorOncePerSession(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	deny := hook(t, dir, "deny.sh", `cat >> `+ran+`; echo "no rm" >&2; exit 2`)
	unseen := `[
	  {"update":{"sessionUpdate":"tool_call","toolCallId":"x1","title":"rm -rf build","kind":"execute","status":"in_progress","rawInput":{"command":"rm -rf build"}}},
	  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"x1","status":"completed","rawOutput":"removed"}},
	  {"update":{"sessionUpdate":"tool_call","toolCallId":"x2","title":"ls","kind":"execute","status":"in_progress","rawInput":{"command":"ls"}}},
	  {"update":{"sessionUpdate":"tool_call_update","toolCallId":"x2","status":"failed","content":[{"type":"content","content":{"type":"text","text":"exit 1"}}]}},
	  {"stop":"end_turn"}]`
	asked := `[
	  {"update":{"sessionUpdate":"tool_call","toolCallId":"a1","title":"make","kind":"execute","status":"pending","rawInput":{"command":"make"}}},
	  {"permission":{"toolCallId":"a1"},"ifAllowed":[
	    {"update":{"sessionUpdate":"tool_call_update","toolCallId":"a1","status":"completed","rawOutput":"built"}}],"ifRejected":[]},
	  {"stop":"end_turn"}]`
	cases := []struct {
		name    string
		turns   []string
		notices int
	}{
		{"two unseen tools in a turn, and more in the next turn", []string{unseen, unseen}, 1},
		{"a tool the hooks decided at its permission request", []string{asked}, 0},
		{"a decided tool, then an unseen one", []string{asked, unseen}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := startRig(t, rigOptions{
				settings: settings([3]string{"PreToolUse", "Bash", deny}),
				script:   script(c.turns...),
			})
			sess := r.handshake()
			for range c.turns {
				require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			}
			got := r.unseenNotices(sess)
			require.Len(t, got, c.notices, "notices about tools no hook saw: %q", got)
			for _, n := range got {
				require.True(t, strings.HasPrefix(strings.TrimSpace(n), "[wavehooks] warning: Bash ran without a permission request"), n)
				require.Contains(t, n, "no wavehooks PreToolUse hook could decide on it")
				require.Contains(t, n, "choose a mode in which it asks")
			}
		})
	}
}

// The notice is per session: a second session on the same proxy is told
// again when a tool runs unseen there.
func TestUnseenToolIsToldInEachSession(t *testing.T) {
	dir := t.TempDir()
	deny := hook(t, dir, "deny.sh", `cat >/dev/null; exit 2`)
	turn := `[
	  {"update":{"sessionUpdate":"tool_call","toolCallId":"x1","title":"rm -rf build","kind":"execute","status":"completed","rawInput":{"command":"rm -rf build"}}},
	  {"stop":"end_turn"}]`
	r := startRig(t, rigOptions{settings: settings([3]string{"PreToolUse", "", deny}), script: script(turn, turn)})
	first := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(first, "go")))
	second, _ := r.newSession()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(second, "go")))
	require.Len(t, r.unseenNotices(first), 1)
	require.Len(t, r.unseenNotices(second), 1)
}
