package lsp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/lsp"
)

// agentHost plays the editor's agent extension: it answers
// wave/evaluateHook with answer (the model is the only part mocked) and
// records what it was asked.
type agentHost struct {
	mu     sync.Mutex
	asked  []lsp.EvaluateHookParams
	answer func(p lsp.EvaluateHookParams) (any, error)
}

func (a *agentHost) onRequest(method string, raw json.RawMessage) (any, error, bool) {
	if method != "wave/evaluateHook" {
		return nil, nil, false
	}
	var p lsp.EvaluateHookParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err, true
	}
	a.mu.Lock()
	a.asked = append(a.asked, p)
	a.mu.Unlock()
	res, err := a.answer(p)
	return res, err, true
}

func (a *agentHost) evaluations() []lsp.EvaluateHookParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]lsp.EvaluateHookParams(nil), a.asked...)
}

// declaresEvaluateHook is the client capability of an editor whose agent evaluates hooks.
var declaresEvaluateHook = map[string]any{"experimental": map[string]any{"waveEvaluateHook": true}}

func blocksOf(t *testing.T, res map[string]any) []lsp.Block {
	t.Helper()
	var blocks []lsp.Block
	require.NoError(t, json.Unmarshal([]byte(mustJSON(res["blocks"])), &blocks))
	return blocks
}

func TestPromptHookEvaluatedByTheAgentHost(t *testing.T) {
	host := &agentHost{answer: func(p lsp.EvaluateHookParams) (any, error) {
		if strings.Contains(p.Prompt, `"stop_hook_active":true`) {
			return map[string]any{"ok": true}, nil
		}
		return map[string]any{"ok": false, "reason": "summarise what you changed first"}, nil
	}}
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Has the agent finished? $ARGUMENTS", "model": "fast", "timeout": 20}]}]}}`
	e := startEditor(t, editorOpts{settings: settings, caps: declaresEvaluateHook, onRequest: host.onRequest})
	sid, transcript := e.startSession()

	res := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.Equal(t, true, res["blocked"])
	require.Equal(t, "summarise what you changed first", res["reason"])
	asked := host.evaluations()
	require.Len(t, asked, 1)
	p := asked[0]
	require.Equal(t, "prompt", p.Type)
	require.Equal(t, "Stop", p.Event)
	require.Equal(t, sid, p.SessionID)
	require.Equal(t, "fast", p.Model)
	require.Equal(t, 20.0, p.TimeoutSeconds)
	require.NotEmpty(t, p.ID)
	var in map[string]any
	require.NoError(t, json.Unmarshal(p.Input, &in))
	require.Equal(t, transcript, in["transcript_path"])
	require.Equal(t, "Has the agent finished? "+string(p.Input), p.Prompt, "$ARGUMENTS is the event's JSON input")

	// The second stop carries stop_hook_active; the model lets the agent stop.
	require.Equal(t, false, e.mustCall("wave/stop", map[string]any{"sessionId": sid})["blocked"])

	var runs struct {
		Runs []struct{ Hooks []map[string]any }
	}
	require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid, "event": "Stop"}, &runs))
	require.Equal(t, "prompt", runs.Runs[1].Hooks[0]["type"])
	require.Equal(t, true, runs.Runs[1].Hooks[0]["ran"])
	require.Contains(t, runs.Runs[1].Hooks[0]["decision"], "ok:false")
}

func TestAgentAndMCPToolHooksAnsweredLate(t *testing.T) {
	// The Neovim plugin's way: the request is answered with RequestCancelled
	// at once, and the answer follows as wave/evaluateHookResult.
	var e *editor
	host := &agentHost{}
	host.answer = func(p lsp.EvaluateHookParams) (any, error) {
		go func() {
			var result any = map[string]any{"ok": false, "reason": "the test suite fails"}
			if p.Type == "mcp_tool" {
				text, _ := json.Marshal(map[string]any{"systemMessage": "scanned " + string(p.Arguments)})
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}}
			}
			var out map[string]any
			_ = e.call("wave/evaluateHookResult", map[string]any{"id": p.ID, "result": result}, &out)
		}()
		return nil, jsonrpc2.NewError(-32800, "answered through wave/evaluateHookResult")
	}
	settings := `{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
		{"type": "agent", "prompt": "Run the tests"},
		{"type": "mcp_tool", "server": "scanner", "tool": "scan", "input": {"file": "${tool_input.file_path}"}}]}]}}`
	e = startEditor(t, editorOpts{settings: settings, caps: declaresEvaluateHook, onRequest: host.onRequest})
	sid, _ := e.startSession()
	res := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
		"toolInput": map[string]any{"file_path": "/src/a.go"}, "toolResponse": map[string]any{"ok": true}})
	require.Equal(t, true, res["blocked"], "an agent hook's ok:false feeds the reason back")
	require.Equal(t, "the test suite fails", res["reason"])
	blocks := blocksOf(t, res)
	var warns []string
	for _, b := range blocks {
		if b.Type == "warn" {
			warns = append(warns, b.Content)
		}
	}
	require.Equal(t, []string{`scanned {"file":"/src/a.go"}`}, warns, "the MCP tool's text is read like stdout")
	types := map[string]bool{}
	for _, p := range host.evaluations() {
		types[p.Type] = true
		if p.Type == "mcp_tool" {
			require.Equal(t, "scanner", p.Server)
			require.Equal(t, "scan", p.Tool)
		}
	}
	require.Equal(t, map[string]bool{"agent": true, "mcp_tool": true}, types)

	// A late answer for an evaluation nobody waits for any more changes nothing.
	var out map[string]any
	require.NoError(t, e.call("wave/evaluateHookResult", map[string]any{"id": "eval-999", "result": map[string]any{"ok": true}}, &out))
	require.Equal(t, false, out["resolved"])
}

