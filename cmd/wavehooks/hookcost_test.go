package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmarks in this file measure what issue #27 asks of a hooked call
// and of a cold start, each against the cheapest thing that does the same
// work, measured in the same loop so that the machine's load falls on both
// alike (docs/performance.md, "The hooked call against a process"):
//
//   - the real binary (`wavehooks serve`, built once), driven over its stdio
//     by an LSP client that does what vscode-jsonrpc does for a sequential
//     agent: Content-Length framing, one request at a time, waiting for its
//     response (notifications that come first are read and parsed, as the
//     editor's client does);
//   - one session, a fresh tool id per call, a matching `true` command hook,
//     exactly the `/bin/sh -c true` a user's settings file gives;
//   - against exec.Command("sh", "-c", "true").Run() with stdio unset, and a
//     bare clone(CLONE_VFORK)+exec (syscall.ForkExec, what posix_spawn does),
//     the fastest start this machine has;
//   - and the same call on a server with no hook against a no-op request
//     (wave/listPermissions) on that server: the client's floor.
//
// Each iteration runs every measure once, in an order that rotates, and
// p50 and p90 of each are reported with b.ReportMetric.

// lspClient is a synchronous LSP client over a server's stdio: it writes
// one request and reads frames until that request's response.
type lspClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	seq int
	buf []byte
}

func startLSP(b *testing.B, bin, home, project string) *lspClient {
	b.Helper()
	cmd := exec.Command(bin, "serve", "--stdio", "--wave-home", home, "--log-level", "error")
	cmd.Env = append(os.Environ(), "WAVE_HOME="+home)
	in, out := startPiped(b, cmd)
	c := &lspClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	b.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	return c
}

