package hooks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// BenchmarkOneTrueHook compares one matching `true` hook through the whole
// engine (match, stdin JSON, process group, in-memory files, parse, combine)
// with a bare exec.Command("sh", "-c", "true"). The two alternate within each
// iteration, so machine noise hits both alike; ns/op is the engine's cost,
// and engine/baseline is the ratio the target is about.
func BenchmarkOneTrueHook(b *testing.B) {
	e, root := benchEngine(b, one(event.PreToolUse, "true"))
	in := input(event.PreToolUse, root)
	var base, eng time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if res := e.Fire(context.Background(), in); !res.Runs[0].Ran || res.Runs[0].ExitCode != 0 {
			b.Fatalf("hook did not run: %+v", res.Runs[0])
		}
		base, eng = base+t1.Sub(t0), eng+time.Since(t1)
	}
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(eng.Nanoseconds())/float64(b.N), "engine-ns/op")
	b.ReportMetric(float64(eng)/float64(base), "engine/baseline")
}

// BenchmarkNoMatchingHook is an event whose hooks all have matchers that do
// not match: the cost every tool call pays when no hook applies to it.
func BenchmarkNoMatchingHook(b *testing.B) {
	e, root := benchEngine(b, `{"hooks":{"PreToolUse":[
		{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]},
		{"matcher":"Write|Edit","hooks":[{"type":"command","command":"true"}]},
		{"matcher":"mcp__.*","hooks":[{"type":"command","command":"true"}]}]}}`)
	in := input(event.PreToolUse, root)
	in.ToolName = "Read"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := e.Fire(context.Background(), in); res.Ran() {
			b.Fatal("a hook ran")
		}
	}
}

// BenchmarkTenParallelSleeps runs 10 matching hooks that each sleep 200 ms:
// they run in parallel, so an event costs about one sleep, not ten.
func BenchmarkTenParallelSleeps(b *testing.B) {
	var cmds []string
	for i := 0; i < 10; i++ {
		cmds = append(cmds, fmt.Sprintf(`{"type":"command","command":"sleep 0.2; : %d"}`, i))
	}
	e, root := benchEngine(b, `{"hooks":{"Stop":[{"hooks":[`+strings.Join(cmds, ",")+`]}]}}`)
	in := input(event.Stop, root)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := e.Fire(context.Background(), in); len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
	}
}

func benchEngine(b *testing.B, settings string) (*hooks.Engine, string) {
	home, root := b.TempDir(), b.TempDir()
	cfg := writeAndLoad(b, home, root, settings)
	return hooks.NewEngine(cfg), root
}

// BenchmarkTrustedWorkspaceScript measures what trust costs an event: the
// same script hook from the user's settings (never checked) and from a
// trusted project, whose script is checked unchanged before each event
// (a stat when it is older than the racy window, a read and hash before).
// The two alternate within each iteration; workspace/user is the ratio.
func BenchmarkTrustedWorkspaceScript(b *testing.B) {
	home, root := b.TempDir(), b.TempDir()
	script := filepath.Join(root, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	settingsJSON := one(event.PreToolUse, "./hook.sh")
	if err := os.MkdirAll(filepath.Join(root, ".wave"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".wave", "settings.json"), []byte(settingsJSON), 0o644); err != nil {
		b.Fatal(err)
	}
	work := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil)
	ws := hooks.NewEngine(work)
	ws.Install(trust.Resolve(work, true))
	user, _ := benchEngine(b, one(event.PreToolUse, script))
	in := input(event.PreToolUse, root)
	var tu, tw time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if res := user.Fire(context.Background(), in); !res.Runs[0].Ran {
			b.Fatalf("user hook did not run: %+v", res.Runs[0])
		}
		t1 := time.Now()
		if res := ws.Fire(context.Background(), in); !res.Runs[0].Ran {
			b.Fatalf("workspace hook did not run: %+v", res.Runs[0])
		}
		tu, tw = tu+t1.Sub(t0), tw+time.Since(t1)
	}
	b.ReportMetric(float64(tu.Nanoseconds())/float64(b.N), "user-ns/op")
	b.ReportMetric(float64(tw.Nanoseconds())/float64(b.N), "workspace-ns/op")
	b.ReportMetric(float64(tw)/float64(tu), "workspace/user")
}
