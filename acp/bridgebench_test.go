//go:build !windows

package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// BenchmarkBridgedPreToolUse is what a bridged tool call costs the agent
// (issue #39 item 4), five ways in one loop, so that load falls on all
// alike: the proxy's decision called in process with no transport
// ("floor": no hook configured, so the decision itself is all it does),
// over the bridge's loopback http endpoint as Claude Code sends it (a
// new connection per call, the secret in its header: "http"), and three
// command hooks started per call as Claude Code and Codex start one
// (sh -c COMMAND, the hook input on stdin, its stdout read): a process that
// does nothing ("true", /bin/true: the floor no command hook can beat),
// wavehooks-hook (what the bridge gives an agent when it is installed next
// to wavehooks) and `wavehooks acp-hook` (the whole wavehooks binary, the
// fallback). Both hook programs are built as the tests build them (go
// build, cgo as the toolchain defaults). It reports each one's median in
// ns, the ratios to the floors, and what each adds: to a tool call
// (*-added-ns, over "floor") and beyond a process that does nothing
// (*-over-true-ns). Run it with a small -benchtime:
//
//	go test ./acp -run '^$' -bench BenchmarkBridgedPreToolUse -benchtime 200x
func BenchmarkBridgedPreToolUse(b *testing.B) {
	bin, err := wavehooksBin()
	require.NoError(b, err)
	scriptPath := filepath.Join(b.TempDir(), "script.json")
	require.NoError(b, os.WriteFile(scriptPath, []byte(`{"agentName":"claude-agent-acp"}`), 0o600))
	inR, inW, err := os.Pipe()
	require.NoError(b, err)
	outR, outW, err := os.Pipe()
	require.NoError(b, err)
	done := make(chan struct{})
	started := make(chan *Proxy, 1)
	go func() {
		defer close(done)
		runProxy(context.Background(), Options{Agent: []string{scriptAgent}, AgentEnv: append(os.Environ(), "AGENT_SCRIPT="+scriptPath),
			HookExe: bin, WaveHome: b.TempDir(), ProjectRoot: b.TempDir()}, inR, outW, started)
		_ = outW.Close()
	}()
	e := &endpoint{w: inW, r: bufio.NewReaderSize(outR, 1<<16)}
	p := <-started
	defer func() {
		_ = inW.Close()
		<-done
		_ = outR.Close()
	}()
	sess := e.session(b)
	br := p.bridgeOf()
	require.NotNil(b, br, "the bridge started for claude-agent-acp")
	_, err = br.startHTTP()
	require.NoError(b, err)
	ep, err := br.sessionHook(sess) // the secret the session's Claude Code would get
	require.NoError(b, err)
	ig := br.integration()
	require.NotNil(b, ig)
	// The editor's side is read all along: nothing the proxy says waits.
	go func() { _, _ = io.Copy(io.Discard, e.r) }()

	require.Equal(b, "`wavehooks-hook`", br.client, "wavehooks-hook is next to the wavehooks under test")
	acpHook, _ := hookCommand(bin, "", br.sock, br.token)
	truePath, err := exec.LookPath("true")
	require.NoError(b, err)

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	input := func(mode string, i int) []byte {
		return mustRaw(acpmsg.BridgeInput{Event: "PreToolUse", SessionID: sess, ToolName: "Bash",
			ToolInput: json.RawMessage(`{"command":"ls -la"}`), ToolUseID: "toolu_" + mode + "_" + strconv.Itoa(i)})
	}
	allowed := func(answer []byte) {
		if !bytes.Contains(answer, []byte(`"hookEventName":"PreToolUse"`)) || bytes.Contains(answer, []byte(`"deny"`)) {
			b.Fatalf("not an answer that lets the tool run: %s", answer)
		}
	}
	modes := []struct {
		name string
		call func(i int)
	}{
		{"floor", func(i int) {
			var in acpmsg.BridgeInput
			require.NoError(b, json.Unmarshal(input("floor", i), &in))
			allowed(p.bridgedPreToolUse(&in, ig))
		}},
		{"http", func(i int) {
			req, err := http.NewRequest(http.MethodPost, ep.URL, bytes.NewReader(input("http", i)))
			require.NoError(b, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(ep.Header, ep.Secret)
			res, err := client.Do(req)
			require.NoError(b, err)
			answer, err := io.ReadAll(res.Body)
			_ = res.Body.Close()
			require.NoError(b, err)
			allowed(answer)
		}},
		{"true", func(i int) {
			c := exec.Command("sh", "-c", shellQuote(truePath))
			c.Stdin = bytes.NewReader(input("true", i))
			out, err := c.Output()
			require.NoError(b, err)
			require.Empty(b, out)
		}},
		{"wavehooks-hook", func(i int) {
			c := exec.Command("sh", "-c", br.command)
			c.Stdin = bytes.NewReader(input("client", i))
			answer, err := c.Output()
			require.NoError(b, err)
			allowed(answer)
		}},
		{"acp-hook", func(i int) {
			c := exec.Command("sh", "-c", acpHook)
			c.Stdin = bytes.NewReader(input("acphook", i))
			answer, err := c.Output()
			require.NoError(b, err)
			allowed(answer)
		}},
	}
	modeIndex := func(name string) int {
		for m := range modes {
			if modes[m].name == name {
				return m
			}
		}
		b.Fatalf("no mode %q", name)
		return -1
	}
	times := make([][]time.Duration, len(modes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for m, mode := range modes {
			start := time.Now()
			mode.call(i)
			times[m] = append(times[m], time.Since(start))
		}
	}
	b.StopTimer()
	medians := make([]float64, len(modes))
	for m := range modes {
		sort.Slice(times[m], func(i, j int) bool { return times[m][i] < times[m][j] })
		medians[m] = float64(times[m][len(times[m])/2].Nanoseconds())
		b.ReportMetric(medians[m], modes[m].name+"-ns")
	}
	ratio := func(a, over string) {
		b.ReportMetric(medians[modeIndex(a)]/medians[modeIndex(over)], a+"/"+over)
	}
	added := func(a, over, unit string) {
		b.ReportMetric(medians[modeIndex(a)]-medians[modeIndex(over)], a+unit)
	}
	ratio("http", "floor")
	ratio("acp-hook", "floor")
	ratio("acp-hook", "http")
	ratio("wavehooks-hook", "true")
	ratio("acp-hook", "true")
	ratio("acp-hook", "wavehooks-hook")
	added("http", "floor", "-added-ns")
	added("wavehooks-hook", "floor", "-added-ns")
	added("acp-hook", "floor", "-added-ns")
	added("wavehooks-hook", "true", "-over-true-ns")
	added("acp-hook", "true", "-over-true-ns")
}
