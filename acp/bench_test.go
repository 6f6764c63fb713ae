package acp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchScript streams a turn of chunks for every prompt.
func benchScript(t testing.TB, chunks int) string {
	path := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"every": [{"chunks": {"n": `+strconv.Itoa(chunks)+`}}, {"stop": "end_turn"}]}`), 0o600))
	return path
}

// endpoint is the editor's side of a connection to an agent, direct or
// through the proxy: it writes lines and reads lines, nothing more, so that
// what it costs is the same in both.
type endpoint struct {
	w      io.Writer
	r      *bufio.Reader
	nextID int
	close  func()
}

// call sends a request and reads lines until its answer; it returns how
// many lines came before it.
func (e *endpoint) call(tb testing.TB, method, params string) int {
	e.nextID++
	id := strconv.Itoa(e.nextID)
	if _, err := io.WriteString(e.w, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+"}\n"); err != nil {
		tb.Fatal(err)
	}
	// The scripted agent is a Go program: its answers have their keys sorted.
	mark := []byte(`"id":` + id + `,"jsonrpc"`)
	for n := 0; ; n++ {
		line, err := e.r.ReadSlice('\n')
		if err != nil {
			tb.Fatalf("reading: %v", err)
		}
		if bytes.Contains(line, mark) {
			return n
		}
	}
}

func (e *endpoint) session(tb testing.TB) string {
	e.call(tb, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	e.call(tb, "session/new", `{"cwd":"/","mcpServers":[]}`)
	return "sess-1"
}

// directAgent starts the scripted agent with the endpoint on its stdio.
func directAgent(tb testing.TB, scriptPath string) *endpoint {
	cmd := exec.Command(scriptAgent)
	cmd.Env = append(os.Environ(), "AGENT_SCRIPT="+scriptPath)
	e, _ := startEndpoint(tb, cmd)
	return e
}

// startEndpoint starts cmd with the endpoint on its stdio, as an editor
// starts an agent or a proxy, and returns the endpoint and the process id.
func startEndpoint(tb testing.TB, cmd *exec.Cmd) (*endpoint, int) {
	in, err := cmd.StdinPipe()
	require.NoError(tb, err)
	out, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	require.NoError(tb, cmd.Start())
	return &endpoint{w: in, r: bufio.NewReaderSize(out, 1<<16), close: func() {
		_ = in.Close()
		_ = cmd.Wait()
	}}, cmd.Process.Pid
}

// proxiedAgent starts the proxy, over OS pipes as an editor starts it, with
// the scripted agent behind it and no hooks configured.
func proxiedAgent(tb testing.TB, scriptPath string) (*endpoint, *Proxy) {
	inR, inW, err := os.Pipe()
	require.NoError(tb, err)
	outR, outW, err := os.Pipe()
	require.NoError(tb, err)
	done := make(chan struct{})
	started := make(chan *Proxy, 1)
	go func() {
		defer close(done)
		runProxy(context.Background(), Options{Agent: []string{scriptAgent}, AgentEnv: append(os.Environ(), "AGENT_SCRIPT="+scriptPath),
			WaveHome: tb.TempDir(), ProjectRoot: tb.TempDir()}, inR, outW, started)
		_ = outW.Close()
	}()
	return &endpoint{w: inW, r: bufio.NewReaderSize(outR, 1<<16), close: func() {
		_ = inW.Close()
		<-done
		_ = outR.Close()
	}}, <-started
}

// BenchmarkStreamingTurn is a prompt answered with 1,000 text chunks, one
// write each, read by the editor: straight from the agent ("direct") and
// through the proxy ("proxy"), in the same run. docs/performance.md has the ratio.
func BenchmarkStreamingTurn(b *testing.B) {
	const chunks = 1000
	scriptPath := benchScript(b, chunks)
	for _, mode := range []string{"direct", "proxy"} {
		b.Run(mode, func(b *testing.B) {
			var e *endpoint
			if mode == "direct" {
				e = directAgent(b, scriptPath)
			} else {
				e, _ = proxiedAgent(b, scriptPath)
			}
			defer e.close()
			sess := e.session(b)
			prompt := `{"sessionId":"` + sess + `","prompt":[{"type":"text","text":"go"}]}`
			e.call(b, "session/prompt", prompt) // warm up
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if n := e.call(b, "session/prompt", prompt); n != chunks {
					b.Fatalf("%d chunks, want %d", n, chunks)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(chunks+1), "ns/message")
		})
	}
}

// BenchmarkRoundTrip is one request the agent answers at once (an unknown
// method: the agent answers with an error), one at a time: the latency a
// message gains through the proxy, twice (there and back). It reports the
// median.
func BenchmarkRoundTrip(b *testing.B) {
	scriptPath := benchScript(b, 0)
	for _, mode := range []string{"direct", "proxy"} {
		b.Run(mode, func(b *testing.B) {
			var e *endpoint
			if mode == "direct" {
				e = directAgent(b, scriptPath)
			} else {
				e, _ = proxiedAgent(b, scriptPath)
			}
			defer e.close()
			e.session(b)
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				e.call(b, "_bench/ping", `{}`)
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
		})
	}
}

// The proxy's memory stays flat over a turn of 100,000 chunks: what it
// keeps grows with the agent's text (gathered for the transcript), not with
// the number of messages passed on.
func TestMemoryFlatOverALongTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100,000-chunk turn")
	}
	const chunks = 100_000
	scriptPath := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(scriptPath, []byte(`{"turns": [[{"chunks": {"n": 10000}}, {"chunks": {"n": 90000}}, {"stop": "end_turn"}]]}`), 0o600))
	e, p := proxiedAgent(t, scriptPath)
	defer e.close()
	sess := e.session(t)
	_, err := io.WriteString(e.w, `{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{"sessionId":"`+sess+`","prompt":[{"type":"text","text":"go"}]}}`+"\n")
	require.NoError(t, err)
	heapAt := map[int]uint64{}
	textAt := map[int]int{}
	for n := 0; ; n++ {
		line, err := e.r.ReadSlice('\n')
		require.NoError(t, err)
		if n == 10_000 || n == 50_000 || n == 90_000 {
			heapAt[n], textAt[n] = heapInUse(), p.gatheredText(sess)
		}
		if bytes.HasPrefix(line, []byte(`{"id":99,`)) {
			require.Equal(t, chunks, n)
			break
		}
	}
	grew := int64(heapAt[90_000]) - int64(heapAt[10_000])
	text := textAt[90_000] - textAt[10_000]
	t.Logf("heap in use after 10,000 chunks: %.2f MiB; 50,000: %.2f MiB; 90,000: %.2f MiB; grew %.2f MiB while the gathered text grew %.2f MiB (80,000 messages of ~150 bytes passed: %.1f MiB)",
		mib(heapAt[10_000]), mib(heapAt[50_000]), mib(heapAt[90_000]), float64(grew)/(1<<20), float64(text)/(1<<20), float64(80_000*150)/(1<<20))
	require.Greater(t, text, 0)
	// The text buffer may hold up to twice the text; a few MiB of slack
	// cover the runtime. Keeping the messages would cost about 13 MiB.
	require.Less(t, grew, int64(2*text)+4<<20, "the proxy's memory grew with the messages passed, not just the text")
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// gatheredText is how much of the agent's current message the proxy holds.
func (p *Proxy) gatheredText(acpID string) int {
	p.mu.Lock()
	st := p.sessions[acpID]
	p.mu.Unlock()
	if st == nil {
		return 0
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.text)
}

// BenchmarkChunkHandling is the proxy's own work for one streamed text chunk
// from the agent (read, parse, pass on, gather the text), without pipes or
// processes: what the proxy adds to a message besides the extra hop.
func BenchmarkChunkHandling(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk 123 of a streamed answer "}}}}` + "\n")
	p := &Proxy{log: slog.New(slog.NewTextHandler(io.Discard, nil)), editorOut: newLineWriter(io.Discard), agentIn: newLineWriter(io.Discard),
		sessions: map[string]*sessState{}, loading: map[string]int{}}
	p.sessions["s1"] = newSessState(context.Background(), "s1", nil, nil, false)
	input := bytes.Repeat(line, b.N)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	b.ResetTimer()
	p.readAgent(bytes.NewReader(input))
	b.StopTimer()
	if got := p.gatheredText("s1"); got != b.N*len("chunk 123 of a streamed answer ") {
		b.Fatalf("gathered %d bytes of text", got)
	}
}
