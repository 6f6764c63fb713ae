package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// forwardTurn is one turn of a coding agent as an editor receives it:
// streamed text in chunks of a model's size, and tool calls with their
// updates (an edit's card, its progress, its diff). Each turn's tool ids
// are new, as an agent's are, so the proxy records each call.
func forwardTurn(turn int) []map[string]any {
	var steps []map[string]any
	say := func(n int) {
		for i := 0; i < n; i++ {
			steps = append(steps, map[string]any{"say": fmt.Sprintf("the function %d reads the file and returns ", i)})
		}
	}
	oldText := strings.Repeat("\tif err != nil {\n\t\treturn err\n\t}\n", 20)
	for k := 0; k < 3; k++ {
		id := fmt.Sprintf("call-%d-%d", turn, k)
		say(60)
		steps = append(steps,
			map[string]any{"update": map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "Edit internal/x/x.go",
				"kind": "edit", "status": "pending", "locations": []any{map[string]any{"path": "/p/internal/x/x.go"}},
				"rawInput": map[string]any{"file_path": "/p/internal/x/x.go", "old_string": oldText, "new_string": oldText + "\treturn nil\n"}}},
			map[string]any{"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress"}},
			map[string]any{"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed",
				"content": []any{map[string]any{"type": "diff", "path": "/p/internal/x/x.go", "oldText": oldText, "newText": oldText + "\treturn nil\n"}}}},
		)
	}
	say(60)
	return append(steps, map[string]any{"stop": "end_turn"})
}

// forwardScript writes a script of n turns of forwardTurn.
func forwardScript(tb testing.TB, n int) string {
	turns := make([][]map[string]any, n)
	for i := range turns {
		turns[i] = forwardTurn(i)
	}
	data, err := json.Marshal(map[string]any{"turns": turns})
	require.NoError(tb, err)
	path := filepath.Join(tb.TempDir(), "script.json")
	require.NoError(tb, os.WriteFile(path, data, 0o600))
	return path
}

// binaryProxy starts `wavehooks acp -- scriptagent` as an editor starts it:
// bin (the real binary, or another build), its stdio on pipes, no hooks
// configured.
func binaryProxy(tb testing.TB, bin, scriptPath string) (*endpoint, int) {
	dir := tb.TempDir()
	cmd := exec.Command(bin, "acp", "--wave-home", filepath.Join(dir, "home"), "--project", filepath.Join(dir, "project"), "--", scriptAgent)
	require.NoError(tb, os.MkdirAll(filepath.Join(dir, "project"), 0o700))
	cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptPath, "HOME="+dir, "WAVE_MANAGED_SETTINGS="+filepath.Join(dir, "none.json"))
	cmd.Stderr = os.Stderr
	return startEndpoint(tb, cmd)
}

// forwardBuilds are the proxies BenchmarkForwarding drives: the real binary
// (WAVEHOOKS_BIN names another build, or a wrapper that profiles it), and
// WAVEHOOKS_COMPARE=name=binary,… adds other builds to the same loop, which
// is how a change is measured against its predecessor in one run.
func forwardBuilds(tb testing.TB) [][2]string {
	bin, err := wavehooksBin()
	require.NoError(tb, err)
	if other := os.Getenv("WAVEHOOKS_BIN"); other != "" {
		bin = other
	}
	builds := [][2]string{{"proxy", bin}}
	if spec := os.Getenv("WAVEHOOKS_COMPARE"); spec != "" {
		for _, kv := range strings.Split(spec, ",") {
			name, path, _ := strings.Cut(kv, "=")
			builds = append(builds, [2]string{name, path})
		}
	}
	return builds
}

// lineRelay builds testdata/linerelay once: the floor of a proxy process.
var lineRelay = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(scriptAgent), "linerelay")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/linerelay").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building linerelay: %v: %s", err, out)
	}
	return bin, nil
})

// relayedAgent starts scriptagent behind linerelay; with record, a file,
// the relay also decodes each line's routing fields and appends it there.
func relayedAgent(tb testing.TB, scriptPath, record string) (*endpoint, int) {
	bin, err := lineRelay()
	require.NoError(tb, err)
	cmd := exec.Command(bin, scriptAgent)
	cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptPath)
	if record != "" {
		cmd.Env = append(cmd.Env, "LINERELAY_RECORD="+record)
	}
	cmd.Stderr = os.Stderr
	return startEndpoint(tb, cmd)
}

