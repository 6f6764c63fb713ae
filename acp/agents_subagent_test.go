//go:build linux

package acp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"
)

// Subagents are hooked (issue #37 item 3). Claude Code's users report
// PreToolUse skipped for the tool calls a subagent makes
// (anthropics/claude-code#88441). Behind claude-agent-acp and codex-acp the
// proxy's PreToolUse hooks run through the hook bridge, a hook of the
// agent's own, which Claude Code 2.1.318 and Codex 0.16 run inside their
// subagents too: these tests hold that a subagent's tool call meets the
// hooks like any other, in every mode the adapter offers — the deny holds,
// the hook runs once, and its stdin names the subagent as the agent names
// it (agent_id, agent_type), which the bridge passes on.

// stdinDump is a hook that appends its whole stdin, one JSON line per
// run, to a file: what a user's hook is told.
type stdinDump struct{ path string }

// lines are the dumped PreToolUse stdins whose tool_input contains s.
func (d stdinDump) lines(t *testing.T, s string) []map[string]any {
	t.Helper()
	return d.event(t, "PreToolUse", s)
}

// event are the dumped stdins of one event whose tool_input contains s.
func (d stdinDump) event(t *testing.T, event, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, d.path)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "%q", line)
		if in, _ := json.Marshal(m["tool_input"]); m["hook_event_name"] == event && strings.Contains(string(in), s) {
			out = append(out, m)
		}
	}
	return out
}

// writeSubagentHooks adds to the matrix hooks (writeMatrixHooks) a
// wavehooks PreToolUse and PostToolUse hook that dumps its stdin, and a Claude Code hook
// of the project's own (.claude/settings.json) that dumps what Claude Code
// gives its hooks, on PreToolUse and SubagentStart: the input the bridge's
// hook gets too.
func writeSubagentHooks(t *testing.T, project string) (h matrixHooks, wave, claude stdinDump) {
	t.Helper()
	h = writeMatrixHooks(t, project)
	dir := t.TempDir()
	wave, claude = stdinDump{filepath.Join(dir, "wave-stdin.jsonl")}, stdinDump{filepath.Join(dir, "claude-stdin.jsonl")}
	own := hook(t, dir, "claude-dump.sh", `jq -c . >> '`+claude.path+`'`)
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(settings(
		[3]string{"PreToolUse", "", own}, [3]string{"SubagentStart", "", own})), 0o600))
	path := filepath.Join(project, ".wave", "settings.json")
	var cfg map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, path)), &cfg))
	hooks := cfg["hooks"].(map[string]any)
	dump := map[string]any{"matcher": "", "hooks": []any{map[string]any{"type": "command", "command": hook(t, dir, "wave-dump.sh", `jq -c . >> '`+wave.path+`'`)}}}
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		hooks[ev] = append(hooks[ev].([]any), dump)
	}
	require.NoError(t, os.WriteFile(path, mustRaw(cfg), 0o600))
	return h, wave, claude
}

// subagentScript makes the main model start a general-purpose subagent
// (Claude Code 2.1.318's Agent tool, in the foreground) whose prompt
// carries the marker sub, and the subagent run command with Bash, then
// end. (In auto mode Claude Code then asks the subagent, a few times, for
// a report through SubagentHandback, a tool it has in that mode only; the
// fake answers "Done." and the subagent ends without one.)
func subagentScript(fake *fakeModel, key, sub, command string) {
	fake.script(key, use("Agent", map[string]any{"description": "Clean the build", "prompt": sub + ": clean the build directory",
		"subagent_type": "general-purpose", "run_in_background": false}), say("DONE-"+key))
	fake.script(sub, use("Bash", cmd(command)), say("SUBDONE-"+sub))
}

