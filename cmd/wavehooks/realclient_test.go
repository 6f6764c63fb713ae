package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/session"
)

// The benchmarks in this file run the real wavehooks binary driven by a real
// editor client in a separate process: editors/vscode/bench/client.js, on the
// VS Code extension's vscode-jsonrpc (npm ci in editors/vscode first; they
// are skipped otherwise). Every figure is reported with a baseline from the
// same run: the "floor" is a no-op request (wave/listPermissions) through
// the same client, made after every turn, so that it sees the same state of
// the machine. Run them with -benchtime 1x: one iteration is a whole
// scenario (make bench does). WAVEHOOKS_BENCH_TURNS shortens the long ones.

// nodeClient is a running bench/client.js.
type nodeClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	pid int // the server's
}

func clientScript(b *testing.B) string {
	b.Helper()
	dir, err := filepath.Abs("../../editors/vscode")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-jsonrpc")); err != nil {
		b.Skip("no vscode-jsonrpc: run npm ci in editors/vscode")
	}
	return filepath.Join(dir, "bench", "client.js")
}

// startClient starts the client, which starts the server on WAVE_HOME home.
func startClient(b *testing.B, home string) *nodeClient {
	b.Helper()
	script := clientScript(b)
	bin := os.Getenv("WAVEHOOKS_BIN") // a binary built elsewhere, to compare builds
	if bin == "" {
		bin = e2eBinary(b)
	}
	root := b.TempDir()
	cmd := exec.Command("node", script, bin)
	cmd.Dir = filepath.Dir(script)
	in, out := startPiped(b, cmd)
	c := &nodeClient{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	c.out.Buffer(make([]byte, 1<<20), 1<<26)
	b.Cleanup(func() {
		c.do(b, map[string]any{"op": "stop"}, nil)
		_ = in.Close()
		_ = cmd.Wait()
	})
	var started struct{ Pid int }
	c.do(b, map[string]any{"op": "start", "home": home, "root": root}, &started)
	c.pid = started.Pid
	return c
}

// do sends one command and decodes its answer into out.
func (c *nodeClient) do(b *testing.B, cmd map[string]any, out any) {
	b.Helper()
	line, _ := json.Marshal(cmd)
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		b.Fatalf("%s: %v", cmd["op"], err)
	}
	if !c.out.Scan() {
		b.Fatalf("%s: the client ended: %v", cmd["op"], c.out.Err())
	}
	var e struct{ Error string }
	if json.Unmarshal(c.out.Bytes(), &e) == nil && e.Error != "" {
		b.Fatalf("%s: %s", cmd["op"], e.Error)
	}
	if out != nil {
		if err := json.Unmarshal(c.out.Bytes(), out); err != nil {
			b.Fatalf("%s: %v: %s", cmd["op"], err, c.out.Bytes())
		}
	}
}

func (c *nodeClient) session(b *testing.B, id, source string) (string, float64) {
	var r struct {
		SessionID string
		Us        float64
	}
	c.do(b, map[string]any{"op": "session", "sessionId": id, "source": source}, &r)
	return r.SessionID, r.Us
}

// turnStats is what client.js reports for a run of turns.
type turnStats struct {
	PreFirstP50, PreLastP50, PreP50       float64
	FloorFirstP50, FloorLastP50, FloorP50 float64
	ChangedBytesFirst, ChangedBytesLast   float64
	NotifyBytesFirst, NotifyBytesLast     float64
	ChangedBytesTotal, TurnUs             float64
}

func (c *nodeClient) turns(b *testing.B, sid string, n, window int, pattern string) turnStats {
	var s turnStats
	c.do(b, map[string]any{"op": "turns", "sessionId": sid, "n": n, "window": window, "pattern": pattern}, &s)
	return s
}

