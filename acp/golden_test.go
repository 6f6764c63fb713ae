package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/flow"
	"github.com/wavehooks/wavehooks/internal/rpcerr"
	"github.com/wavehooks/wavehooks/session"
)

// updateGolden rewrites testdata/golden from what the proxy sends now:
// go test ./acp -run Golden -update-golden. A diff in those files
// is a change of bytes on the wire, to be chosen, not stumbled into.
var updateGolden = flag.Bool("update-golden", false, "rewrite acp/testdata/golden")

// requireGolden compares what the proxy sent with testdata/golden/<name>,
// byte for byte.
func requireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file (run with -update-golden once)")
	require.Equal(t, string(want), string(got), "the bytes of %s changed", name)
}

// goldenProxy is a proxy with no agent whose output to each side is kept.
func goldenProxy() (p *Proxy, editor, agent *bytes.Buffer) {
	editor, agent = &bytes.Buffer{}, &bytes.Buffer{}
	p = &Proxy{log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		editorOut: newLineWriter(editor), agentIn: newLineWriter(agent),
		workspaces: map[string]*workspace{}, sessions: map[string]*sessState{}, loading: map[string]int{},
		editorCalls: map[string]*editorCall{}, agentCalls: map[string]*agentCall{}, ownCalls: map[string]ownCall{}}
	n := 0 // ids that stay the same from run to run
	p.ownID = func(kind string) json.RawMessage {
		n++
		return json.RawMessage(strconv.Quote(fmt.Sprintf("%s%s-%d", ownIDPrefix, kind, n)))
	}
	p.ctx, p.stop = context.WithCancel(context.Background())
	return p, editor, agent
}

func goldenSession() *sessState {
	return &sessState{acpID: "sess-1", tools: map[string]*toolState{}, finished: map[string]bool{}}
}

// permissionRequest is an agent's session/request_permission as the proxy reads it.
func permissionRequest(t *testing.T) *message {
	t.Helper()
	m, err := parseMessage([]byte(`{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"sessionId":"sess-1",` +
		`"toolCall":{"toolCallId":"call-1","title":"rm -rf build","kind":"execute"},"options":[` +
		`{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"always","name":"Always","kind":"allow_always"},` +
		`{"optionId":"no","name":"Reject","kind":"reject_once"}]}}` + "\n"))
	require.NoError(t, err)
	return m
}

