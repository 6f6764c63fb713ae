package telemetry_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// BenchmarkHookedCallWithExport is the hooked call as a host makes it — a
// PreToolUse whose `true` hook runs through the whole engine, then the
// run recorded in the history — once into a history without observers and
// once into one whose exporter sends to a real collector on loopback. The
// two alternate within each iteration (and which goes first alternates),
// so the machine's noise hits both alike; export/plain is the ratio the goal (≤ 1.05) is about.
func BenchmarkHookedCallWithExport(b *testing.B) {
	col := startCollector(b, otelcol(b))
	home, root := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"),
		[]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	engine := hooks.NewEngine(settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil))
	defer engine.Close()
	x, err := telemetry.New(telemetry.Config{Logs: telemetry.Signal{URL: fmt.Sprintf("http://127.0.0.1:%d/v1/logs", col.port)},
		Traces: telemetry.Signal{URL: fmt.Sprintf("http://127.0.0.1:%d/v1/traces", col.port)}}, hooks.RunLogDir(home), "bench")
	if err != nil {
		b.Fatal(err)
	}
	plain, exported := hooks.NewHistory(0), hooks.NewHistory(0)
	exported.Observe(x)
	in := event.Input{SessionID: "sess_bench", Cwd: root, Event: event.PreToolUse, ToolName: "Bash", ToolUseID: "toolu_1",
		ToolInput: []byte(`{"command":"ls -la"}`)}
	call := func(h *hooks.History) {
		res := engine.Fire(context.Background(), in)
		if len(res.Runs) != 1 || !res.Runs[0].Ran {
			b.Fatalf("the hook did not run: %+v", res.Runs)
		}
		h.Add(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res))
	}
	var withOut, with time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Which goes first alternates too: the first call of a pair was
		// measured slower whichever history it recorded into.
		first, second := plain, exported
		if i%2 == 1 {
			first, second = exported, plain
		}
		t0 := time.Now()
		call(first)
		t1 := time.Now()
		call(second)
		d0, d1 := t1.Sub(t0), time.Since(t1)
		if i%2 == 1 {
			d0, d1 = d1, d0
		}
		withOut, with = withOut+d0, with+d1
	}
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.CloseTimeout)
	defer cancel()
	x.Close(ctx)
	b.ReportMetric(float64(withOut.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(with.Nanoseconds())/float64(b.N), "export-ns/op")
	b.ReportMetric(float64(with)/float64(withOut), "export/plain")
	b.ReportMetric(float64(x.Dropped()), "dropped")
}
