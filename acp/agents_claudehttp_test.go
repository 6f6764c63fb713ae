//go:build linux

package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/acp/agents"
	"github.com/wavehooks/wavehooks/internal/loopback"
)

// countingHookExe is a stand-in for wavehooks as the bridge's hook command
// runs it: it notes each `wavehooks acp-hook` process in a file and runs
// the real binary, so that a test can tell whether a tool call cost a
// process.
func countingHookExe(t *testing.T) (exe, starts string) {
	t.Helper()
	bin, err := wavehooksBin()
	require.NoError(t, err)
	dir := t.TempDir()
	starts = filepath.Join(dir, "acp-hook-starts")
	return hook(t, dir, "wavehooks", `echo "$1" >> '`+starts+`'
exec '`+bin+`' "$@"`), starts
}

// claudeSDKBinary is the Claude Code the installed claude-agent-acp runs,
// for CLAUDE_CODE_EXECUTABLE: the same program, named so that the proxy
// cannot know its version.
func claudeSDKBinary(t *testing.T, entry string) string {
	t.Helper()
	root := entry[:strings.Index(entry, string(filepath.Separator)+"node_modules"+string(filepath.Separator))]
	bin := filepath.Join(root, "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude")
	require.FileExists(t, bin)
	return bin
}

// Behind claude-agent-acp, whose bundled Claude Code fails closed on http
// hooks, the bridge's hook is an http hook to the proxy on loopback: a
// wavehooks deny still stops rm -rf in the adapter's default mode, its
// hooks run once, and no `wavehooks acp-hook` process starts. When the
// proxy cannot know which Claude Code runs (CLAUDE_CODE_EXECUTABLE), it
// keeps the command hook, and says which in its log. Over http, a request
// without the bridge's secret is refused (403, no hooks run), and a replay
// of a request the bridge answered is judged again.
func TestClaudeAgentACPBridgesOverHTTP(t *testing.T) {
	node, entry := claudeAgentACP(t)
	cases := []struct {
		name     string
		env      []string
		log      string
		overHTTP bool
	}{
		{name: "http", log: "over http on loopback", overHTTP: true},
		{name: "acp-hook when the Claude Code is not known", env: []string{"CLAUDE_CODE_EXECUTABLE=" + claudeSDKBinary(t, entry)},
			log: "through `wavehooks acp-hook`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := startFakeModel(t)
			project := t.TempDir()
			h := writeMatrixHooks(t, project)
			home, tmp := t.TempDir(), t.TempDir()
			exe, starts := countingHookExe(t)
			r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
				o.HookExe = exe
				o.Agent = []string{node, entry}
				o.AgentDir = project
				o.AgentEnv = append(claudeEnv(home, tmp, fake.URL()), c.env...)
				o.TrustWorkspace = true
			}})
			r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
			k := "CASE-http" + strconv.FormatBool(c.overHTTP)
			target := filepath.Join(project, "build")
			require.NoError(t, os.MkdirAll(target, 0o755))
			fake.script(k, use("Bash", cmd("rm -rf "+target)), say("DONE-"+k))
			sess, _ := r.newSession()
			stopReason(t, r.prompt(sess, k+": clean the build"))
			require.True(t, exists(target), "the denied rm -rf did not run")
			require.Len(t, h.runs(t, "PreToolUse", target), 1, "PreToolUse ran once")
			require.NotEmpty(t, fake.saw(denyReason), "the model read the hook's reason")
			require.Contains(t, r.stderr.String(), c.log)
			if !c.overHTTP {
				require.NotEmpty(t, readFile(t, starts), "the command hook ran `wavehooks acp-hook`")
				require.Equal(t, 0, r.wait())
				return
			}
			require.Empty(t, readFile(t, starts), "no `wavehooks acp-hook` process ran")

			// What the proxy holds for the editor reaches it before the
			// requests below: the rig reads only while it waits for an answer.
			r.call("_test/flush", map[string]any{})
			ep := r.proxy.bridgeOf().secretOf(sess)
			require.NotNil(t, ep, "the session's secret was bound to it by its first call")
			require.True(t, strings.HasPrefix(ep.URL, "http://127.0.0.1:"), ep.URL)
			input := mustRaw(map[string]any{"hook_event_name": "PreToolUse", "session_id": sess, "tool_name": "Bash",
				"tool_input": map[string]any{"command": "echo replayed"}, "tool_use_id": "toolu_replayed"})
			type posted struct {
				code int
				body string
				err  error
			}
			// post sends the request as Claude Code would, in the
			// background: a decision that denies would tell the editor,
			// which the test then reads meanwhile (tellsEditor).
			post := func(secret string, tellsEditor bool) (int, string) {
				done := make(chan posted, 1)
				go func() {
					req, err := http.NewRequest(http.MethodPost, ep.URL, bytes.NewReader(input))
					if err != nil {
						done <- posted{err: err}
						return
					}
					if secret != "" {
						req.Header.Set(ep.Header, secret)
					}
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						done <- posted{err: err}
						return
					}
					defer res.Body.Close()
					body, err := io.ReadAll(res.Body)
					done <- posted{code: res.StatusCode, body: string(body), err: err}
				}()
				if tellsEditor {
					require.NotNil(t, r.read(), "the proxy told the editor of the deny")
				}
				res := <-done
				require.NoError(t, res.err)
				return res.code, res.body
			}
			for _, secret := range []string{"", "not-the-secret", ep.Secret + "x"} {
				code, body := post(secret, false)
				require.Equal(t, http.StatusForbidden, code, "secret %q", secret)
				require.Empty(t, body)
			}
			require.Empty(t, h.runs(t, "PreToolUse", "replayed"), "no hook ran for a request without the secret")
			if reply, ok := postAsNobody(t, ep, input); ok {
				require.Empty(t, reply, "another user's connection is closed unanswered, the secret notwithstanding")
				require.Empty(t, h.runs(t, "PreToolUse", "replayed"), "and no hook ran for it")
			}
			for i := 1; i <= 2; i++ {
				code, body := post(ep.Secret, false)
				require.Equal(t, http.StatusOK, code)
				var out struct {
					Specific struct {
						Decision string `json:"permissionDecision"`
					} `json:"hookSpecificOutput"`
				}
				require.NoError(t, json.Unmarshal([]byte(body), &out), body)
				require.Equal(t, "allow", out.Specific.Decision)
				require.Len(t, h.runs(t, "PreToolUse", "replayed"), i, "the same request again is judged again")
			}
			// (Last: the new session's notifications are not read until
			// the rig waits for the proxy's end.)
			// Another session's Claude Code has its own secret: the one
			// of sess, given for that session's tool call, is refused.
			other, _ := r.newSession()
			otherInput := mustRaw(map[string]any{"hook_event_name": "PreToolUse", "session_id": other, "tool_name": "Bash",
				"tool_input": map[string]any{"command": "echo replayed"}, "tool_use_id": "toolu_other"})
			req, err := http.NewRequest(http.MethodPost, ep.URL, bytes.NewReader(otherInput))
			require.NoError(t, err)
			req.Header.Set(ep.Header, ep.Secret)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = res.Body.Close()
			require.Equal(t, http.StatusForbidden, res.StatusCode, "one session's secret for another session's call")
			require.Len(t, h.runs(t, "PreToolUse", "replayed"), 2, "no hook ran for it")
			require.Equal(t, 0, r.wait())
		})
	}
}