// initialize makes the initialize request and sends initialized.
func (c *lspClient) initialize(b *testing.B, project string) {
	b.Helper()
	c.call(b, "initialize", fmt.Sprintf(`{"processId":%d,"rootUri":"file://%s","capabilities":{}}`, os.Getpid(), project))
	c.send(b, []byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
}

func (c *lspClient) send(b *testing.B, body []byte) {
	c.buf = append(strconv.AppendInt(append(c.buf[:0], "Content-Length: "...), int64(len(body)), 10), "\r\n\r\n"...)
	c.buf = append(c.buf, body...)
	if _, err := c.in.Write(c.buf); err != nil {
		b.Fatal(err)
	}
}

// call sends one request and returns its result, reading (and parsing, as
// an editor's client does) whatever the server sends before the response.
func (c *lspClient) call(b *testing.B, method, params string) json.RawMessage {
	c.seq++
	c.send(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.seq, method, params))
	for {
		body, err := c.readFrame()
		if err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		switch {
		case m.Method != "" && m.ID != nil: // a request from the server: answer null
			c.send(b, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":null}`, *m.ID))
		case m.Method != "": // a notification
		case m.ID != nil && *m.ID == c.seq:
			if m.Error != nil {
				b.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		}
	}
}

func (c *lspClient) readFrame() ([]byte, error) {
	length := -1
	for {
		line, err := c.out.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			length, _ = strconv.Atoi(string(v))
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a frame without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(c.out, body)
	return body, err
}

func (c *lspClient) sessionStart(b *testing.B) string {
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(c.call(b, "wave/sessionStart", `{"source":"startup"}`), &r); err != nil || r.SessionID == "" {
		b.Fatalf("sessionStart: %v", err)
	}
	return r.SessionID
}

// preToolUse is the call: a new tool call of Bash.
func (c *lspClient) preToolUse(b *testing.B, sid, id string) {
	c.call(b, "wave/preToolUse", fmt.Sprintf(`{"sessionId":%q,"toolUseId":%q,"toolName":"Bash","toolInput":{"command":"ls -la","description":"list the files in the working directory"}}`, sid, id))
}

// oneTrueHook is the settings file of a user with one `true` PreToolUse hook.
const oneTrueHook = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`

// bareExec is the floor: Go's os/exec with stdio unset.
func bareExec(b *testing.B) {
	if err := exec.Command("sh", "-c", "true").Run(); err != nil {
		b.Fatal(err)
	}
}

// samples are the durations of one measure.
type samples []time.Duration

func (s samples) pct(p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	c := append(samples(nil), s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return float64(c[int(p*float64(len(c)-1)+0.5)].Nanoseconds()) / 1e3
}

// measure is one timed operation of a benchmark's loop.
type measure struct {
	name  string
	run   func(i int)
	after func() // untimed, after each run
	lat   samples
}

// interleave runs every measure once per iteration, rotating their order,
// after warm iterations that are not kept.
func interleave(b *testing.B, warm int, ms []*measure) {
	for i := -warm; i < 0; i++ {
		for _, m := range ms {
			m.run(i)
			if m.after != nil {
				m.after()
			}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range ms {
			m := ms[(i+k)%len(ms)]
			t0 := time.Now()
			m.run(i)
			m.lat = append(m.lat, time.Since(t0))
			if m.after != nil {
				m.after()
			}
		}
	}
	b.StopTimer()
}

// report gives p50 and p90 of every measure and the ratios asked for.
func report(b *testing.B, ms []*measure, ratios [][2]string) {
	by := map[string]*measure{}
	for _, m := range ms {
		by[m.name] = m
		b.ReportMetric(m.lat.pct(0.5), m.name+"-p50-µs")
		b.ReportMetric(m.lat.pct(0.9), m.name+"-p90-µs")
	}
	for _, r := range ratios {
		x, y := by[r[0]], by[r[1]]
		b.ReportMetric(x.lat.pct(0.5)/y.lat.pct(0.5), r[0]+"/"+r[1]+"-p50")
		b.ReportMetric(x.lat.pct(0.9)/y.lat.pct(0.9), r[0]+"/"+r[1]+"-p90")
	}
}

func writeBenchFile(b *testing.B, path, data string) {
	b.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHookedCall is issue #27's first two rows. Per iteration: a bare
// `sh -c true` (os/exec, stdio unset), the same through a vfork-style start,
// one wave/preToolUse with a matching `true` hook (a fresh tool id, one
// session), the same call on a server with no hook, and a no-op request on
// that server. Reported: p50 and p90 of each, hooked/exec (goal ≤ 1.15×),
// hooked/spawn, and nohook/noop (goal ≤ 1.3×). Run with -benchtime 300x
// or more: one iteration is one of each.
func BenchmarkHookedCall(b *testing.B) {
	bin := os.Getenv("WAVEHOOKS_BIN") // a binary built elsewhere, to compare builds
	if bin == "" {
		bin = e2eBinary(b)
	}
	// WAVEHOOKS_COMPARE=name=binary,... adds the same three measures for
	// other builds, in the same loop: what a change does, in one run.
	builds := [][2]string{{"", bin}}
	if spec := os.Getenv("WAVEHOOKS_COMPARE"); spec != "" {
		for _, kv := range strings.Split(spec, ",") {
			name, path, _ := strings.Cut(kv, "=")
			builds = append(builds, [2]string{"-" + name, path})
		}
	}
	project := b.TempDir()
	ms := []*measure{
		{name: "exec", run: func(int) { bareExec(b) }},
		{name: "spawn", run: func(int) { spawnExec(b) }},
	}
	ratios := [][2]string{}
	for _, bd := range builds {
		name, bin := bd[0], bd[1]
		hookHome, bareHome := b.TempDir(), b.TempDir()
		writeBenchFile(b, filepath.Join(hookHome, "settings.json"), oneTrueHook)
		hooked := startLSP(b, bin, hookHome, project)
		hooked.initialize(b, project)
		bare := startLSP(b, bin, bareHome, project)
		bare.initialize(b, project)
		hsid, bsid := hooked.sessionStart(b), bare.sessionStart(b)
		ms = append(ms,
			&measure{name: "hooked" + name, run: func(i int) { hooked.preToolUse(b, hsid, "toolu_h"+strconv.Itoa(i)) }},
			&measure{name: "nohook" + name, run: func(i int) { bare.preToolUse(b, bsid, "toolu_n"+strconv.Itoa(i)) }},
			&measure{name: "noop" + name, run: func(int) { bare.call(b, "wave/listPermissions", `{}`) }})
		ratios = append(ratios, [2]string{"hooked" + name, "exec"}, [2]string{"hooked" + name, "spawn"}, [2]string{"nohook" + name, "noop" + name})
	}
	interleave(b, 30, ms)
	report(b, ms, ratios)
	b.ReportMetric(loadAverage(), "load1")
}

// loadAverage is the machine's load over the last minute, reported beside
// the ratios: at a load well above the core count, every process start
// waits for a CPU, and the fixed cost the ratios compare drowns.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// hundredHooks is a settings file of 100 hooks over several events, none of
// which an initialize runs.
func hundredHooks() string {
	var groups []string
	for i := 0; i < 100; i++ {
		event := []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"}[i%4]
		groups = append(groups, fmt.Sprintf(`"%s":[{"matcher":"Tool%d","hooks":[{"type":"command","command":"echo hook %d >/dev/null","timeout":30}]}]`, event, i, i))
	}
	// One event key may hold many groups: merge them per event.
	byEvent := map[string][]string{}
	for _, g := range groups {
		k, v, _ := strings.Cut(g, ":")
		byEvent[k] = append(byEvent[k], strings.TrimSuffix(strings.TrimPrefix(v, "["), "]"))
	}
	var parts []string
	for k, v := range byEvent {
		parts = append(parts, k+":["+strings.Join(v, ",")+"]")
	}
	sort.Strings(parts)
	return `{"hooks":{` + strings.Join(parts, ",") + `}}`
}

// BenchmarkColdStart is issue #27's cold start, against the same floors in
// the same loop: `wavehooks serve` from its start to the answer of
// initialize with a settings file of 100 hooks (the process is then ended,
// untimed), and `wavehooks run PreToolUse` with one `true` hook from start
// to exit; and `wavehooks version`, the binary's start alone. Reported: p50
// and p90 of each and their ratios to a bare `sh -c true`.
func BenchmarkColdStart(b *testing.B) {
	bin := os.Getenv("WAVEHOOKS_BIN")
	if bin == "" {
		bin = e2eBinary(b)
	}
	serveHome, runHome, project := b.TempDir(), b.TempDir(), b.TempDir()
	writeBenchFile(b, filepath.Join(serveHome, "settings.json"), hundredHooks())
	writeBenchFile(b, filepath.Join(runHome, "settings.json"), oneTrueHook)
	input := []byte(`{"session_id":"s1","tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"ls"}}`)
	var stop []*lspClient
	ms := []*measure{
		{name: "exec", run: func(int) { bareExec(b) }},
		{name: "spawn", run: func(int) { spawnExec(b) }},
		{name: "serve-init", run: func(int) {
			c := startLSP(b, bin, serveHome, project)
			c.call(b, "initialize", fmt.Sprintf(`{"processId":%d,"rootUri":"file://%s","capabilities":{}}`, os.Getpid(), project))
			stop = append(stop, c)
		}, after: func() {
			for _, c := range stop {
				_ = c.in.Close()
				_ = c.cmd.Wait()
			}
			stop = stop[:0]
		}},
		// The binary's own start and exit, with nothing to load: the part of
		// both cold starts that is Go's runtime and the packages' init.
		{name: "version", run: func(int) {
			if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
				b.Fatalf("version: %v\n%s", err, out)
			}
		}},
		{name: "run", run: func(int) {
			cmd := exec.Command(bin, "run", "PreToolUse", "--project", project, "--wave-home", runHome)
			cmd.Stdin = bytes.NewReader(input)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("run: %v\n%s", err, out)
			}
		}},
	}
	interleave(b, 3, ms)
	report(b, ms, [][2]string{{"serve-init", "exec"}, {"run", "exec"}, {"version", "exec"}})
	b.ReportMetric(loadAverage(), "load1")
}