// BenchmarkForwarding is what the proxy costs an editor (issue #26's "within
// 1.1× of a direct pipe at any load", #27 item 4): the real binary,
// `wavehooks acp -- scriptagent`, and the same agent on a direct pipe, in the
// same loop, rotating which goes first; and, as the floor of any proxy
// process, the same agent behind testdata/linerelay, which only copies
// lines (relay: turn-p50-proxy/relay is what the proxy's work costs,
// turn-p50-relay/direct what a process in between costs). Each iteration is one turn of
// ~250 messages (streamed text chunks, three tool calls with their updates
// and diffs), timed from the prompt to its answer, and one request the agent
// answers at once (the latency of a single message, there and back). It
// reports p50 and p90 of each side, their ratios, the throughput, and the
// load average; with WAVEHOOKS_COMPARE, the same for each other build.
func BenchmarkForwarding(b *testing.B) {
	scriptPath := forwardScript(b, b.N+1)
	direct := directAgent(b, scriptPath)
	defer direct.close()
	relay, relayPID := relayedAgent(b, scriptPath, "")
	defer relay.close()
	names := []string{"direct", "relay"}
	sides := []*endpoint{direct, relay}
	pids := []int{0, relayPID}
	for _, bd := range forwardBuilds(b) {
		e, pid := binaryProxy(b, bd[1], scriptPath)
		defer e.close()
		names, sides, pids = append(names, bd[0]), append(sides, e), append(pids, pid)
	}
	// Last, the floor of a proxy that reads what it forwards and keeps it
	// (linerelay's LINERELAY_RECORD): turn-p50-proxy/record.
	record, recordPID := relayedAgent(b, scriptPath, filepath.Join(b.TempDir(), "record.jsonl"))
	defer record.close()
	names, sides, pids = append(names, "record"), append(sides, record), append(pids, recordPID)
	bytesPerTurn := make([]int, len(sides))
	for s, e := range sides {
		e.session(b)
		bytesPerTurn[s] = e.turnBytes(b) // warm up, and count what a turn carries
	}
	turns := make([][]time.Duration, len(sides))
	pings := make([][]time.Duration, len(sides))
	cpu0 := make([]time.Duration, len(sides))
	for s, pid := range pids {
		if pid != 0 {
			cpu0[s] = cpuTime(pid)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range sides {
			s := (i + k) % len(sides)
			e := sides[s]
			start := time.Now()
			e.turnBytes(b)
			turns[s] = append(turns[s], time.Since(start))
			start = time.Now()
			e.call(b, "_bench/ping", `{}`)
			pings[s] = append(pings[s], time.Since(start))
		}
	}
	b.StopTimer()
	q := func(d []time.Duration, f float64) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[int(f*float64(len(d)-1))].Nanoseconds()) / 1e3
	}
	dt50, dt90, dp50, dp90 := q(turns[0], 0.5), q(turns[0], 0.9), q(pings[0], 0.5), q(pings[0], 0.9)
	b.ReportMetric(dt50, "direct-turn-p50-µs")
	b.ReportMetric(float64(bytesPerTurn[0])/dt50, "direct-MB/s")
	b.ReportMetric(dp50, "direct-ping-p50-µs")
	rt50 := q(turns[1], 0.5)
	for s := 1; s < len(sides); s++ {
		n := names[s]
		if s > 1 {
			b.ReportMetric(q(turns[s], 0.5)/rt50, "turn-p50-"+n+"/relay")
		}
		// What the proxy process spent, which the machine's load hardly
		// changes, unlike the latencies (wavehooks when WAVEHOOKS_BIN is a
		// wrapper that execs it).
		b.ReportMetric(float64(cpuTime(pids[s])-cpu0[s])/float64(time.Microsecond)/float64(b.N), n+"-cpu-µs/turn")
		pt50, pt90 := q(turns[s], 0.5), q(turns[s], 0.9)
		b.ReportMetric(pt50, n+"-turn-p50-µs")
		b.ReportMetric(pt50/dt50, "turn-p50-"+n+"/direct")
		b.ReportMetric(pt90/dt90, "turn-p90-"+n+"/direct")
		b.ReportMetric(float64(bytesPerTurn[s])/pt50, n+"-MB/s")
		b.ReportMetric(q(pings[s], 0.5), n+"-ping-p50-µs")
		b.ReportMetric(q(pings[s], 0.9)-dp90, "ping-p90-added-µs"+map[bool]string{true: "", false: "-" + n}[s == 2])
	}
	b.ReportMetric(q(turns[2], 0.5)/q(turns[len(sides)-1], 0.5), "turn-p50-"+names[2]+"/record")
	b.ReportMetric(loadAvg(), "load1")
}

// turnBytes sends a prompt and reads the turn up to its answer; it returns
// how many bytes the editor read.
func (e *endpoint) turnBytes(tb testing.TB) int {
	e.nextID++
	id := fmt.Sprint(e.nextID)
	if _, err := fmt.Fprintf(e.w, `{"jsonrpc":"2.0","id":%s,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"go"}]}}`+"\n", id); err != nil {
		tb.Fatal(err)
	}
	mark := []byte(`"id":` + id + `,"jsonrpc"`)
	n := 0
	for {
		line, err := e.r.ReadSlice('\n')
		if err != nil {
			tb.Fatalf("reading: %v", err)
		}
		n += len(line)
		if bytes.Contains(line, mark) {
			return n
		}
	}
}

// cpuTime is the CPU time a process's threads have used, in nanoseconds
// from /proc/PID/task/*/schedstat (0 where there is none).
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		_, _ = fmt.Sscan(string(data), &ns)
		total += time.Duration(ns)
	}
	return total
}

// loadAvg is the machine's one-minute load average (0 where /proc has none).
func loadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	_, _ = fmt.Sscan(string(data), &l)
	return l
}