func benchTurns(def int) int {
	if n, err := strconv.Atoi(os.Getenv("WAVEHOOKS_BENCH_TURNS")); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkRealClientTurns: 10,000 agent turns with fresh tool ids
// (addAssistantMessage with a text and a tool block, preToolUse,
// postToolUse) on one session, no hook configured. Reported: preToolUse's
// p50 in the last 1,000 turns against the first 1,000, against the floor,
// and the bytes of wave/sessionChanged per turn, late against early.
func BenchmarkRealClientTurns(b *testing.B) {
	benchRealTurns(b, "turn")
}

// BenchmarkRealClientProxyCalls is BenchmarkRealClientTurns for a client
// that reports tool calls through preToolUse and postToolUse only.
func BenchmarkRealClientProxyCalls(b *testing.B) {
	benchRealTurns(b, "pre-post")
}

func benchRealTurns(b *testing.B, pattern string) {
	n := benchTurns(10000)
	window := max(n/10, 1)
	for i := 0; i < b.N; i++ {
		c := startClient(b, b.TempDir())
		sid, _ := c.session(b, "", "")
		s := c.turns(b, sid, n, window, pattern)
		b.ReportMetric(s.PreFirstP50, "pre-first-p50-µs")
		b.ReportMetric(s.PreLastP50, "pre-last-p50-µs")
		b.ReportMetric(s.PreLastP50/s.PreFirstP50, "pre-last/first")
		b.ReportMetric(s.FloorP50, "floor-p50-µs")
		b.ReportMetric(s.PreP50/s.FloorP50, "pre/floor")
		b.ReportMetric(s.ChangedBytesFirst, "changed-B/turn-first")
		b.ReportMetric(s.ChangedBytesLast, "changed-B/turn-last")
		b.ReportMetric(s.ChangedBytesLast/s.ChangedBytesFirst, "changed-B-last/first")
		b.ReportMetric(s.NotifyBytesLast/s.NotifyBytesFirst, "notify-B-last/first")
		b.ReportMetric(s.TurnUs, "µs/turn")
	}
}

// BenchmarkRealClientConcurrentSessions: 50 sessions at once, each running
// 100 turns in order; preToolUse's p50 against the p50 of 50 concurrent
// no-op requests, and turns per second.
func BenchmarkRealClientConcurrentSessions(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := startClient(b, b.TempDir())
		var r struct{ PreP50, FloorP50, TurnsPerSecond float64 }
		c.do(b, map[string]any{"op": "concurrent", "sessions": 50, "turns": benchTurns(1000) / 10}, &r)
		b.ReportMetric(r.PreP50, "pre-p50-µs")
		b.ReportMetric(r.FloorP50, "floor-p50-µs")
		b.ReportMetric(r.PreP50/r.FloorP50, "pre/floor")
		b.ReportMetric(r.TurnsPerSecond, "turns/s")
	}
}

// writeSession makes a session of n messages in the given format in home's
// sessions directory through the session package, as a long conversation
// leaves it: prompts, and replies with a text and a tool call with its
// result. text is the length of each text.
func writeSession(b *testing.B, home, id string, format session.Format, n, text int) (path string, size int64) {
	b.Helper()
	st, err := session.NewStore(session.Options{WaveHome: home, Format: format})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := st.Create(id)
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Repeat("All work and no play makes Jack a dull boy. ", text/44+1)[:text]
	ok := true
	for i := 0; i < n; i += 2 {
		if _, err := s.UserPromptSubmit(context.Background(), words); err != nil {
			b.Fatal(err)
		}
		blocks := []session.Block{{Type: session.BlockText, Content: words},
			session.ToolBlock(session.Tool{ID: fmt.Sprintf("toolu_old_%d", i), Name: "Read", Input: json.RawMessage(`{"file_path":"/src/main.go"}`), Result: "package main\n\nfunc main() {}", Success: &ok})}
		if err := s.AddAssistantMessage(blocks); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(s.TranscriptPath())
	if err != nil {
		b.Fatal(err)
	}
	return s.TranscriptPath(), fi.Size()
}

// procMemory reads a process's resident memory and its peak, in bytes.
func procMemory(b *testing.B, pid int) (rss, peak int64) {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v * 1024
		case "VmHWM:":
			peak = v * 1024
		}
	}
	return rss, peak
}

// BenchmarkRealClientLargeSession resumes a session of 10,000 messages of
// about 2 KB (20 MB) and runs 1,000 turns on it: the resume against the
// floor, the server's memory against the file, and the turns' preToolUse
// p50 against the same turns on a new session in the same server.
func BenchmarkRealClientLargeSession(b *testing.B) {
	benchLargeSession(b, session.FormatJSON, 10000, 2000)
}

// BenchmarkRealClientHundredThousandMessages is the same with a session of
// 100,000 messages of about 300 bytes, in each transcript format (issue #27
// item 6: the resume's peak RSS at most twice the file).
func BenchmarkRealClientHundredThousandMessages(b *testing.B) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		b.Run(string(format), func(b *testing.B) { benchLargeSession(b, format, 100000, 100) })
	}
}