// A subagent's tool calls behind claude-agent-acp, in every mode the
// adapter offers: Claude Code hands the subagent's Bash call to the hook
// bridge, as the main thread's.
//
//   - deny: the wavehooks deny of the subagent's rm -rf holds (the victim
//     survives, the editor is not asked), the PreToolUse hook runs once,
//     its stdin carries the agent_id and agent_type Claude Code gave its
//     own hook (the main thread's Agent call carries neither), the
//     subagent's model reads the reason, and the editor sees the
//     subagent's call (tied to its Agent call) failed with it;
//   - allow: the command runs unasked, PreToolUse and PostToolUse once;
//   - ask: the user is asked once, with the hook's reason, and it runs.
func TestClaudeAgentACPSubagentToolCallsAreHooked(t *testing.T) {
	node, entry := claudeAgentACP(t)
	fake := startFakeModel(t)
	project := t.TempDir()
	h, wave, claude := writeSubagentHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = claudeEnv(home, tmp, fake.URL())
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	initial, offered := sessionModes(t, r)
	for _, mode := range offered {
		// run starts a subagent that runs command in a new session in this
		// mode, and returns the session and the case's keys.
		run := func(t *testing.T, c, command string) (sess, k, sub string) {
			t.Helper()
			k = "CASE-sub" + strings.Map(func(r rune) rune {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					return r
				}
				return -1
			}, mode) + c
			sub = k + "child"
			subagentScript(fake, k, sub, command)
			sess, _ = r.newSession()
			if mode != initial {
				res := r.call("session/set_mode", map[string]any{"sessionId": sess, "modeId": mode})
				require.Nil(t, res.Error, "session/set_mode %s: %s", mode, res.Line)
			}
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": do it with a subagent")))
			require.NotEmpty(t, fake.saw(sub), "the main model's Agent call started the subagent, whose model was asked")
			return sess, k, sub
		}
		t.Run(mode+"/deny", func(t *testing.T) {
			target := filepath.Join(project, "victim-"+mode)
			require.NoError(t, os.MkdirAll(target, 0o755))
			asked := r.countNoted(methodRequestPermission)
			sess, k, sub := run(t, "deny", "rm -rf "+target)

			require.True(t, exists(target), "the subagent's denied rm -rf did not run")
			require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that denies leaves the editor unasked")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once for the subagent's one tool call")
			require.Empty(t, h.runs(t, "PostToolUse", target), "the denied tool did not run")

			// What Claude Code gives its hooks for the subagent's call, and
			// what the user's wavehooks hook was told.
			given := claude.lines(t, target)
			require.Len(t, given, 1, "Claude Code ran its own PreToolUse hook once for the subagent's call")
			id, _ := given[0]["agent_id"].(string)
			require.NotEmpty(t, id, "Claude Code names the subagent in its hook input: %v", given[0])
			require.Equal(t, "general-purpose", given[0]["agent_type"])
			got := wave.lines(t, target)
			require.Len(t, got, 1, "the wavehooks hook ran once")
			t.Logf("mode %s: the wavehooks hook's stdin for the subagent's call: %s", mode, mustJSON(got[0]))
			require.Equal(t, id, got[0]["agent_id"], "the hook's stdin names the subagent as Claude Code does")
			require.Equal(t, "general-purpose", got[0]["agent_type"])
			require.Equal(t, "Bash", got[0]["tool_name"])
			require.Equal(t, "toolu_"+sub+"_00", got[0]["tool_use_id"])
			main := wave.lines(t, sub+": clean the build directory")
			require.Len(t, main, 1, "the main thread's Agent call was hooked once")
			require.Equal(t, "Agent", main[0]["tool_name"])
			require.NotContains(t, main[0], "agent_id", "the main thread's call names no subagent")
			require.NotContains(t, main[0], "agent_type", "the main thread's call names no subagent")

			readReason := 0
			for _, q := range fake.saw(denyReason) {
				if caseMarker.FindString(string(q.Body)) == sub {
					readReason++
				}
			}
			require.NotZero(t, readReason, "the subagent's model read the hook's reason in the tool result")
			card := r.toolCard(sess, "toolu_"+sub+"_00")
			require.Equal(t, "failed", card["status"], "the editor saw the subagent's call failed: %v", card)
			require.Contains(t, mustJSON(card["content"]), denyReason, "the editor's card of the subagent's call shows the hook's reason")
			require.Equal(t, "toolu_"+k+"_00", card["parent"], "claude-agent-acp ties the subagent's call to its Agent call")
			require.Len(t, r.sessionMessages(sess, denyReason), 1, "the agent's reply says why, once")
		})
		t.Run(mode+"/allow", func(t *testing.T) {
			target := filepath.Join(project, "allowed-"+mode+".txt")
			asked := r.countNoted(methodRequestPermission)
			sess, _, sub := run(t, "allow", "echo OUT-"+mode+" && touch "+target)
			require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that allows leaves the editor unasked")
			pre, post := h.runs(t, "PreToolUse", target), h.runs(t, "PostToolUse", target)
			require.Len(t, pre, 1, "PreToolUse ran once")
			require.Equal(t, "general-purpose", wave.lines(t, target)[0]["agent_type"])
			if !exists(target) {
				// As in the matrix: offline, plan mode's classifier cannot
				// reach a model and Claude Code refuses what the hooks allowed.
				const why = "Auto mode could not evaluate this action"
				require.Contains(t, mustJSON(r.toolCard(sess, "toolu_"+sub+"_00")["content"]), why, "Claude Code refused it itself")
				require.Empty(t, post, "the refused command did not run")
				t.Skip("SKIPPED: in mode " + mode + " Claude Code refuses a subagent's command the hooks allow (" + why + "): the mode, not a hook, decides")
			}
			require.Len(t, post, 1, "PostToolUse ran once")
			require.Contains(t, post[0].Response, "OUT-"+mode, "PostToolUse saw the command's output")
			// The proxy runs PostToolUse from claude-agent-acp's tool_call
			// updates, which tie the call to its Agent call
			// (parentToolUseId) but do not name the subagent: the bridge's
			// PreToolUse input named it, and the Post hooks are told too.
			stdin := wave.event(t, "PostToolUse", target)
			require.Len(t, stdin, 1)
			require.NotEmpty(t, stdin[0]["agent_id"], "PostToolUse's stdin names the subagent")
			require.Equal(t, "general-purpose", stdin[0]["agent_type"])
		})
		t.Run(mode+"/ask", func(t *testing.T) {
			target := filepath.Join(project, "ASKME-"+mode+".txt")
			asked := r.countNoted(methodRequestPermission)
			run(t, "ask", "touch "+target)
			got := r.noted(methodRequestPermission)[asked:]
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			require.Len(t, got, 1, "the user was asked once")
			require.Contains(t, got[0].Line, askReason, "the question carries the hook's reason")
			require.True(t, exists(target), "the editor allowed it, and it ran")
		})
	}
	require.Equal(t, 0, r.wait())
}