// keepAliveAgent runs the agent with its stdin and stdout on FIFOs it holds
// open itself: when the proxy dies, the agent does not see its stdin end,
// so it goes on with the tool call in flight, as an agent may for a while.
// It writes its process id (the agent's process group) to pidFile. (An
// asynchronous command of sh reads /dev/null unless told otherwise: the
// proxy's stdin is kept as fd 5 for it.)
func keepAliveAgent(t *testing.T, pidFile string) string {
	t.Helper()
	dir := t.TempDir()
	return hook(t, dir, "keepalive.sh", `echo $$ > '`+pidFile+`'
mkfifo '`+dir+`/in' '`+dir+`/out'
exec 5<&0 3<>'`+dir+`/in' 4<>'`+dir+`/out'
cat <&5 > '`+dir+`/in' 2>/dev/null &
cat < '`+dir+`/out' 2>/dev/null &
exec "$@" < '`+dir+`/in' > '`+dir+`/out' 2> '`+dir+`/err' 5<&-`)
}

// When the proxy dies while a bridged tool call waits for its decision, the
// tool does not run: over http (Claude Code's onFailure "block") and
// through a command hook (exit 2), wavehooks-hook and `wavehooks acp-hook`
// alike. The proxy is the real binary, killed with SIGKILL while the
// user's PreToolUse hook runs (proxyKilledMidHook); the agent is kept alive
// past it, and the test waits for Claude Code to tell the model how the
// call ended before it looks for the tool's marker file.
func TestClaudeBridgeFailsClosedWhenTheProxyDies(t *testing.T) {
	node, entry := claudeAgentACP(t)
	clients := hookClients(t)
	type proxyCase struct {
		name string
		bin  string
		env  []string
		log  string
	}
	cases := []proxyCase{{name: "http", bin: clients[0].bin, log: "over http on loopback"}}
	for _, hc := range clients { // a Claude Code of unknown version gets a command hook
		cases = append(cases, proxyCase{name: hc.name, bin: hc.bin, env: []string{"CLAUDE_CODE_EXECUTABLE=" + claudeSDKBinary(t, entry)}, log: hc.log})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := startFakeModel(t)
			project := t.TempDir()
			marker := filepath.Join(project, "tool-ran")
			const k = "CASE-killed"
			fake.script(k, use("Bash", cmd("touch "+marker)), say("DONE-"+k))
			env := func(tmp string) []string { return append(claudeEnv(t.TempDir(), tmp, fake.URL()), c.env...) }
			log := proxyKilledMidHook(t, c.bin, project, env, []string{node, entry}, "", k+": mark it")
			require.Contains(t, log, c.log)
			// Claude Code tells the model how the call ended: after that
			// the tool has run or it never will.
			result := `"tool_use_id":"toolu_` + k + `_00"`
			require.Eventually(t, func() bool { return len(fake.saw(result)) > 0 }, 2*time.Minute, 20*time.Millisecond,
				"Claude Code went on after the proxy died")
			require.False(t, exists(marker), "the tool ran though no hook decided it")
		})
	}
}

