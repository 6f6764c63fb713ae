package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// SessionStart runs on session/new (source startup) before the editor gets
// the answer; its context reaches the model as a text block before the
// next prompt.
func TestSessionStartContextGoesWithTheNextPrompt(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	start := hook(t, dir, "start.sh", `cat > `+seen+`; echo "Project rules: use tabs."`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionStart", "startup", start}),
		script:   script(`[{"say":"ok"},{"stop":"end_turn"}]`, `[{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	in := readFile(t, seen)
	require.NotEmpty(t, in, "SessionStart ran before session/new was answered")
	var stdin map[string]any
	require.NoError(t, json.Unmarshal([]byte(in), &stdin))
	require.Equal(t, "startup", stdin["source"])
	require.Equal(t, sess, stdin["session_id"])
	require.Equal(t, r.project, stdin["cwd"])

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "first")))
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "second")))
	prompts := r.agentGot("session/prompt")
	require.Len(t, prompts, 2)
	require.Equal(t, []string{"[Hook:SessionStart] Project rules: use tabs.", "first"}, promptTexts(prompts[0]))
	require.Equal(t, []string{"second"}, promptTexts(prompts[1]), "the context goes once, with the next prompt")

	hooks := blocksOf(r.transcript(sess), "hook")
	require.Len(t, hooks, 1)
	require.Equal(t, "SessionStart", hooks[0]["hookEvent"])
}

// session/load and session/resume run SessionStart with source resume; the
// history the agent replays during session/load is passed on, not recorded again.
func TestSessionLoadAndResumeRunSessionStartResume(t *testing.T) {
	dir := t.TempDir()
	sources := filepath.Join(dir, "sources")
	start := hook(t, dir, "start.sh", `jq -r .source >> `+sources)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionStart", "", start}),
		script:   `{"replay": ["old question", "old answer"], "turns": [[{"say":"new"},{"stop":"end_turn"}]]}`,
	})
	r.handshake()
	load := r.call("session/load", map[string]any{"sessionId": "earlier-1", "cwd": r.project, "mcpServers": []any{}})
	require.Nil(t, load.Error)
	require.Equal(t, []string{"old question", "old answer"}, r.chunkTextsOfAll())
	resume := r.call("session/resume", map[string]any{"sessionId": "earlier-2", "cwd": r.project})
	require.Nil(t, resume.Error)
	require.Equal(t, "startup\nresume\nresume\n", readFile(t, sources))

	require.Equal(t, "end_turn", stopReason(t, r.prompt("earlier-1", "next")))
	msgs := r.transcript("earlier-1")
	var texts []string
	for _, b := range blocksOf(msgs, "text") {
		texts = append(texts, b["content"].(string))
	}
	require.Equal(t, []string{"next", "new"}, texts, "the replayed history is not recorded twice")
}

// chunkTextsOfAll returns the text of every user and agent chunk the editor got.
func (r *rig) chunkTextsOfAll() []string {
	var out []string
	for _, m := range r.noted(methodSessionUpdate) {
		var p struct {
			Update struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		require.NoError(r.t, json.Unmarshal(m.Params, &p))
		if p.Update.Content.Text != "" {
			out = append(out, p.Update.Content.Text)
		}
	}
	return out
}

// SessionEnd runs on session/close with reason "other".
func TestSessionEndOnClose(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	end := hook(t, dir, "end.sh", `jq -r '.reason + " " + .session_id' >> `+ended)
	r := startRig(t, rigOptions{settings: settings([3]string{"SessionEnd", "", end})})
	sess := r.handshake()
	res := r.call("session/close", map[string]any{"sessionId": sess})
	require.Nil(t, res.Error)
	require.Equal(t, "other "+sess+"\n", readFile(t, ended))
	require.Equal(t, 0, r.wait())
	require.Equal(t, "other "+sess+"\n", readFile(t, ended), "a closed session does not end twice")
}

// When the editor goes away, the agent is ended (SIGTERM, then SIGKILL) and
// SessionEnd runs with reason prompt_input_exit; the proxy exits 0.
func TestEditorDisconnectEndsTheAgentAndRunsSessionEnd(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionEnd", "", end}),
		script:   script(`[{"say":"working"},{"hang":true}]`),
	})
	sess := r.handshake()
	r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
	for {
		if m := r.read(); m != nil && strings.Contains(m.Line, "working") {
			break
		}
	}
	require.Equal(t, 0, r.wait())
	require.Equal(t, "prompt_input_exit\n", readFile(t, ended))
	msgs := r.transcript(sess)
	require.Equal(t, "working", blocksOf(msgs, "text")[1]["content"], "what the agent said before the end is recorded")
}

// An agent that ignores SIGTERM gets SIGKILL after the grace period, and so
// do the processes it started.
func TestAgentIgnoringSIGTERMIsKilled(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	agent := hook(t, dir, "agent.sh", `trap '' TERM; sleep 600 & echo "$$ $!" > `+pids+`; echo ready >&2; while :; do sleep 1; done`)
	r := startRig(t, rigOptions{opts: func(o *Options) {
		o.Agent = []string{agent}
		o.KillGrace = 200 * time.Millisecond
	}})
	require.Eventually(t, func() bool { return strings.Contains(r.stderr.String(), "ready") }, waitFor, tick)
	require.Equal(t, 0, r.wait())
	for _, f := range strings.Fields(readFile(t, pids)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return !running(pid) }, waitFor, tick, "process %d still runs", pid)
	}
}

// When the agent dies mid-turn, the editor's pending request gets an error,
// the transcript holds everything up to it, SessionEnd runs, and the proxy
// exits with the agent's status.
func TestAgentDyingMidTurn(t *testing.T) {
	dir := t.TempDir()
	ended := filepath.Join(dir, "ended")
	end := hook(t, dir, "end.sh", `jq -r .reason >> `+ended)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"SessionEnd", "", end}),
		script: script(`[{"say":"half of "},{"say":"an answer"},` +
			`{"update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Reading a.txt","kind":"read","status":"in_progress"}},` +
			`{"crash":3}]`),
	})
	sess := r.handshake()
	res := r.prompt(sess, "go")
	require.NotNil(t, res.Error, "the editor's prompt is answered with an error: %s", res.Line)
	require.Contains(t, res.Error.Message, "the agent exited (status 3)")
	require.Equal(t, 3, r.exitStatus())
	require.Equal(t, "other\n", readFile(t, ended))
	msgs := r.transcript(sess)
	require.Equal(t, "half of an answer", blocksOf(msgs, "text")[1]["content"])
	require.Equal(t, "t1", blocksOf(msgs, "tool")[0]["id"])
}

// A project's own hooks run only when trusted (--trust-workspace here); until
// then the user is told, in a hook message, that they did not run.
func TestWorkspaceHooksNeedTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trusted], func(t *testing.T) {
			dir, project := t.TempDir(), t.TempDir()
			ran := filepath.Join(dir, "ran")
			h := hook(t, dir, "ups.sh", `cat > `+ran)
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"),
				[]byte(settings([3]string{"UserPromptSubmit", "", h})), 0o600))
			r := startRig(t, rigOptions{project: project, fixed: true, script: script(`[{"stop":"end_turn"}]`),
				opts: func(o *Options) { o.TrustWorkspace = trusted }})
			sess := r.handshake()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
			if trusted {
				require.NotEmpty(t, readFile(t, ran))
				require.Empty(t, r.chunkTexts())
				return
			}
			require.Empty(t, readFile(t, ran))
			require.Equal(t, []string{
				"\n\n[wavehooks] warning: " + untrustedNotice(project) + "\n\n",
				"\n\n[wavehooks] UserPromptSubmit hook warning: 1 UserPromptSubmit hook(s) of this workspace did not run: the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor\n\n"},
				r.chunkTexts())
		})
	}
}

// The agent's requests while a session/load is in flight are guarded like
// any other: a deny-everything PreToolUse hook refuses a terminal and a
// permission request the agent makes during the load (before, the proxy
// skipped hooks for a session being loaded and passed both to the editor).
// The replayed history is still not recorded, and SessionStart runs when
// the load is answered.
func TestHooksRunWhileASessionLoads(t *testing.T) {
	dir := t.TempDir()
	ran, sources := filepath.Join(dir, "ran"), filepath.Join(dir, "sources")
	guard := hook(t, dir, "guard.sh", `jq -c '[.tool_name, .session_id]' >> `+ran+`
jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "not during a load"}}'`)
	start := hook(t, dir, "start.sh", `jq -r .source >> `+sources)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", guard}, [3]string{"SessionStart", "", start}),
		script: `{"replay": ["old question", "old answer"], "load": [
		  {"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","/"]}},"ifOK":[{"say":"terminal ran"}],"ifError":[{"say":"terminal refused"}]},
		  {"permission":{"toolCallId":"l1","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},
		   "ifAllowed":[{"say":"permission allowed"}],"ifRejected":[{"say":"permission rejected"}],"ifCancelled":[{"say":"permission cancelled"}]}],
		 "turns": [[{"say":"new"},{"stop":"end_turn"}]]}`,
	})
	r.handshake()
	load := r.call("session/load", map[string]any{"sessionId": "earlier-1", "cwd": r.project, "mcpServers": []any{}})
	require.Nil(t, load.Error, "%s", load.Line)
	require.Equal(t, `["Bash","earlier-1"]`+"\n"+`["Bash","earlier-1"]`+"\n", readFile(t, ran), "the guard ran for both, during the load")
	require.Empty(t, r.noted(methodTerminalCreate))
	require.Empty(t, r.noted(methodRequestPermission))
	texts := r.chunkTexts()
	require.Contains(t, texts, "terminal refused")
	require.Contains(t, texts, "permission rejected")
	require.Equal(t, "startup\nresume\n", readFile(t, sources))

	require.Equal(t, "end_turn", stopReason(t, r.prompt("earlier-1", "next")))
	var said []string
	for _, b := range blocksOf(r.transcript("earlier-1"), "text") {
		said = append(said, b["content"].(string))
	}
	require.Equal(t, []string{"next", "new"}, said, "the replayed history is not recorded")
}