// toolCard is what the editor was shown of one tool call of a session, its
// tool_call and updates merged in order: status, content, and the Agent
// call it belongs to (claude-agent-acp's _meta.claudeCode.parentToolUseId)
// as "parent".
func (r *rig) toolCard(sess, id string) map[string]any {
	card := map[string]any{}
	for _, m := range r.noted(methodSessionUpdate) {
		var p struct {
			SessionID string         `json:"sessionId"`
			Update    map[string]any `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.SessionID != sess || p.Update["toolCallId"] != id {
			continue
		}
		for k, v := range p.Update {
			card[k] = v
		}
		if meta, ok := p.Update["_meta"].(map[string]any); ok {
			if cc, ok := meta["claudeCode"].(map[string]any); ok && cc["parentToolUseId"] != nil {
				card["parent"] = cc["parentToolUseId"]
			}
		}
	}
	return card
}

// The same, with the scripted agent in claude-agent-acp's place, so it is
// checked where node is not installed: the bridge's hook, run as Claude
// Code runs it inside a subagent (its input names the subagent), gives the
// user's PreToolUse hook agent_id and agent_type as they came, and denies
// the subagent's rm -rf; a main-thread call's stdin names no subagent.
func TestBridgeTellsHooksTheSubagent(t *testing.T) {
	project := t.TempDir()
	h, wave, _ := writeSubagentHooks(t, project)
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project,
		script: `{"agentName": "@agentclientprotocol/claude-agent-acp", "turns": [[{"stop":"end_turn"}]]}`,
		opts:   func(o *Options) { o.HookExe = bin; o.TrustWorkspace = true }})
	sess := r.handshake()
	news := r.agentGot("session/new")
	require.Len(t, news, 1)
	var params struct {
		Meta struct {
			ClaudeCode struct {
				Options struct {
					Settings struct {
						Hooks struct {
							PreToolUse []struct {
								Hooks []struct {
									Command string `json:"command"`
								} `json:"hooks"`
							} `json:"PreToolUse"`
						} `json:"hooks"`
					} `json:"settings"`
				} `json:"options"`
			} `json:"claudeCode"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(mustRaw(news[0]["params"]), &params))
	pre := params.Meta.ClaudeCode.Options.Settings.Hooks.PreToolUse
	require.Len(t, pre, 1)
	require.Len(t, pre[0].Hooks, 1)
	command := pre[0].Hooks[0].Command

	run := func(toolUseID, shell string, subagent, tellsEditor bool) string {
		t.Helper()
		in := map[string]any{"session_id": sess, "cwd": project, "permission_mode": "auto", "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": shell}, "tool_use_id": toolUseID}
		if subagent {
			in["agent_id"], in["agent_type"] = "a31815b652e0a3cf7", "general-purpose"
		}
		done := runCommand(command, mustRaw(in))
		if tellsEditor {
			require.NotNil(t, r.read(), "the proxy told the editor something")
		}
		res := <-done
		require.NoError(t, res.err, "stderr: %s", res.stderr)
		var answer struct {
			Specific struct {
				Decision string `json:"permissionDecision"`
			} `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal(res.out, &answer), "%s", res.out)
		return answer.Specific.Decision
	}
	require.Equal(t, "deny", run("toolu_sub_rm", "rm -rf build", true, true), "the subagent's rm -rf is denied")
	require.Equal(t, "allow", run("toolu_sub_ok", "echo SUB-OK", true, false))
	require.Equal(t, "allow", run("toolu_main_ok", "echo MAIN-OK", false, false))

	require.Len(t, h.runs(t, "PreToolUse", "rm -rf build"), 1, "PreToolUse ran once for the subagent's call")
	for _, s := range []string{"rm -rf build", "SUB-OK"} {
		got := wave.lines(t, s)
		require.Len(t, got, 1, "the hook ran once for %s", s)
		require.Equal(t, "a31815b652e0a3cf7", got[0]["agent_id"], "the hook's stdin names the subagent: %v", got[0])
		require.Equal(t, "general-purpose", got[0]["agent_type"])
	}
	main := wave.lines(t, "MAIN-OK")
	require.Len(t, main, 1)
	require.NotContains(t, main[0], "agent_id", "a main-thread call names no subagent: %v", main[0])
	require.NotContains(t, main[0], "agent_type")
}

// codexNamespaced puts the fake Responses API behind a server that names
// the namespace of Codex's multi-agent tools (spawn_agent, wait_agent, …,
// offered as the namespace tool multi_agent_v1) in the function calls the
// fake answers with: Codex refuses a bare "spawn_agent" ("unsupported
// call"). Its URL is the base URL Codex is given.
func codexNamespaced(t *testing.T, fake *fakeModel) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/responses") {
			fake.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		fake.ServeHTTP(rec, r)
		body := rec.Body.String()
		for _, name := range []string{"spawn_agent", "wait_agent", "send_input", "close_agent", "resume_agent"} {
			body = strings.ReplaceAll(body, `"name":"`+name+`"`, `"name":"`+name+`","namespace":"multi_agent_v1"`)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// readUntil reads what the proxy sends the editor until ok holds, failing
// the test when the proxy stops writing first or the time runs out (the
// editor's side is then closed, which ends the read).
func (r *rig) readUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	stop := time.AfterFunc(2*waitFor, r.closeEditor)
	defer stop.Stop()
	for !ok() {
		require.NotNil(t, r.read(), "the proxy stopped writing before %s", what)
	}
}

// Codex has subagents too: codex-acp 0.16.0 offers its model the
// namespace tool multi_agent_v1 (spawn_agent, send_input, wait_agent,
// close_agent, resume_agent), on by default. A subagent Codex spawns runs
// its own model turns in the background, on a thread of its own, and runs
// the hooks of its parent's configuration, so the bridge's PreToolUse
// hook sees its tool calls: with the parent's session id (the ACP
// session), and agent_id (the subagent's thread id) and agent_type
// ("default"). codex-acp shows the editor nothing of a subagent (it drops
// Codex's Collab* events), so the proxy's failed tool call and message
// are all the editor sees of the denied call. In every mode: the deny
// holds, the hook runs once, and its stdin names the subagent; an allow
// lets the call run unasked (but no PostToolUse runs: KNOWN GAP); an ask
// is put to the user once, by the proxy, with the hook's reason.
func TestCodexACPSubagentToolCallsAreHooked(t *testing.T) {
	node, entry := codexACP(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("SKIPPED: codex-acp's Linux sandbox needs bubblewrap (apt-get install bubblewrap): " + err.Error())
	}
	fake := startFakeModel(t)
	base := codexNamespaced(t, fake)
	project := t.TempDir()
	h, wave, _ := writeSubagentHooks(t, project)
	home, tmp := t.TempDir(), t.TempDir()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
			"CODEX_HOME=" + codexHome(t, base), "FAKE_OPENAI_API_KEY=sk-offline", "OPENAI_API_KEY=sk-offline",
			"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "HTTPS_PROXY=" + base, "HTTP_PROXY=" + base}
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	initial, offered := sessionModes(t, r)
	for _, mode := range offered {
		// run has the main model spawn a subagent that runs command, in a
		// new session in this mode, and returns the session and the keys.
		run := func(t *testing.T, c, command string) (sess, k, sub string) {
			t.Helper()
			k = "CASE-cxsub" + strings.Map(func(r rune) rune {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					return r
				}
				return -1
			}, mode) + c
			sub = k + "child"
			fake.script(k, use("spawn_agent", map[string]any{"message": sub + ": clean the build directory"}), say("DONE-"+k))
			fake.script(sub, use("exec_command", map[string]any{"cmd": command}), say("SUBDONE-"+sub))
			sess, _ = r.newSession()
			if mode != initial {
				res := r.call("session/set_mode", map[string]any{"sessionId": sess, "modeId": mode})
				require.Nil(t, res.Error, "session/set_mode %s: %s", mode, res.Line)
			}
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": do it with a subagent")))
			return sess, k, sub
		}
		t.Run(mode+"/deny", func(t *testing.T) {
			target := filepath.Join(project, "victim-"+mode)
			require.NoError(t, os.MkdirAll(target, 0o755))
			asked := r.countNoted(methodRequestPermission)
			sess, _, sub := run(t, "deny", "rm -rf "+target)
			// The subagent runs in the background, past the parent's turn:
			// the proxy tells the editor of the deny once the hook decided.
			r.readUntil(t, "the subagent's call was denied", func() bool { return len(r.sessionMessages(sess, denyReason)) > 0 })
			require.NotEmpty(t, fake.saw(sub), "spawn_agent started the subagent, whose model was asked")
			// The bridge answered Codex after telling the editor; a command
			// it let through would have run by now.
			time.Sleep(time.Second)

			require.True(t, exists(target), "the subagent's denied rm -rf did not run")
			require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that denies leaves the editor unasked")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once for the subagent's one tool call")
			require.Empty(t, h.runs(t, "PostToolUse", target), "the denied tool did not run")
			got := wave.lines(t, target)
			require.Len(t, got, 1, "the wavehooks hook ran once")
			t.Logf("mode %s: the wavehooks hook's stdin for the subagent's call: %s", mode, mustJSON(got[0]))
			require.Equal(t, sess, got[0]["session_id"], "Codex gives a subagent's hooks its parent's session")
			id, _ := got[0]["agent_id"].(string)
			require.NotEmpty(t, id, "the hook's stdin names the subagent as Codex does: %v", got[0])
			require.NotEqual(t, sess, id, "the subagent's id is its own thread's")
			require.Equal(t, "default", got[0]["agent_type"])
			require.Equal(t, "Bash", got[0]["tool_name"])
			main := wave.lines(t, sub+": clean the build directory")
			require.Len(t, main, 1, "the main thread's spawn_agent call was hooked once")
			require.Equal(t, "spawn_agent", main[0]["tool_name"])
			require.NotContains(t, main[0], "agent_id", "the main thread's call names no subagent")
			require.Len(t, r.sessionMessages(sess, denyReason), 1, "the editor is told why, once")
			require.Contains(t, r.lastFailure(sess), denyReason, "the editor is shown the subagent's call failed, with the reason")
		})
		// refused ends a case in a mode whose sandbox refuses the write the
		// hooks or the user allowed (read-only), as it does for the main
		// thread (TestCodexACP): the subagent's model reads why.
		refused := func(t *testing.T, sub, target string) bool {
			t.Helper()
			if mode != "read-only" {
				return false
			}
			const why = "Read-only file system"
			require.Eventually(t, func() bool {
				for _, q := range fake.saw(why) {
					if caseMarker.FindString(string(q.Body)) == sub {
						return true
					}
				}
				return false
			}, 2*waitFor, tick, "the sandbox refused the subagent's write and its model read why")
			require.False(t, exists(target), "the refused write did not happen")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			t.Skip("SKIPPED: in mode " + mode + " Codex's sandbox refuses the write that was allowed (" + why + "): the mode, not a hook, decides")
			return true
		}
		t.Run(mode+"/allow", func(t *testing.T) {
			target := filepath.Join(project, "allowed-"+mode+".txt")
			asked := r.countNoted(methodRequestPermission)
			_, _, sub := run(t, "allow", "echo OUT-"+mode+" && touch "+target)
			if refused(t, sub, target) {
				return
			}
			require.Eventually(t, func() bool { return exists(target) }, 2*waitFor, tick, "the subagent's allowed command ran")
			require.Equal(t, asked, r.countNoted(methodRequestPermission), "a hook that allows leaves the editor unasked")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			require.Equal(t, "default", wave.lines(t, target)[0]["agent_type"])
			time.Sleep(time.Second) // a PostToolUse would have run by now
			post := h.runs(t, "PostToolUse", target)
			if len(post) == 1 {
				t.Fatal("KNOWN GAP #37 item 3 (codex-acp shows no subagent tool call, so PostToolUse cannot run) — this now holds: turn it into a require")
			}
			require.Empty(t, post, "PostToolUse never runs twice")
			t.Skip("KNOWN GAP #37 item 3: codex-acp 0.16.0 shows the editor nothing of a subagent's tool calls (it drops Codex's Collab* " +
				"and the subagent thread's events), and Codex's bridge hook is PreToolUse only, so no wavehooks PostToolUse runs for a subagent's call")
		})
		t.Run(mode+"/ask", func(t *testing.T) {
			target := filepath.Join(project, "ASKME-"+mode+".txt")
			asked := r.countNoted(methodRequestPermission)
			_, _, sub := run(t, "ask", "touch "+target)
			// Codex cannot ask from a hook: the proxy asks the editor, whose
			// answer (allow) the rig sends as it reads the question.
			r.readUntil(t, "the user was asked", func() bool { return r.countNoted(methodRequestPermission) > asked })
			got := r.noted(methodRequestPermission)[asked:]
			require.Len(t, got, 1, "the user was asked once")
			require.Contains(t, got[0].Line, askReason, "the question carries the hook's reason")
			if refused(t, sub, target) {
				return
			}
			require.Eventually(t, func() bool { return exists(target) }, 2*waitFor, tick, "the user allowed it, and it ran")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			require.Len(t, r.noted(methodRequestPermission)[asked:], 1, "the user was asked once")
		})
	}
	require.Equal(t, 0, r.wait())
}
