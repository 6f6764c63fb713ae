package lsp_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/lsp"
)

func TestLifecycle(t *testing.T) {
	t.Run("requests before initialize are rejected", func(t *testing.T) {
		e := startEditor(t, editorOpts{noInit: true})
		err := e.call("wave/listPermissions", nil, nil)
		require.Equal(t, jsonrpc2.Code(-32002), rpcCode(t, err))
	})
	t.Run("shutdown then exit ends with 0", func(t *testing.T) {
		e := startEditor(t, editorOpts{})
		require.Equal(t, 0, e.shutdown())
	})
	t.Run("exit without shutdown ends with 1", func(t *testing.T) {
		e := startEditor(t, editorOpts{})
		require.NoError(t, e.notify("exit", nil))
		require.Equal(t, 1, <-e.exitCode)
		e.exitCode <- 1
	})
	t.Run("requests after shutdown are rejected", func(t *testing.T) {
		e := startEditor(t, editorOpts{})
		require.NoError(t, e.call("shutdown", nil, nil))
		require.Equal(t, jsonrpc2.InvalidRequest, rpcCode(t, e.call("wave/listPermissions", nil, nil)))
	})
	t.Run("second initialize is rejected", func(t *testing.T) {
		e := startEditor(t, editorOpts{})
		require.Equal(t, jsonrpc2.InvalidRequest, rpcCode(t, e.call("initialize", map[string]any{}, nil)))
	})
	t.Run("of initialize requests sent at once, one runs", func(t *testing.T) {
		e := startEditor(t, editorOpts{noInit: true})
		const n = 16
		errs := make(chan error, n)
		for range n {
			go func() { errs <- e.call("initialize", map[string]any{"rootUri": string(uri.File(e.root))}, nil) }()
		}
		ok := 0
		for range n {
			if err := <-errs; err == nil {
				ok++
			} else {
				require.Equal(t, jsonrpc2.InvalidRequest, rpcCode(t, err))
				require.ErrorContains(t, err, "initialize was already called")
			}
		}
		require.Equal(t, 1, ok)
	})
	t.Run("a failed initialize can be sent again", func(t *testing.T) {
		e := startEditor(t, editorOpts{noInit: true})
		require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, e.call("initialize", map[string]any{"rootUri": "file:///no/such/dir"}, nil)))
		require.NoError(t, e.call("initialize", map[string]any{"rootUri": string(uri.File(e.root))}, nil))
	})
	t.Run("a root that is not a directory is rejected", func(t *testing.T) {
		e := startEditor(t, editorOpts{noInit: true})
		err := e.call("initialize", map[string]any{"rootUri": "file:///no/such/dir"}, nil)
		require.Equal(t, jsonrpc2.InvalidParams, rpcCode(t, err))
		require.ErrorContains(t, err, "rootUri")
	})
}

