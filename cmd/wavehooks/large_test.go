//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wavehooks/wavehooks/internal/testjson"
)

// rawServe is `wavehooks serve` on OS pipes, driven with pre-encoded frames
// so that the test's own memory and time stay out of the figures.
type rawServe struct {
	tb  testing.TB
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	seq int
}

func startRawServe(tb testing.TB, bin, home, project string) *rawServe {
	tb.Helper()
	cmd := exec.Command(bin, "serve", "--wave-home", home, "--log-level", "error")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "HOME="+home)
	in, out := startPiped(tb, cmd)
	s := &rawServe{tb: tb, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(s.stop)
	s.call("initialize", []byte(`{"processId":null,"rootUri":"file://`+project+`","capabilities":{}}`))
	s.send([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`))
	return s
}

func (s *rawServe) stop() {
	_ = s.in.Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, s.out); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
}

func (s *rawServe) send(body []byte) {
	if _, err := fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		s.tb.Fatal(err)
	}
	if _, err := s.in.Write(body); err != nil {
		s.tb.Fatal(err)
	}
}

// call sends a request and reads until its response, which it returns (up
// to its first 4 KiB, the rest is read and dropped) with its full size.
// The server's requests get a null result.
func (s *rawServe) call(method string, params []byte) ([]byte, int) {
	s.seq++
	id := strconv.Itoa(s.seq)
	var body bytes.Buffer
	body.Grow(len(params) + 100)
	fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":`, id, method)
	body.Write(params)
	body.WriteByte('}')
	s.send(body.Bytes())
	for {
		head, n := s.readFrame()
		switch {
		case bytes.Contains(head, []byte(`"method":`)) && bytes.HasPrefix(head, []byte(`{"jsonrpc":"2.0","id":`)):
			// A request of the server's (ids come first in what it sends).
			rest := head[len(`{"jsonrpc":"2.0","id":`):]
			s.send([]byte(`{"jsonrpc":"2.0","id":` + string(rest[:bytes.IndexByte(rest, ',')]) + `,"result":null}`))
		case bytes.Contains(head, []byte(`"method":`)):
		case bytes.HasSuffix(head, []byte(`"id":`+id+`}`)) || bytes.Contains(head, []byte(`"id":`+id+`,`)):
			return head, n
		}
	}
}

// readFrame reads one frame and returns its first 4 KiB (and its last
// bytes, where jsonrpc2 puts the id) and its size.
func (s *rawServe) readFrame() ([]byte, int) {
	n := -1
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			s.tb.Fatalf("reading the server's output: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n <= 8<<10 {
		body := make([]byte, n)
		if _, err := io.ReadFull(s.out, body); err != nil {
			s.tb.Fatal(err)
		}
		return body, n
	}
	head := make([]byte, 4<<10)
	if _, err := io.ReadFull(s.out, head); err != nil {
		s.tb.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, s.out, int64(n-8<<10)); err != nil {
		s.tb.Fatal(err)
	}
	tail := make([]byte, 4<<10)
	if _, err := io.ReadFull(s.out, tail); err != nil {
		s.tb.Fatal(err)
	}
	return append(head, tail...), n
}

// benchBinary is the binary the benchmarks measure: $WAVEHOOKS_BIN (to
// measure another build in the same run), or this one.
func benchBinary(b *testing.B) string {
	if p := os.Getenv("WAVEHOOKS_BIN"); p != "" {
		return p
	}
	return e2eBinary(b)
}

// memKB reads a field (VmHWM, VmRSS) of /proc/PID/status, in KiB.
func memKB(tb testing.TB, pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// cpuTime is the CPU time a process has used so far (user and system), from
// /proc/PID/stat: a figure the machine's other load does not inflate.
func cpuTime(tb testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// settledRSS is the server's RSS, in KiB, once it has been idle for 3 s (it
// returns memory a second after a large frame) and its RSS stopped falling.
func settledRSS(tb testing.TB, pid int) int {
	time.Sleep(3 * time.Second)
	rss := memKB(tb, pid, "VmRSS")
	for range 40 {
		time.Sleep(250 * time.Millisecond)
		now := memKB(tb, pid, "VmRSS")
		if now >= rss-1024 && now <= rss {
			return now
		}
		rss = now
	}
	return rss
}

// BenchmarkServeLargeFrame sends one large frame to the real `wavehooks
// serve` per iteration (a fresh process each time, so its peak RSS belongs
// to that frame) and reports, against the frame's size: throughput (MB/s),
// peak RSS (rss-peak/frame, from VmHWM) and RSS once idle
// (rss-idle/frame). Two requests: wave/listPermissions, which ignores its
// params (the cost of reading a frame), and wave/preToolUse with one
// `cat >/dev/null` hook, whose baseline in the same iteration is that hook
// command fed the same tool input from a file (hook-baseline-ns/op; the
// ratio is roundtrip/hook).
//
//	go test -run '^$' -bench ServeLargeFrame -benchtime 1x ./cmd/wavehooks
func BenchmarkServeLargeFrame(b *testing.B) {
	bin := benchBinary(b)
	sizes := []int{10 << 20, 100 << 20}
	if s := os.Getenv("WAVEHOOKS_BENCH_MB"); s != "" {
		mb, _ := strconv.Atoi(s)
		sizes = []int{mb << 20}
	}
	for _, method := range []string{"listPermissions", "preToolUse"} {
		for _, shape := range []string{"string", "members"} {
			for _, size := range sizes {
				input := testjson.LargeObject(shape, size)
				name := fmt.Sprintf("%s/%s/%dMB", method, shape, size>>20)
				b.Run(name, func(b *testing.B) { benchLargeFrame(b, bin, method, input) })
			}
		}
	}
}

func benchLargeFrame(b *testing.B, bin, method string, input []byte) {
	home, project := b.TempDir(), b.TempDir()
	settings := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
		b.Fatal(err)
	}
	inputFile := filepath.Join(b.TempDir(), "input.json")
	if err := os.WriteFile(inputFile, input, 0o644); err != nil {
		b.Fatal(err)
	}
	var params []byte
	frame := 0
	var roundTrip, hook, cpu time.Duration
	var peak, idle float64
	b.SetBytes(int64(len(input)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := startRawServe(b, bin, home, project)
		sid := fmt.Sprintf("bench-%d", i)
		s.call("wave/sessionStart", []byte(`{"sessionId":"`+sid+`"}`))
		params = append(params[:0], `{"sessionId":"`+sid+`","toolUseId":"t1","toolName":"Write","toolInput":`...)
		params = append(append(params, input...), '}')
		frame = len(params) + 64
		cpu0 := cpuTime(b, s.cmd.Process.Pid)
		b.StartTimer()
		start := time.Now()
		head, _ := s.call("wave/"+method, params)
		roundTrip += time.Since(start)
		b.StopTimer()
		cpu += cpuTime(b, s.cmd.Process.Pid) - cpu0
		if !bytes.Contains(head, []byte(`"result"`)) {
			b.Fatalf("no result: %.300s", head)
		}
		if method == "preToolUse" {
			t0 := time.Now()
			c := exec.Command("sh", "-c", "cat >/dev/null")
			f, err := os.Open(inputFile)
			if err != nil {
				b.Fatal(err)
			}
			c.Stdin = f
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
			_ = f.Close()
			hook += time.Since(t0)
		}
		peak += float64(memKB(b, s.cmd.Process.Pid, "VmHWM")) * 1024 / float64(frame)
		idle += float64(settledRSS(b, s.cmd.Process.Pid)) * 1024 / float64(frame)
		s.stop()
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(frame)/1e6/(roundTrip.Seconds()/n), "frame-MB/s")
	b.ReportMetric(float64(frame)/1e6/(cpu.Seconds()/n), "frame-MB/cpu-s")
	b.ReportMetric(peak/n, "rss-peak/frame")
	b.ReportMetric(idle/n, "rss-idle/frame")
	if hook > 0 {
		b.ReportMetric(float64(hook.Nanoseconds())/n, "hook-baseline-ns/op")
		b.ReportMetric(float64(roundTrip)/float64(hook), "roundtrip/hook")
	}
}

// BenchmarkRunLargeInput is `wavehooks run PreToolUse` with a large stdin
// and no hook: throughput and the process's peak RSS (from rusage) against
// the input's size, with `cat` of the same file as the baseline.
func BenchmarkRunLargeInput(b *testing.B) {
	bin := benchBinary(b)
	home, project := b.TempDir(), b.TempDir()
	for _, size := range []int{20 << 20, 100 << 20} {
		input := append(append([]byte(`{"tool_name":"Write","tool_use_id":"t1","tool_input":`), testjson.LargeObject("string", size)...), '}')
		file := filepath.Join(b.TempDir(), "input.json")
		if err := os.WriteFile(file, input, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			var run, cat time.Duration
			var rss float64
			b.SetBytes(int64(len(input)))
			for i := 0; i < b.N; i++ {
				for _, argv := range [][]string{{"cat"}, {bin, "run", "PreToolUse", "--wave-home", home, "--project", project}} {
					f, err := os.Open(file)
					if err != nil {
						b.Fatal(err)
					}
					c := exec.Command(argv[0], argv[1:]...)
					c.Stdin, c.Stdout, c.Stderr = f, io.Discard, os.Stderr
					t0 := time.Now()
					if err := c.Run(); err != nil {
						b.Fatal(err)
					}
					_ = f.Close()
					if argv[0] == "cat" {
						cat += time.Since(t0)
						continue
					}
					run += time.Since(t0)
					rss += float64(c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) * 1024 / float64(len(input))
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(len(input))/1e6/(run.Seconds()/n), "run-MB/s")
			b.ReportMetric(rss/n, "rss-peak/input")
			b.ReportMetric(float64(run)/float64(cat), "run/cat")
		})
	}
}