func TestDelegatedHooksWithoutAnAgent(t *testing.T) {
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}, {"type": "command", "command": "cat >/dev/null"}]}]}}`
	cases := []struct {
		name string
		opts editorOpts
		why  string
	}{
		{"the editor did not declare it", editorOpts{}, "the editor did not declare capabilities.experimental.waveEvaluateHook"},
		{"the editor has no agent for it", editorOpts{caps: declaresEvaluateHook, onRequest: func(method string, _ json.RawMessage) (any, error, bool) {
			return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "no agent extension evaluates hooks"), method == "wave/evaluateHook"
		}}, "the editor has no agent that evaluates hooks (wave/evaluateHook: no agent extension evaluates hooks)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.settings = settings
			e := startEditor(t, c.opts)
			sid, _ := e.startSession()
			res := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
			require.Equal(t, false, res["blocked"])
			var warns []string
			for _, b := range blocksOf(t, res) {
				if b.Type == "warn" {
					warns = append(warns, b.Content)
				}
			}
			require.Len(t, warns, 1)
			require.Contains(t, warns[0], "prompt hook `prompt: Done?` did not run: it needs an agent host, and "+c.why)
			e.waitNotification("window/showMessage", func(p json.RawMessage) bool {
				return strings.Contains(string(p), "did not run: it needs an agent host")
			})

			var runs struct {
				Runs []struct{ Hooks []map[string]any }
			}
			require.NoError(t, e.call("wave/hookRuns", map[string]any{"sessionId": sid}, &runs))
			hook := runs.Runs[0].Hooks[0]
			require.Equal(t, false, hook["ran"])
			require.Equal(t, "needs an agent host: "+c.why, hook["skipped"])
			require.Equal(t, true, runs.Runs[0].Hooks[1]["ran"])

			again := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
			for _, b := range blocksOf(t, again) {
				require.NotEqual(t, "warn", b.Type, "said once per session")
			}
		})
	}
}

func TestPromptHookTimeoutCancelsTheRequest(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	host := &agentHost{answer: func(lsp.EvaluateHookParams) (any, error) {
		<-release // a model that never answers in time
		return map[string]any{"ok": false, "reason": "too late"}, nil
	}}
	settings := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Allow $ARGUMENTS?", "timeout": 0.3}]}]}}`
	e := startEditor(t, editorOpts{settings: settings, caps: declaresEvaluateHook, onRequest: host.onRequest})
	sid, _ := e.startSession()
	res := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}})
	require.Equal(t, "allow", res["permission"], "a timed-out hook decides nothing")
	require.Contains(t, mustJSON(res["blocks"]), "hook timed out after 300ms")
	e.waitNotification("$/cancelRequest", nil)
}

func TestHTTPHookThroughTheServer(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		if body["tool_input"].(map[string]any)["command"] == "rm -rf /" {
			_, _ = io.WriteString(w, `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "the policy service says no"}}`)
		}
	}))
	defer srv.Close()
	settings := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "` + srv.URL + `/pre"}]}]}}`
	e := startEditor(t, editorOpts{settings: settings})
	sid, _ := e.startSession()
	res := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf /"}})
	require.Equal(t, "deny", res["permission"])
	require.Equal(t, "the policy service says no", res["reason"])
	ok := e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Bash",
		"toolInput": map[string]any{"command": "ls"}})
	require.Equal(t, "allow", ok["permission"])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 2)
	require.Equal(t, sid, bodies[0]["session_id"])
}

func TestWorkspaceHTTPHooksWaitForTrust(t *testing.T) {
	var mu sync.Mutex
	posts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		posts++
		mu.Unlock()
	}))
	defer srv.Close()
	project := `{"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "` + srv.URL + `/collect", "headers": {"X-Key": "$HOME"}, "allowedEnvVars": ["HOME"]}]}]}}`
	e := startEditor(t, editorOpts{project: project})
	prompt := e.nextPrompt()
	require.Contains(t, prompt.params.Message, "POST "+srv.URL+"/collect (headers X-Key: $HOME, sending $HOME)",
		"the trust prompt says where the hook posts and what it sends")
	prompt.reply <- &protocol.MessageActionItem{Title: "Not now"}
	sid, _ := e.startSession()
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	mu.Lock()
	require.Equal(t, 0, posts, "an untrusted workspace's http hook posts nothing")
	mu.Unlock()

	e.trustByCodeAction(e.root + "/.wave/settings.json")
	e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	mu.Lock()
	require.Equal(t, 1, posts)
	mu.Unlock()
}