func TestBadRequests(t *testing.T) {
	e := startEditor(t, editorOpts{})
	sid, _ := e.startSession()
	cases := []struct {
		name   string
		method string
		params any
		code   jsonrpc2.Code
		says   string
	}{
		{"unknown method", "wave/noSuchThing", nil, jsonrpc2.MethodNotFound, `"wave/noSuchThing"`},
		{"missing session id", "wave/getSession", map[string]any{}, jsonrpc2.InvalidParams, "sessionId: is required"},
		{"path-like session id", "wave/getSession", map[string]any{"sessionId": "../../etc/passwd"}, jsonrpc2.InvalidParams, "sessionId"},
		{"unknown session", "wave/getSession", map[string]any{"sessionId": "nope1234"}, jsonrpc2.InvalidParams, "no session"},
		{"wrong type", "wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": 42}, jsonrpc2.InvalidParams, "prompt"},
		{"params not an object", "wave/getSession", []int{1}, jsonrpc2.InvalidParams, "invalid params"},
		{"tool input not an object", "wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t", "toolName": "Bash", "toolInput": "rm"},
			jsonrpc2.InvalidParams, "toolInput"},
		{"missing tool name", "wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t"}, jsonrpc2.InvalidParams, "toolName"},
		{"bad decision", "wave/resolvePermission", map[string]any{"id": "x", "decision": "maybe"}, jsonrpc2.InvalidParams, "decision"},
		{"bad source", "wave/sessionStart", map[string]any{"source": "cron"}, jsonrpc2.InvalidParams, "source"},
		{"bad block type", "wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{map[string]any{"type": "error", "content": "x"}}},
			jsonrpc2.InvalidParams, "blocks[0].type"},
		{"tool id twice in a message", "wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{
			map[string]any{"type": "tool", "id": "toolu_1", "name": "Bash"}, map[string]any{"type": "tool", "id": "toolu_1", "name": "Bash"}}},
			jsonrpc2.InvalidParams, `invalid params: blocks[1].id: tool id "toolu_1" appears twice`},
		// wave/runHooks names the hook's stdin fields as the client sent
		// them, wrapped once.
		{"runHooks tool call without an id", "wave/runHooks", map[string]any{"sessionId": sid, "event": "PreToolUse", "input": map[string]any{"tool_name": "Bash"}},
			jsonrpc2.InvalidParams, "invalid params: input.tool_use_id: is required"},
		{"runHooks relative new_cwd", "wave/runHooks", map[string]any{"sessionId": sid, "event": "CwdChanged", "input": map[string]any{"new_cwd": "src"}},
			jsonrpc2.InvalidParams, `invalid params: input.new_cwd: must be an absolute path, not "src"`},
		{"batch of an unknown call", "wave/postToolBatch", map[string]any{"sessionId": sid, "toolUseIds": []string{"toolu_none"}},
			jsonrpc2.InvalidParams, `invalid params: toolUseIds: the session has no tool call "toolu_none"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := e.call(c.method, c.params, nil)
			require.Equal(t, c.code, rpcCode(t, err))
			require.ErrorContains(t, err, c.says)
		})
	}
	// Unknown notifications are ignored and the server still answers.
	require.NoError(t, e.notify("wave/unknownNotification", map[string]any{}))
	e.mustCall("wave/listPermissions", nil)
}

func TestSessionFlow(t *testing.T) {
	settings := hookSettings(map[string][]string{
		"SessionStart":     {`jq -r .source >/dev/null; echo "branch: main"`},
		"UserPromptSubmit": {"$SCRIPTS/prompt-context.sh"},
		"PreToolUse":       {"$SCRIPTS/deny-rm.sh"},
		"PostToolUse":      {"$SCRIPTS/post-context.sh"},
		"Stop":             {"$SCRIPTS/stop-once.sh"},
		"SessionEnd":       {`cat >/dev/null; echo "bye" >&2; exit 1`},
	})
	e := startEditor(t, editorOpts{settings: settings})

	start := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	sid, path := start["sessionId"].(string), start["transcriptPath"].(string)
	require.Equal(t, true, start["continue"])
	require.Contains(t, fmt.Sprint(start["blocks"]), "branch: main")
	require.FileExists(t, path)

	up := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "clean the build dir"})
	require.Equal(t, false, up["blocked"])
	require.Contains(t, fmt.Sprint(up["additionalContext"]), "Project conventions")

	e.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{
		map[string]any{"type": "text", "content": "I will delete it."},
		map[string]any{"type": "tool", "id": "t1", "name": "Bash", "input": map[string]any{"command": "rm -rf build"}}}})
	pre := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}})
	require.Equal(t, "deny", pre["permission"])
	require.Contains(t, pre["reason"], "recursive delete is blocked")
	require.Equal(t, false, pre["asked"])

	ok := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}})
	require.Equal(t, "allow", ok["permission"])
	require.JSONEq(t, `{"command":"ls"}`, mustJSON(ok["toolInput"]))

	post := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}, "toolResponse": map[string]any{"success": true, "content": "a b"}})
	require.Contains(t, fmt.Sprint(post["additionalContext"]), "Reminder after Bash")

	stop1 := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.Equal(t, true, stop1["blocked"])
	require.Contains(t, stop1["reason"], "summarise what you changed")
	stop2 := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.Equal(t, false, stop2["blocked"], "stop_hook_active lets the second stop through")

	end := e.mustCall("wave/sessionEnd", map[string]any{"sessionId": sid, "reason": "logout"})
	require.Contains(t, fmt.Sprint(end["blocks"]), "bye")
	e.waitNotification("window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "bye") })

	got := e.mustCall("wave/getSession", map[string]any{"sessionId": sid})
	require.Equal(t, path, got["transcriptPath"])
	// The file on disk holds what getSession returns.
	var file struct {
		ID    string `json:"id"`
		State struct {
			Messages []lsp.Message `json:"messages"`
		} `json:"state"`
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &file))
	require.Equal(t, sid, file.ID)
	require.JSONEq(t, mustJSON(got["messages"]), mustJSON(file.State.Messages))
	require.Contains(t, string(b), "clean the build dir")
	require.Contains(t, string(b), "recursive delete is blocked")

	api := e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})
	require.Contains(t, mustJSON(api["messages"]), "[Hook:PostToolUse]")
	require.NotContains(t, mustJSON(api["messages"]), "bye", "error blocks never reach the model")

	e.waitNotification("wave/sessionChanged", func(p json.RawMessage) bool { return strings.Contains(string(p), sid) })
	e.waitNotification("wave/hookRun", func(p json.RawMessage) bool { return strings.Contains(string(p), `"event":"PreToolUse"`) })
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// askHook answers every PreToolUse with "ask".
const askHook = `jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "please confirm"}}'`

