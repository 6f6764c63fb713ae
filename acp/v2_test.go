//go:build linux

package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue #26 item 8: ACP v2's draft drops fs/* and terminal/* from the
// client, so session/request_permission is the one point where the proxy
// can decide. Here the editor offers neither and the scripted agent carries
// out its tools itself (ownOperations), as such an agent must; every
// behaviour of the real-agent matrix holds: a deny stops the tool and says
// why once, an allow lets it through and PostToolUse sees its output, an
// ask reaches the user once with the reason, a write is hooked once under
// its name, a blocked prompt never reaches the agent, a Stop block continues
// the turn, and every hook runs once per logical tool call.
func TestPermissionOnlyAgent(t *testing.T) {
	project := t.TempDir()
	h := writeMatrixHooks(t, project)
	path := func(name string) string { return filepath.Join(project, name) }
	shell := func(id, command string) string {
		return `[{"permission":{"toolCallId":"` + id + `","title":` + mustJSON(command) + `,"kind":"execute","rawInput":{"command":` + mustJSON(command) + `}},
		  "ifAllowed":[{"call":{"method":"terminal/create","params":{"command":"sh","args":["-c",` + mustJSON(command) + `]}},
		    "ifOK":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed","rawOutput":"$output"}}],
		    "ifError":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"failed"}}]}],
		  "ifRejected":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"failed",
		    "content":[{"type":"content","content":{"type":"text","text":"User refused permission to run tool"}}]}}]},
		 {"say":"DONE-` + id + `"},{"stop":"end_turn"}]`
	}
	write := func(id, file, content string) string {
		return `[{"permission":{"toolCallId":"` + id + `","title":"Write ` + filepath.Base(file) + `","kind":"edit","locations":[{"path":` + mustJSON(file) + `}],
		    "content":[{"type":"diff","path":` + mustJSON(file) + `,"oldText":"","newText":` + mustJSON(content) + `}]},
		  "ifAllowed":[{"call":{"method":"fs/write_text_file","params":{"path":` + mustJSON(file) + `,"content":` + mustJSON(content) + `}},
		    "ifOK":[{"update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed"}}]}],
		  "ifRejected":[]},
		 {"say":"DONE-` + id + `"},{"stop":"end_turn"}]`
	}
	denied, allowed, asked, written := path("build-dir"), path("allowed.txt"), path("ASKME.txt"), path("written.txt")
	require.NoError(t, os.MkdirAll(denied, 0o755))
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) { o.TrustWorkspace = true },
		script: `{"ownOperations": true, "turns": [` + strings.Join([]string{
			shell("deny", "rm -rf "+denied), `[{"say":"NOTED"},{"stop":"end_turn"}]`,
			shell("allow", "echo OUT-allow && touch "+allowed),
			shell("ask", "touch "+asked),
			write("write", written, "written\n"),
			`[{"say":"FIRST"},{"stop":"end_turn"}]`, `[{"say":"SECOND"},{"stop":"end_turn"}]`,
		}, ",") + `]}`})
	r.initialize(map[string]any{}) // no fs, no terminal: ACP v2
	newSession := func() string { s, _ := r.newSession(); return s }

	t.Run("deny stops rm -rf and says why once", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean")))
		require.True(t, exists(denied), "the denied command did not run")
		require.Len(t, h.runs(t, "PreToolUse", denied), 1)
		require.Empty(t, h.runs(t, "PostToolUse", denied))
		require.Len(t, r.sessionMessages(sess, denyReason), 1)
		require.Contains(t, r.lastFailure(sess), denyReason, "the tool card keeps the reason")
		// The agent's model read only "User refused permission to run
		// tool"; the session's next prompt tells it why (item 6).
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "why not?")))
		prompts := r.agentGot("session/prompt")
		texts := promptTexts(prompts[len(prompts)-1])
		require.Equal(t, "why not?", texts[len(texts)-1])
		require.Contains(t, strings.Join(texts[:len(texts)-1], "\n"), denyReason, "the model reads the hook's reason before the prompt")
	})
	t.Run("allow lets it through and PostToolUse sees the output", func(t *testing.T) {
		require.Equal(t, "end_turn", stopReason(t, r.prompt(newSession(), "make it")))
		require.True(t, exists(allowed))
		require.Len(t, h.runs(t, "PreToolUse", allowed), 1)
		post := h.runs(t, "PostToolUse", allowed)
		require.Len(t, post, 1)
		require.Contains(t, post[0].Response, "OUT-allow")
	})
	t.Run("ask reaches the user once, with the reason", func(t *testing.T) {
		before := r.countNoted(methodRequestPermission)
		require.Equal(t, "end_turn", stopReason(t, r.prompt(newSession(), "make it")))
		got := r.noted(methodRequestPermission)[before:]
		require.Len(t, got, 1)
		require.Contains(t, got[0].Line, askReason)
		require.True(t, exists(asked), "the user allowed it")
		require.Len(t, h.runs(t, "PreToolUse", asked), 1)
	})
	t.Run("a write is hooked once as Write", func(t *testing.T) {
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "write it")))
		require.Equal(t, "written\n", readFile(t, written))
		pre := h.runs(t, "PreToolUse", written)
		require.Len(t, pre, 1)
		require.Equal(t, "Write", pre[0].Tool)
		require.Len(t, h.runs(t, "PostToolUse", written), 1)
		var names []string
		for _, b := range blocksOf(r.transcript(sess), "tool") {
			names = append(names, b["name"].(string))
		}
		require.Equal(t, []string{"Write"}, names)
	})
	t.Run("a blocked prompt never reaches the agent", func(t *testing.T) {
		require.Equal(t, "refusal", stopReason(t, r.prompt(newSession(), "the key is "+secret)))
		for _, m := range r.agentGot("session/prompt") {
			require.NotContains(t, strings.Join(promptTexts(m), " "), secret)
		}
	})
	t.Run("a Stop block continues the turn", func(t *testing.T) {
		require.NoError(t, os.WriteFile(h.stopFlag, nil, 0o600))
		sess := newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "answer twice")))
		require.Contains(t, r.agentTexts(), "SECOND")
		require.Equal(t, 2, h.eventRuns(t, "Stop", sess))
		require.Len(t, r.sessionMessages(sess, stopReason77), 1)
	})
	for _, method := range []string{methodReadTextFile, methodWriteTextFile, methodTerminalCreate} {
		require.Empty(t, r.noted(method), "the editor got no %s", method)
	}
}