func TestAsyncHooksOutputThroughTheServer(t *testing.T) {
	settings := `{"hooks": {"PostToolUse": [{"hooks": [
		{"type": "command", "async": true, "command": "jq -n '{hookSpecificOutput: {hookEventName: \"PostToolUse\", additionalContext: \"lint: 2 warnings in a.go\"}}'"},
		{"type": "command", "asyncRewake": true, "command": "cat >/dev/null; echo 'the deploy failed: exit 7' >&2; exit 2"}]}]}}`
	e := startEditor(t, editorOpts{settings: settings})
	sid, _ := e.startSession()
	changed := e.countNotifications("wave/sessionChanged", "")
	res := e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Write",
		"toolInput": map[string]any{"file_path": "/a.go"}, "toolResponse": map[string]any{}})
	require.Equal(t, false, res["blocked"])

	// The asyncRewake hook wakes the agent: its stderr is in the session at once, announced.
	e.waitNotificationAfter("wave/sessionChanged", changed, func(p json.RawMessage) bool {
		return strings.Contains(string(p), "the deploy failed: exit 7")
	})
	var api struct{ Messages []map[string]any }
	require.NoError(t, e.call("wave/apiMessages", map[string]any{"sessionId": sid}, &api))
	require.Contains(t, mustJSON(api.Messages), "[Hook:PostToolUse] the deploy failed: exit 7", "the model reads it")

	// The async hook's additionalContext comes with the session's next event.
	require.Eventually(t, func() bool {
		var runs struct{ Runs []map[string]any }
		_ = e.call("wave/hookRuns", map[string]any{"sessionId": sid, "event": "PostToolUse"}, &runs)
		return len(runs.Runs) >= 3 // the event, and each async hook's own run
	}, 10*time.Second, 10*time.Millisecond)
	next := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	var delivered []lsp.Block
	for _, b := range blocksOf(t, next) {
		if b.Type == "hook" {
			delivered = append(delivered, b)
		}
	}
	require.Len(t, delivered, 1)
	require.Equal(t, "PostToolUse", delivered[0].Hook().Event)
	require.Equal(t, "lint: 2 warnings in a.go", delivered[0].Content)
	require.Equal(t, true, delivered[0].Hook().Metadata["async"])
	require.Equal(t, []any{"lint: 2 warnings in a.go"}, next["additionalContext"])
	again := e.mustCall("wave/stop", map[string]any{"sessionId": sid})
	require.NotContains(t, mustJSON(again["blocks"]), "lint: 2 warnings", "delivered once")
}

func TestEditorKnowsTheHookTypes(t *testing.T) {
	text := "{\"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/h\", \"\": 1},\n  {\"type\": \"prompt\"}\n]}]}}\n"
	e := startEditor(t, editorOpts{settings: text})
	settings := e.home + "/settings.json"
	u := "file://" + settings
	at := func(line, col int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col}}
	}
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(1, 23), &hover))
	require.Contains(t, hover.Contents.Value, "POSTed", "hover on \"url\"")

	var list protocol.CompletionList
	require.NoError(t, e.call("textDocument/completion", at(1, 51), &list))
	var keys []string
	for _, it := range list.Items {
		keys = append(keys, it.Label)
	}
	for _, k := range []string{"url", "headers", "allowedEnvVars", "prompt", "model", "server", "tool", "input", "once", "shell", "asyncRewake"} {
		require.Contains(t, keys, k)
	}

	// The http hook loads; the prompt hook without a prompt is the one error, and has a code lens neither way.
	// The empty key the completion was asked at is an unknown key: a warning.
	var errs, warnings []string
	for _, d := range e.diagnosticsFor(settings, hasCode("missing-field")) {
		if d.Severity == protocol.DiagnosticSeverityError {
			errs = append(errs, d.Message)
		} else {
			warnings = append(warnings, d.Message)
		}
	}
	require.Equal(t, []string{`a prompt hook needs "prompt"; this hook will not run`}, errs)
	require.Equal(t, []string{`unknown key "" in a hook; it is ignored`}, warnings)
	var lenses []protocol.CodeLens
	require.NoError(t, e.call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": u}}, &lenses))
	require.Len(t, lenses, 1, "the http hook's Run hook lens, on its url")
	require.Equal(t, uint32(1), lenses[0].Range.Start.Line)
}