func benchLargeSession(b *testing.B, format session.Format, messages, text int) {
	n := benchTurns(10000) / 10
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		home := b.TempDir()
		_, size := writeSession(b, home, "large-session", format, messages, text)
		b.StartTimer()
		c := startClient(b, home)
		fresh, _ := c.session(b, "", "")
		warm := c.turns(b, fresh, n, max(n/2, 1), "turn")
		time.Sleep(100 * time.Millisecond)
		rss0, _ := procMemory(b, c.pid)
		_, resumeUs := c.session(b, "large-session", "resume")
		rss1, peak := procMemory(b, c.pid)
		var floor struct{ Us float64 }
		c.do(b, map[string]any{"op": "noop"}, &floor)
		s := c.turns(b, "large-session", n, max(n/2, 1), "turn")
		b.ReportMetric(float64(size)/1e6, "file-MB")
		b.ReportMetric(resumeUs/1e3, "resume-ms")
		b.ReportMetric(float64(rss1-rss0)/float64(messages), "rss-B/message")
		b.ReportMetric(float64(peak-rss0)/float64(size), "peak/file")
		b.ReportMetric(s.PreP50, "pre-p50-µs")
		b.ReportMetric(s.PreP50/s.FloorP50, "pre/floor")
		b.ReportMetric(s.PreP50/warm.PreP50, "pre/new-session")
		b.ReportMetric(s.ChangedBytesLast/warm.ChangedBytesLast, "changed-B/new-session")
	}
}

// BenchmarkRealClientOneTrueHook alternates, in each iteration, a bare
// `sh -c true` (Go os/exec with stdio unset, here) and one wave/preToolUse
// through the client with one matching `true` hook, for a new tool call
// each time as an agent makes them (so the session is saved and the editor
// told, as in use): the hook round trip against the fork/exec it cannot
// avoid. The client times its request itself, so the control line between
// the two processes is not in the figure. Reported as p50 and p90 (a mean
// lets a few slow forks on a loaded machine set the ratio), with the load:
// at a load far above the core count every fork waits for a CPU and the
// ratio tends to 1 whatever the server costs (docs/performance.md).
// BenchmarkHookedCall (hookcost_test.go) is the same with a Go client.
// roundtrip/floor is issue #39 item 1: against the composed floor, the
// client's no-op round trip plus `sh -c true` fed 1 KiB on stdin with its
// output captured, each measured in the same iteration (goal ≤ 1.1×).
func BenchmarkRealClientOneTrueHook(b *testing.B) {
	home := b.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"),
		[]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	c := startClient(b, home)
	sid, _ := c.session(b, "", "")
	for i := 0; i < 50; i++ { // warm both paths up
		c.do(b, map[string]any{"op": "pre", "sessionId": sid, "id": fmt.Sprintf("warm_%d", i)}, nil)
	}
	// Per iteration, rotating: a bare `sh -c true`; the composed floor of
	// issue #39 item 1 — the client's no-op round trip plus `sh -c true`
	// given 1 KiB on stdin with its stdout and stderr captured, as a hook
	// is run; and the hooked round trip.
	stdin := bytes.Repeat([]byte("x"), 1<<10)
	base, rt := &measure{name: "exec"}, &measure{name: "roundtrip"}
	noop, execio, floor := &measure{name: "noop"}, &measure{name: "execio"}, &measure{name: "floor"}
	steps := []func(i int){
		func(int) {
			t0 := time.Now()
			if err := exec.Command("sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
			base.lat = append(base.lat, time.Since(t0))
		},
		func(int) {
			var r struct{ Us float64 }
			c.do(b, map[string]any{"op": "noop"}, &r)
			noop.lat = append(noop.lat, time.Duration(r.Us*1e3))
		},
		func(int) {
			t0 := time.Now()
			cmd := exec.Command("sh", "-c", "true")
			var out, errOut bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errOut
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			execio.lat = append(execio.lat, time.Since(t0))
		},
		func(i int) {
			var r struct{ Us float64 }
			c.do(b, map[string]any{"op": "pre", "sessionId": sid, "id": fmt.Sprintf("toolu_%d", i)}, &r)
			rt.lat = append(rt.lat, time.Duration(r.Us*1e3))
		},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range steps {
			steps[(i+k)%len(steps)](i)
		}
		floor.lat = append(floor.lat, noop.lat[i]+execio.lat[i])
	}
	report(b, []*measure{base, noop, execio, floor, rt}, [][2]string{{"roundtrip", "exec"}, {"roundtrip", "floor"}})
	b.ReportMetric(loadAverage(), "load1")
}
