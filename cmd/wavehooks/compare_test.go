package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkCompareBuilds measures what a change to the server does to the
// one-hook round trip, where a single figure would drown in the noise of a
// shared machine. It runs several server binaries at once (built from the
// versions to compare), each with one matching `true` hook, and in every
// iteration makes one wave/preToolUse (a new tool call) on each, in turns,
// plus a bare `sh -c true` as the baseline; and it reads from /proc what each
// server process spent per request: CPU time and context switches, which
// the machine's load hardly changes. The "+bigenv" suffix on a name runs
// that binary with 80 more environment variables of 120 bytes (an editor's
// environment). Skipped unless WAVEHOOKS_COMPARE lists the binaries:
//
//	WAVEHOOKS_COMPARE=old=/tmp/wavehooks-old,new=bin/wavehooks \
//	  go test -run '^$' -bench CompareBuilds -benchtime 500x ./cmd/wavehooks
//
// docs/performance.md has what it measured.
func BenchmarkCompareBuilds(b *testing.B) {
	spec := os.Getenv("WAVEHOOKS_COMPARE")
	if spec == "" {
		b.Skip("WAVEHOOKS_COMPARE names the builds to compare: name=binary,...")
	}
	type build struct {
		name            string
		c               *procClient
		sid             string
		lat             []time.Duration
		cpu0, sw0, inv0 int64
	}
	var builds []*build
	for _, kv := range strings.Split(spec, ",") {
		name, bin, _ := strings.Cut(kv, "=")
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		if strings.HasSuffix(name, "+bigenv") {
			for i := 0; i < 80; i++ {
				env = append(env, fmt.Sprintf("EDITOR_SETTING_%d=%s", i, strings.Repeat("x", 120)))
			}
		}
		home, project := b.TempDir(), b.TempDir()
		if err := os.WriteFile(filepath.Join(home, "settings.json"),
			[]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "serve", "--wave-home", home, "--log-level", "error")
		cmd.Env = env
		c := startProc(b, cmd)
		defer c.stop(b)
		if err := c.initialize(project); err != nil {
			b.Fatal(err)
		}
		var started struct {
			SessionID string `json:"sessionId"`
		}
		raw, err := c.call("wave/sessionStart", map[string]any{})
		if err == nil {
			err = json.Unmarshal(raw, &started)
		}
		if err != nil {
			b.Fatal(err)
		}
		builds = append(builds, &build{name: name, c: c, sid: started.SessionID})
	}
	var base []time.Duration
	call := func(x *build, i int) time.Duration {
		t0 := time.Now()
		if _, err := x.c.call("wave/preToolUse", map[string]any{"sessionId": x.sid, "toolUseId": fmt.Sprintf("toolu_%d", i),
			"toolName": "Bash", "toolInput": map[string]any{"command": "ls"}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for i := -50; i < 0; i++ { // warm up
		for _, x := range builds {
			call(x, i)
		}
	}
	for _, x := range builds {
		x.cpu0, x.sw0, x.inv0 = procCounters(b, x.c.cmd.Process.Pid)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("sh", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		base = append(base, time.Since(t0))
		for k := range builds {
			x := builds[(i+k)%len(builds)] // a different order each time
			x.lat = append(x.lat, call(x, i))
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		s := append([]time.Duration(nil), d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return float64(s[len(s)/2].Microseconds())
	}
	b.ReportMetric(med(base), "baseline-p50-µs")
	for _, x := range builds {
		cpu, sw, inv := procCounters(b, x.c.cmd.Process.Pid)
		b.ReportMetric(med(x.lat)/med(base), x.name+"/baseline")
		b.ReportMetric(float64(cpu-x.cpu0)/float64(b.N), x.name+"-cpu-µs/req")
		b.ReportMetric(float64(sw-x.sw0)/float64(b.N), x.name+"-switches/req")
		b.ReportMetric(float64(inv-x.inv0)/float64(b.N), x.name+"-preempted/req")
	}
}

// procCounters reads a process's CPU time (µs, all threads) and its threads'
// voluntary and involuntary context switches from /proc.
func procCounters(b *testing.B, pid int) (cpuUs, voluntary, involuntary int64) {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	cpuUs = (utime + stime) * 1e6 / 100 // USER_HZ is 100 on Linux
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(data), "\n") {
			k, v, _ := strings.Cut(line, ":")
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch k {
			case "voluntary_ctxt_switches":
				voluntary += n
			case "nonvoluntary_ctxt_switches":
				involuntary += n
			}
		}
	}
	return cpuUs, voluntary, involuntary
}
