package lsp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/lsp"
)

// startPipeServer runs a server on two OS pipes, as `wavehooks serve` runs
// on stdio, with these user settings and the server's own debounce, and
// initializes it.
func startPipeServer(b *testing.B, settings string) *editor {
	b.Helper()
	return startEditor(b, editorOpts{settings: settings, bench: true, serverOpt: lsp.Options{Debounce: -1}})
}

// roundTrip sends a request with pre-encoded params and returns its
// response, failing the benchmark if there is none.
func roundTrip(b *testing.B, c *editor, method string, params []byte) *message {
	m, err := c.callRaw(method, params, time.Minute)
	if err != nil {
		b.Error(err) // not Fatal: RunParallel's goroutines call this too
		return &message{}
	}
	return m
}

func startedSession(b *testing.B, c *editor) string {
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("wave/sessionStart", map[string]any{}, &r); err != nil || r.SessionID == "" {
		b.Fatalf("sessionStart: %v", err)
	}
	return r.SessionID
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
			body, err := readFrame(r, func(error) {})
			if err != nil {
				return
			}
			if _, err := fromW.Write(appendFrame(nil, body)); err != nil {
				return
			}
		}
	}()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"wave/preToolUse","params":{"sessionId":"abc","toolUseId":"t","toolName":"Read","toolInput":{}}}`)
	frame := appendFrame(nil, body)
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
			roundTrip(b, c, "wave/preToolUse", params)
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	b.Run("64-in-flight", func(b *testing.B) {
		b.SetParallelism(32) // 32 × GOMAXPROCS(2) = 64 concurrent callers
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				roundTrip(b, c, "wave/preToolUse", params)
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
		roundTrip(b, c, "wave/preToolUse", params)
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
	startEditor(b, editorOpts{home: home, settings: `{}`, bench: true, serverOpt: lsp.Options{Debounce: -1},
		onNotify: func(method string, params json.RawMessage) {
			if method == "textDocument/publishDiagnostics" && strings.Contains(string(params), "settings.json") {
				published <- string(params)
			}
		}})
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