func TestAskAnsweredByPrompt(t *testing.T) {
	for _, answer := range []string{"Allow", "Deny"} {
		t.Run(answer, func(t *testing.T) {
			e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}})})
			sid, _ := e.startSession()
			done := make(chan map[string]any, 1)
			go func() {
				done <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
					"toolInput": map[string]any{"command": "make deploy"}})
			}()
			p := e.nextPrompt()
			require.Contains(t, p.params.Message, "please confirm")
			require.Equal(t, []protocol.MessageActionItem{{Title: "Allow"}, {Title: "Deny"}}, p.params.Actions)
			p.reply <- &protocol.MessageActionItem{Title: answer}
			r := <-done
			// The server's log reaches the editor too (window/logMessage).
			e.waitNotification("window/logMessage", func(m json.RawMessage) bool { return strings.Contains(string(m), "ask decided") })
			require.Equal(t, true, r["asked"])
			// The run history says what came of the ask, not only that the hooks asked.
			var runs lsp.HookRunsResult
			require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid, "event": "PreToolUse"}, &runs))
			require.Contains(t, runs.Runs[0].Outcome, map[string]string{"Allow": "asked: allowed", "Deny": "asked: denied"}[answer])
			if answer == "Allow" {
				require.Equal(t, "allow", r["permission"])
				require.Equal(t, true, r["continue"])
			} else {
				require.Equal(t, "deny", r["permission"])
				require.Equal(t, false, r["continue"], "a user's deny ends the turn")
			}
		})
	}
}

func TestAskAnsweredByCodeActionWithdrawsThePrompt(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}})})
	sid, _ := e.startSession()
	file := filepath.Join(e.root, "main.go")
	done := make(chan map[string]any, 1)
	go func() {
		done <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
			"toolInput": map[string]any{"file_path": file, "content": "package main"}})
	}()
	prompt := e.nextPrompt()
	// The ask shows as a diagnostic on the file, with Allow/Deny code actions.
	e.waitNotification("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "main.go") && strings.Contains(string(p), "wave.ask")
	})
	var actions []protocol.CodeAction
	require.NoError(t, e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri.File(file)},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions))
	require.Len(t, actions, 2)
	require.Equal(t, "wave.permission.allow", actions[0].Command.Command)
	var pending map[string][]lsp.PendingPermission
	require.NoError(t, e.call("wave/listPermissions", nil, &pending))
	require.Len(t, pending["pending"], 1)
	require.Equal(t, pending["pending"][0].ID, actions[0].Command.Arguments[0])

	var resolved lsp.ResolvePermissionResult
	require.NoError(t, e.call("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command,
		"arguments": actions[0].Command.Arguments}, &resolved))
	require.True(t, resolved.Resolved)
	r := <-done
	require.Equal(t, "allow", r["permission"])
	// The prompt is withdrawn with $/cancelRequest, and the diagnostic cleared.
	promptID, _ := json.Marshal(&prompt.id)
	e.waitNotification("$/cancelRequest", func(p json.RawMessage) bool { return string(p) == `{"id":`+string(promptID)+`}` })
	prompt.reply <- &protocol.MessageActionItem{Title: "Deny"} // too late: must change nothing
	e.waitNotification("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "main.go") && strings.Contains(string(p), `"diagnostics":[]`)
	})
	require.NoError(t, e.call("wave/listPermissions", nil, &pending))
	require.Empty(t, pending["pending"])
	// A second answer to the same ask finds it gone.
	require.NoError(t, e.call("wave/resolvePermission", map[string]any{"id": actions[0].Command.Arguments[0], "decision": "deny"}, &resolved))
	require.False(t, resolved.Resolved)
}