// proxyKilledMidHook runs the real proxy (bin acp) in front of agent, which
// is kept alive past it (keepAliveAgent), in project, whose one PreToolUse
// hook never ends; env is the agent's environment given its TMPDIR. It
// opens a session (in mode, unless ""), sends prompt, and kills the proxy
// with SIGKILL once the hook has started, while the agent's tool call
// waits for the bridge's answer. It returns the proxy's log.
func proxyKilledMidHook(t *testing.T, bin, project string, env func(tmp string) []string, agent []string, mode, prompt string) string {
	t.Helper()
	dir := t.TempDir()
	started, agentPid := filepath.Join(dir, "hook-started"), filepath.Join(dir, "agent.pid")
	slow := hook(t, dir, "slow.sh", `cat > /dev/null; echo $$ > '`+started+`'; exec sleep 120`)
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"), []byte(settings([3]string{"PreToolUse", "", slow})), 0o600))
	// The proxy's socket goes under the agent's TMPDIR: a short one, as a
	// test's own (named after the test) can pass a unix socket path's 108
	// bytes.
	tmp, err := os.MkdirTemp("", "dies-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })

	proxy := exec.Command(bin, append([]string{"acp", "--log-level", "info", "--wave-home", t.TempDir(), "--project", project,
		"--trust-workspace", "--", keepAliveAgent(t, agentPid)}, agent...)...)
	proxy.Dir = project
	proxy.Env = env(tmp)
	stderr, err := os.Create(filepath.Join(dir, "proxy.stderr"))
	require.NoError(t, err)
	defer stderr.Close()
	proxy.Stderr = stderr
	in, err := proxy.StdinPipe()
	require.NoError(t, err)
	out, err := proxy.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, proxy.Start())
	t.Cleanup(func() {
		_ = proxy.Process.Kill()
		_ = proxy.Wait()
		if pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, started))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, agentPid))); err == nil {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	})
	editor := newLineClient(in, out)
	editor.call(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	sess := editor.call(t, "session/new", map[string]any{"cwd": project, "mcpServers": []any{}})
	var opened struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(sess, &opened))
	if mode != "" {
		editor.call(t, "session/set_mode", map[string]any{"sessionId": opened.SessionID, "modeId": mode})
	}
	editor.send(t, "session/prompt", map[string]any{"sessionId": opened.SessionID,
		"prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	drained := make(chan struct{})
	go func() { editor.drain(); close(drained) }()
	require.Eventually(t, func() bool { return exists(started) }, 2*time.Minute, 20*time.Millisecond,
		"the user's PreToolUse hook started")
	log := readFile(t, stderr.Name())
	require.NoError(t, proxy.Process.Signal(syscall.SIGKILL))
	<-drained // the proxy's output ended with it
	_ = proxy.Wait()
	return log
}

// lineClient is an ACP editor over a real proxy process's pipes: it sends
// JSON-RPC requests as lines and reads lines until each one's answer.
type lineClient struct {
	w    io.Writer
	r    *bufio.Reader
	next int
}

func newLineClient(w io.Writer, r io.Reader) *lineClient {
	return &lineClient{w: w, r: bufio.NewReaderSize(r, 1<<20)}
}

// send writes a request and returns its id.
func (c *lineClient) send(t *testing.T, method string, params any) int {
	t.Helper()
	c.next++
	_, err := c.w.Write(append(mustRaw(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params}), '\n'))
	require.NoError(t, err)
	return c.next
}