// The messages the proxy makes itself keep their bytes: a hook message and
// a notice of the proxy's own, a tool call shown as failed (new and known to
// the editor), the answers it gives a permission request (reject, allow,
// cancelled), its own permission request for an ask, a follow-up prompt, a
// cancel of the agent's turn, errors, and the edited session/prompt and
// file/terminal requests.
func TestGoldenMessagesTheProxyMakes(t *testing.T) {
	line := func(n int) *int { return &n }
	cases := []struct {
		name string
		make func(t *testing.T, p *Proxy, other *bytes.Buffer) // what the proxy sends to either side, or (other) to hooks and the bridge's hook command
	}{
		{"hook_message.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			p.hookMessage(goldenSession(), event.PreToolUse, levelWarning, "  a hook's <warning> & more\n")
			p.hookMessage(goldenSession(), event.Stop, levelInfo, "the agent goes on")
		}},
		{"notice.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			p.noticeTo("sess-1", levelError, "this session's transcript cannot be kept")
		}},
		{"tool_failed.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			st := goldenSession()
			p.showToolFailed(st, &toolState{id: "call-1", title: "Write /p/a.txt", kind: "edit",
				locations: []acpmsg.ToolCallLocation{{Path: "/p/a.txt", Line: line(3)}}}, "Denied by a PreToolUse hook: no")
			p.showToolFailed(st, &toolState{id: "call-2", title: "", announced: false}, "untitled")
			p.showToolFailed(st, &toolState{id: "call-3", title: "ls", kind: "execute", announced: true}, "Denied by a PreToolUse hook: no ls")
		}},
		{"permission_answers.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			st, m := goldenSession(), permissionRequest(t)
			var opts struct {
				Options []acpmsg.PermissionOption `json:"options"`
			}
			require.NoError(t, json.Unmarshal(m.Params, &opts))
			p.denyPermission(m, st, st.tool("call-1"), event.PreToolUse, opts.Options, "Denied by a PreToolUse hook: no", true)
			p.allowPermission(permissionRequest(t), st, st.tool("call-1"), opts.Options)
			out := session.Outcome{}
			p.answerPermission(permissionRequest(t), st, st.tool("call-1"), event.PreToolUse, "Bash", opts.Options, true,
				flow.Decide(event.PreToolUse, "Bash", nil, true, &out.Answer), "")
			p.denyPermission(permissionRequest(t), st, st.tool("call-1"), event.PreToolUse, nil, "no options", true)
			p.sendAgent(resultLine(json.RawMessage("5"), deepPermissionAnswer([]byte(`{"options":[{"optionId":"r","name":"R","kind":"reject_always"}]}`))))
		}},
		{"ask_request.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the request is sent; no answer is awaited
			st := goldenSession()
			t1 := &toolState{id: "wavehooks-write-1", title: "Write /p/a.txt", kind: "edit", locations: []acpmsg.ToolCallLocation{{Path: "/p/a.txt"}}}
			require.False(t, p.askUser(ctx, st, t1, session.AskRequest{ToolInput: json.RawMessage(`{"content":"x","file_path":"/p/a.txt"}`)}))
			t2 := &toolState{id: "wavehooks-terminal-2", title: "Run ls", kind: "execute"}
			require.False(t, p.askUser(ctx, st, t2, session.AskRequest{ToolInput: json.RawMessage(`{"command":"ls"}`)}))
		}},
		{"follow_up.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			st := goldenSession()
			st.addPending("[Hook:PostToolUse] checked")
			p.followUp(&turn{st: st, editorID: json.RawMessage("9")}, "run the tests first")
			p.stopTurn(st)
		}},
		{"errors.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			p.sendEditor(errorLine(nil, rpcerr.ParseError, "wavehooks: parse error: x", nil))
			p.sendEditor(errorLine(json.RawMessage(`"a"`), rpcerr.InvalidParams, "wavehooks: invalid params: session/prompt needs a sessionId", nil))
			p.sendAgent(errorLine(json.RawMessage("3"), rpcerr.HookDenied, "Denied by a PreToolUse hook: no",
				&acpmsg.Meta{Wavehooks: &acpmsg.WavehooksMeta{HookEvent: string(event.PreToolUse), Tool: "Write", Decision: "deny"}}))
			p.sendEditor(rawErrorLine(json.RawMessage("4"), json.RawMessage(`{"code":-32603,"message":"boom"}`)))
			p.sendEditor(resultLine(json.RawMessage("6"), acpmsg.PromptResponse{StopReason: acpmsg.StopRefusal}))
		}},
		{"edited_requests.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			prompt, err := parseMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","_meta":{"z":1,"a":[2]},"prompt":[{"type":"text","text":"hi"},{"type":"image","data":"AA==","mimeType":"image/png"}],"extra":true}}` + "\n"))
			require.NoError(t, err)
			var pp acpmsg.PromptRequest
			require.NoError(t, decode(prompt.Params, &pp))
			p.sendAgent(withPrompt(prompt, textBlocks([]string{"[Hook:SessionStart] before"}),
				rewrittenPrompt(pp.Prompt, "rewritten"), textBlocks([]string{"[Hook:UserPromptSubmit] after"})))
			for _, req := range []struct{ line, updated string }{
				{`{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"sessionId":"sess-1","path":"/p/a.txt","content":"a","_meta":{"k":"v"}}}`,
					`{"file_path":"/p/b.txt","content":"b"}`},
				{`{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":"sess-1","path":"/p/a.txt","line":3,"limit":10}}`,
					`{"file_path":"/p/c.txt","offset":5}`},
				{`{"jsonrpc":"2.0","id":5,"method":"terminal/create","params":{"sessionId":"sess-1","command":"ls","args":["-la","my dir"],"cwd":"/p","env":[{"name":"A","value":"1"}],"outputByteLimit":100}}`,
					`{"command":"ls -la","cwd":"/q","env":[{"name":"B","value":"2"}]}`},
			} {
				m, err := parseMessage([]byte(req.line + "\n"))
				require.NoError(t, err)
				params, err := decodeObject(m.Params)
				require.NoError(t, err)
				op, err := operationOf(m.Method, m.Params)
				require.NoError(t, err)
				other.Write(append(append([]byte{}, op.input...), '\n')) // the tool_input hooks read
				changed, err := op.apply(params, json.RawMessage(req.updated))
				require.NoError(t, err)
				p.sendEditor(withParams(m, changed))
			}
		}},
		{"bridge.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			claude := agents.For("claude-agent-acp", nil)
			line, err := claude.SessionRequest([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"_meta":{"claudeCode":{"options":{"model":"opus","settings":{"hooks":{"PreToolUse":[{"hooks":[{"command":"own","type":"command"}],"matcher":"Bash"}]}}}},"steering":1},"cwd":"/p","mcpServers":[]}}`+"\n"),
				agents.Hook{Command: "'/opt/wave hooks/wavehooks' acp-hook --socket /tmp/s --token t"}, os.ReadFile)
			require.NoError(t, err)
			p.sendAgent(line)
			other.Write(append(claude.Answer(agents.Answer{Deny: "Denied by a PreToolUse hook: no"}), '\n')) // to the agent's hook command
		}},
		{"bridgehttp.jsonl", func(t *testing.T, p *Proxy, other *bytes.Buffer) {
			claude := agents.For("claude-agent-acp", nil)
			line, err := claude.SessionRequest([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"_meta":{"claudeCode":{"options":{"env":{"A":"1"},"settings":{"hooks":{"PreToolUse":[{"hooks":[{"command":"own","type":"command"}],"matcher":"Bash"}]}}}}},"cwd":"/p","mcpServers":[]}}`+"\n"),
				agents.Hook{Command: "'/opt/wave hooks/wavehooks' acp-hook --socket /tmp/s --token t", HTTP: &agents.HTTPHook{
					URL: "http://127.0.0.1:4711" + bridgeHTTPPath, Header: bridgeHTTPHeader, EnvVar: bridgeHTTPEnvVar, Secret: "s3cr3t"}}, os.ReadFile)
			require.NoError(t, err)
			p.sendAgent(line)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, editor, agent := goldenProxy()
			defer p.stop()
			other := &bytes.Buffer{}
			c.make(t, p, other)
			p.flush()
			var got bytes.Buffer
			for _, side := range []struct {
				name string
				buf  *bytes.Buffer
			}{{"to the editor", editor}, {"to the agent", agent}, {"to hooks (tool_input) and the bridge's hook command", other}} {
				if side.buf.Len() > 0 {
					got.WriteString("# " + side.name + "\n")
					got.Write(side.buf.Bytes())
				}
			}
			requireGolden(t, c.name, got.Bytes())
		})
	}
}

// The error a hook's deny of a file request gives the agent, end to end,
// keeps its bytes: code, reason and _meta-like data.
func TestGoldenFileDenyError(t *testing.T) {
	dir := t.TempDir()
	deny := hook(t, dir, "deny.sh", `echo "no TODOs" >&2; exit 2`)
	target := filepath.Join(t.TempDir(), "a.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Write", deny}),
		script:   script(`[` + fsWrite(target, "TODO later") + `,{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	data, err := os.ReadFile(r.agentLog)
	require.NoError(t, err)
	var got []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(l, []byte(`"error"`)) && !bytes.Contains(l, []byte(`"method"`)) {
			got = append(got, l...)
		}
	}
	require.Equal(t, 1, strings.Count(string(got), "\n"), "one error answer: %s", data)
	requireGolden(t, "file_deny_error.jsonl", got)
}