func TestPendingAskDoesNotHoldUpOtherRequests(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}})})
	sid, _ := e.startSession()
	other, _ := e.startSession()
	done := make(chan map[string]any, 1)
	go func() {
		done <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
			"toolInput": map[string]any{"command": "x"}})
	}()
	prompt := e.nextPrompt()
	// While the ask waits: the same session can be read, other sessions go on.
	e.mustCall("wave/getSession", map[string]any{"sessionId": sid})
	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": other, "prompt": "hi"})
	var pending map[string][]lsp.PendingPermission
	require.NoError(t, e.call("wave/listPermissions", nil, &pending))
	require.Len(t, pending["pending"], 1)
	var res lsp.ResolvePermissionResult
	require.NoError(t, e.call("wave/resolvePermission", map[string]any{"id": pending["pending"][0].ID, "decision": "deny"}, &res))
	require.True(t, res.Resolved)
	require.Equal(t, "deny", (<-done)["permission"])
	prompt.reply <- nil
}

func TestAskTimesOutAsDeny(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}}),
		initOpts: map[string]any{"askTimeoutSeconds": 1}})
	sid, _ := e.startSession()
	done := make(chan map[string]any, 1)
	go func() {
		done <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
			"toolInput": map[string]any{"command": "x"}})
	}()
	prompt := e.nextPrompt() // never answered in time
	r := <-done
	require.Equal(t, "deny", r["permission"])
	require.Equal(t, true, r["asked"])
	prompt.reply <- nil
}

func TestAskDeniedWhenTheEditorDisconnects(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"PreToolUse": {askHook}})})
	sid, path := e.startSession()
	go func() {
		_ = e.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
			"toolInput": map[string]any{"command": "x"}}, nil)
	}()
	prompt := e.nextPrompt()
	e.hangUp() // the editor goes away mid-ask
	select {
	case code := <-e.exitCode:
		require.Equal(t, 1, code)
		e.exitCode <- code
	case <-time.After(10 * time.Second):
		t.Fatal("server did not end when the editor disconnected")
	}
	prompt.reply <- nil
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), `"success":false`, "the tool block records the denial")
}

func TestCancelRequestKillsHooks(t *testing.T) {
	for _, id := range []any{4242, "cancel-me"} {
		t.Run(fmt.Sprintf("%T id", id), func(t *testing.T) {
			r := startRaw(t, hookSettings(map[string][]string{"Stop": {"$SCRIPTS/slow.sh"}}))
			sid, _ := r.startSession()
			start := time.Now()
			r.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "wave/stop", "params": map[string]any{"sessionId": sid}})
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(filepath.Join(r.root, "child.pid"))
				return err == nil && strings.HasSuffix(string(b), "\n")
			}, 10*time.Second, 10*time.Millisecond)
			r.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": id}})
			resp := r.waitResponse(id)
			require.Less(t, time.Since(start), 20*time.Second, "the 300 s hook was killed")
			require.Equal(t, -32800, int(resp["error"].(map[string]any)["code"].(float64)))
			pid := readPid(t, filepath.Join(r.root, "child.pid"))
			require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 20*time.Millisecond)
		})
	}
}