// call sends a request and returns its result, skipping what else comes.
func (c *lineClient) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	id := c.send(t, method, params)
	for {
		line, err := c.r.ReadBytes('\n')
		require.NoError(t, err, "%s: no answer", method)
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(line, &m), "%s", line)
		if m.ID != nil && *m.ID == id && m.Method == "" {
			require.Empty(t, m.Error, "%s: %s", method, line)
			return m.Result
		}
	}
}

// drain reads the rest of what the proxy sends until its output ends, so
// that it never waits on a full pipe.
func (c *lineClient) drain() { _, _ = io.Copy(io.Discard, c.r) }

// postAsNobody sends the bridge a whole request with its secret from a
// socket of the user nobody (bash's /dev/tcp, run as uid 65534), and
// returns what came back. It needs root and Linux, where the bridge can
// tell who connected; ok is false (and the test says SKIPPED) elsewhere.
func postAsNobody(t *testing.T, ep *agents.HTTPHook, input []byte) (reply string, ok bool) {
	t.Helper()
	if !loopback.Checked || os.Geteuid() != 0 {
		t.Log("SKIPPED: another user's connection (needs root on Linux)")
		return "", false
	}
	u, err := url.Parse(ep.URL)
	require.NoError(t, err)
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\n%s: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		u.Path, u.Host, ep.Header, ep.Secret, len(input), input)
	cmd := exec.Command("bash", "-c", `exec 3<>"/dev/tcp/${1%:*}/${1##*:}"; printf '%s' "$2" >&3; timeout 10 cat <&3`, "post", u.Host, req)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	// A refused connection may be reset under bash's write or read, which
	// makes it exit 1: what matters is what it read.
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err, "bash as nobody")
	}
	return string(out), true
}

// secretOf is the http hook, with its secret, the bridge gave the session
// that is now bound to session; nil when there is none.
func (b *bridge) secretOf(session string) *agents.HTTPHook {
	b.p.mu.Lock()
	defer b.p.mu.Unlock()
	if b.http == nil {
		return nil
	}
	for _, s := range b.http.secrets {
		if s.session == session {
			hook := b.http.hook
			hook.Secret = s.secret
			return &hook
		}
	}
	return nil
}
