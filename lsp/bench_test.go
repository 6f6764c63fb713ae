package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/lsp"
)

// pipeClient is the thinnest possible LSP client over two OS pipes, so the
// benchmarks measure the server's request path and not a client library.
type pipeClient struct {
	// onNotify, when set before the first notification, receives each notification body.
	onNotify func(body []byte)

	w    *os.File
	r    *bufio.Reader
	wmu  sync.Mutex
	seq  atomic.Int64
	mu   sync.Mutex
	wait map[int64]chan []byte
	done chan struct{}
}

type pipeRWC struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeRWC) Close() error {
	for _, c := range p.closers {
		_ = c.Close()
	}
	return nil
}

// startPipeServer runs a server on OS pipes and initializes it.
func startPipeServer(b *testing.B, settings string) *pipeClient {
	b.Helper()
	c, _ := startPipeServerIn(b, b.TempDir(), settings, nil)
	return c
}

// startPipeServerIn starts a server with WAVE_HOME home; onNotify gets every notification.
func startPipeServerIn(b *testing.B, home, settings string, onNotify func([]byte)) (*pipeClient, string) {
	b.Helper()
	root := b.TempDir()
	if settings != "" {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	toServerR, toServerW, _ := os.Pipe()
	fromServerR, fromServerW, _ := os.Pipe()
	srv := lsp.NewServer(lsp.Options{})
	exited := make(chan struct{})
	go func() {
		srv.Serve(context.Background(), pipeRWC{Reader: toServerR, Writer: fromServerW, closers: []io.Closer{toServerR, fromServerW}})
		close(exited)
	}()
	c := &pipeClient{onNotify: onNotify, w: toServerW, r: bufio.NewReaderSize(fromServerR, 64<<10), wait: map[int64]chan []byte{}, done: make(chan struct{})}
	go c.readLoop()
	b.Cleanup(func() {
		c.call("shutdown", nil)
		c.send([]byte(`{"jsonrpc":"2.0","method":"exit"}`))
		<-exited
		_ = toServerW.Close()
		_ = fromServerR.Close()
		<-c.done
	})
	c.call("initialize", map[string]any{"rootUri": string(uri.File(root)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": home}})
	c.send([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
	return c, root
}

func (c *pipeClient) readLoop() {
	defer close(c.done)
	for {
		body, err := readFrame(c.r)
		if err != nil {
			return
		}
		// Responses start {"jsonrpc":"2.0","id":N (as jsonrpc2 writes them);
		// anything else is a notification or a server request, not measured here.
		id, ok := responseID(body)
		if !ok {
			if c.onNotify != nil {
				c.onNotify(body)
			}
			continue
		}
		c.mu.Lock()
		ch := c.wait[id]
		delete(c.wait, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- body
		}
	}
}

// responseID finds the id of a response, which jsonrpc2 writes last:
// {"jsonrpc":"2.0","result":...,"id":N}. Notifications and server requests
// (which carry "method") are not part of these benchmarks.
func responseID(body []byte) (int64, bool) {
	const key = `,"id":`
	i := strings.LastIndex(string(body), key)
	if i < 0 || bytesContains(body, `"method":`) {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimSuffix(string(body[i+len(key):]), "}"), 10, 64)
	return id, err == nil
}

func bytesContains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := cutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(string(v[:len(v)-2]))
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) >= len(p) && string(b[:len(p)]) == p {
		return b[len(p):], true
	}
	return nil, false
}

func (c *pipeClient) send(body []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	frame := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	if _, err := c.w.Write(frame); err != nil {
		panic(err)
	}
}

// call sends a request with pre-encoded params and waits for its response.
func (c *pipeClient) callRaw(method string, params []byte) []byte {
	id := c.seq.Add(1)
	ch := make(chan []byte, 1)
	c.mu.Lock()
	c.wait[id] = ch
	c.mu.Unlock()
	body := make([]byte, 0, 128+len(params))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, `,"method":"`...)
	body = append(body, method...)
	body = append(body, `","params":`...)
	body = append(body, params...)
	body = append(body, '}')
	c.send(body)
	return <-ch
}

func (c *pipeClient) call(method string, params any) []byte {
	p, _ := json.Marshal(params)
	if params == nil {
		p = []byte("null")
	}
	return c.callRaw(method, p)
}

func startedSession(b *testing.B, c *pipeClient) string {
	var r struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(c.call("wave/sessionStart", map[string]any{}), &r); err != nil || r.Result.SessionID == "" {
		b.Fatalf("sessionStart: %v", err)
	}
	return r.Result.SessionID
}

// BenchmarkPipeBaseline is the floor: a Content-Length-framed echo over two
// OS pipes, with no JSON-RPC at all, measured in the same run as the server.
func BenchmarkPipeBaseline(b *testing.B) {
	toR, toW, _ := os.Pipe()
	fromR, fromW, _ := os.Pipe()
	defer toW.Close()
	defer fromR.Close()
	go func() {
		defer fromW.Close()
		r := bufio.NewReader(toR)
		for {
			body, err := readFrame(r)
			if err != nil {
				return
			}
			if _, err := fromW.Write(append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)); err != nil {
				return
			}
		}
	}()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"wave/preToolUse","params":{"sessionId":"abc","toolUseId":"t","toolName":"Read","toolInput":{}}}`)
	frame := append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	r := bufio.NewReader(fromR)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := toW.Write(frame); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(r, make([]byte, len(frame))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreToolUseNoHook is the round trip of wave/preToolUse when no
// hook matches: sequential (latency, with p50/p99) and with 64 requests in
// flight (throughput, reported as req/s).
func BenchmarkPreToolUseNoHook(b *testing.B) {
	settings := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`
	c := startPipeServer(b, settings)
	sid := startedSession(b, c)
	params := []byte(fmt.Sprintf(`{"sessionId":%q,"toolUseId":"t1","toolName":"Read","toolInput":{"file_path":"/x"}}`, sid))
	b.Run("sequential", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			start := time.Now()
			c.callRaw("wave/preToolUse", params)
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	b.Run("64-in-flight", func(b *testing.B) {
		b.SetParallelism(32) // 32 × GOMAXPROCS(2) = 64 concurrent callers
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.callRaw("wave/preToolUse", params)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkPreToolUseOneTrueHook compares a wave/preToolUse round trip with
// one matching `true` hook against a bare `sh -c true`, alternating the two
// in each iteration so machine noise hits both alike.
func BenchmarkPreToolUseOneTrueHook(b *testing.B) {
	c := startPipeServer(b, `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`)
	sid := startedSession(b, c)
	params := []byte(fmt.Sprintf(`{"sessionId":%q,"toolUseId":"t1","toolName":"Read","toolInput":{"file_path":"/x"}}`, sid))
	var base, rt time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		c.callRaw("wave/preToolUse", params)
		base, rt = base+t1.Sub(t0), rt+time.Since(t1)
	}
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(rt.Nanoseconds())/float64(b.N), "roundtrip-ns/op")
	b.ReportMetric(float64(rt)/float64(base), "roundtrip/baseline")
}

// BenchmarkSettingsWriteToDiagnostics is the time from a settings file being
// saved (rename over, as editors do) to its new diagnostics reaching the
// editor, debounce (50 ms, the server's default) included.
func BenchmarkSettingsWriteToDiagnostics(b *testing.B) {
	home := b.TempDir()
	settings := filepath.Join(home, "settings.json")
	published := make(chan string, 64)
	_, _ = startPipeServerIn(b, home, `{}`, func(body []byte) {
		if strings.Contains(string(body), "publishDiagnostics") && strings.Contains(string(body), "settings.json") {
			published <- string(body)
		}
	})
	texts := []string{`{"hooks": {"Stopp": []}}`, `{"hooks": {"PreToolUs": []}}`}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := texts[i%2]
		want := map[int]string{0: "Stopp", 1: "PreToolUs"}[i%2]
		start := time.Now()
		tmp := settings + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, settings); err != nil {
			b.Fatal(err)
		}
		for body := range published {
			if strings.Contains(body, want) {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