func TestProgressForSlowHooks(t *testing.T) {
	// The delay leaves a fast hook room on a loaded machine (at 50 ms, a
	// `cat` under a parallel test run crossed it and showed progress too).
	e := startEditor(t, editorOpts{progress: true, serverOpt: lsp.Options{ProgressDelay: 500 * time.Millisecond},
		settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null; sleep 2"}, "UserPromptSubmit": {"cat >/dev/null"}})})
	sid, _ := e.startSession()
	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "fast"})
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	e.waitNotification("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"kind":"begin"`) })
	e.waitNotification("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"kind":"end"`) })
	require.Equal(t, 1, e.countNotifications("$/progress", `"kind":"begin"`), "only the slow event shows progress")
}

// While an ask waits for the user no hook runs: the progress of the hooks
// ends when the user is asked, not when the user answers.
func TestProgressEndsWhenTheUserIsAsked(t *testing.T) {
	e := startEditor(t, editorOpts{progress: true, serverOpt: lsp.Options{ProgressDelay: 50 * time.Millisecond},
		settings: hookSettings(map[string][]string{"PreToolUse": {`cat >/dev/null; sleep 0.3; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`}})})
	sid, _ := e.startSession()
	done := make(chan map[string]any, 1)
	go func() {
		done <- e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
			"toolInput": map[string]any{"command": "make"}})
	}()
	p := e.nextPrompt()
	require.Equal(t, 1, e.countNotifications("$/progress", `"kind":"begin"`), "the slow hook showed progress")
	require.Equal(t, 1, e.countNotifications("$/progress", `"kind":"end"`), "and it ended before the prompt")
	p.reply <- &protocol.MessageActionItem{Title: "Allow"}
	require.Equal(t, "allow", (<-done)["permission"])
	require.Equal(t, 1, e.countNotifications("$/progress", `"kind":"end"`), "ended once")
}

func TestWarnAndErrorBlocksBecomeMessages(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {
		`cat >/dev/null; echo '{"systemMessage":"coverage dropped"}'`, `cat >/dev/null; echo "linter crashed" >&2; exit 1`}})})
	sid, _ := e.startSession()
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	warn := e.waitNotification("window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "coverage dropped") })
	require.Contains(t, string(warn), `"type":2`)
	errMsg := e.waitNotification("window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "linter crashed") })
	require.Contains(t, string(errMsg), `"type":1`)
}

func TestManyRequestsInFlight(t *testing.T) {
	e := startEditor(t, editorOpts{})
	sid, _ := e.startSession()
	var wg sync.WaitGroup
	const n = 10000
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var r lsp.PreToolUseResult
			// 100 tool calls asked about 100 times each: one assistant message
			// holding 10,000 tool blocks is not a conversation anyone has.
			err := e.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": fmt.Sprint("t", i%100), "toolName": "Read",
				"toolInput": map[string]any{"file_path": "/x"}}, &r)
			if err == nil && r.Permission != "allow" {
				err = fmt.Errorf("permission %q", r.Permission)
			}
			if err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got := e.mustCall("wave/getSession", map[string]any{"sessionId": sid})
	require.Contains(t, mustJSON(got["messages"]), `"id":"t99"`)
}

// Editors copy the server's stderr into the same panel as window/logMessage,
// so they start it with a high stderr level: the editor still gets the log
// from Info up, and stderr only what reaches its own level.
func TestLogLevelOfStderrDoesNotLimitTheEditorsLog(t *testing.T) {
	var stderr proctest.Output
	logger := slog.New(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	e := startEditor(t, editorOpts{serverOpt: lsp.Options{Logger: logger}})
	e.waitNotification("window/logMessage", func(m json.RawMessage) bool { return strings.Contains(string(m), "wavehooks ready") })
	require.NotContains(t, stderr.String(), "wavehooks ready")
	var out map[string]any
	require.Error(t, e.call("wave/getSession", map[string]any{"sessionId": "../x"}, &out))
	e.shutdown()
	require.NotContains(t, stderr.String(), "level=INFO")
}
