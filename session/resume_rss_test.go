package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// resumeRSSEnv makes the test binary a resume child (resumeRSSChild): a
// fresh process, as `wavehooks serve` is, whose memory is the resume's alone.
const resumeRSSEnv = "WAVEHOOKS_SESSION_RESUME_RSS"

// resumeMessages and resumeText shape the session of
// BenchmarkSessionResumeRSS: 100,000 messages, half prompts of resumeText
// bytes, half replies of a text and a Read tool call with its result, about
// 230 bytes each on disk (issue #27 item 6). Every text is different, so
// that sharing equal strings cannot make the figure look better than a
// real session's.
const (
	resumeMessages = 100000
	resumeText     = 100
)

// writeResumeSession writes, through the store's own calls, the session the
// resume benchmark loads, and returns its file's size.
func writeResumeSession(tb testing.TB, home, id string, format Format, n int) int64 {
	tb.Helper()
	st, err := NewStore(Options{WaveHome: home, Format: format})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	s, err := st.Create(id)
	if err != nil {
		tb.Fatal(err)
	}
	words := strings.Repeat("All work and no play makes Jack a dull boy. ", resumeText/44+2)
	text := func(i int) string {
		t := strconv.Itoa(i) + " " + words[i%44:]
		return t[:resumeText]
	}
	for i := 0; i < n; i += 2 {
		if _, err := s.UserPromptSubmit(context.Background(), text(i)); err != nil {
			tb.Fatal(err)
		}
		blocks := []Block{{Type: BlockText, Content: text(i + 1)},
			ToolBlock(Tool{ID: fmt.Sprintf("toolu_old_%d", i), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/src/pkg%d/main.go"}`, i)), Result: fmt.Sprintf("package pkg%d\n\nfunc main() {}", i), Success: boolPtr(i%10 != 0)})}
		if err := s.AddAssistantMessage(blocks); err != nil {
			tb.Fatal(err)
		}
	}
	fi, err := os.Stat(s.TranscriptPath())
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// resumeRSS is what a resume child reports.
type resumeRSS struct {
	Before   int64         // VmRSS before the resume
	Peak     int64         // VmHWM after it
	After    int64         // VmRSS after it
	Turn     int64         // VmHWM after the first message added after it
	Heap     int64         // the live heap after the resume and a collection
	CPU      time.Duration // the process's CPU time spent in the resume
	Messages int
	Err      string
}

// resumeRSSChild opens the session named by resumeRSSEnv with Store.Open,
// the call `wavehooks serve` makes to resume a session, and prints its
// memory; it never returns.
func resumeRSSChild() {
	var r resumeRSS
	r.Before, _ = procStatus("VmRSS:")
	cpu0 := cpuTime()
	st, err := NewStore(Options{WaveHome: os.Getenv(resumeRSSEnv + "_HOME")})
	if err == nil {
		var s *Session
		if s, err = st.Open(os.Getenv(resumeRSSEnv)); err == nil {
			r.CPU = cpuTime() - cpu0
			r.Peak, _ = procStatus("VmHWM:")
			r.After, _ = procStatus("VmRSS:")
			s.mu.Lock()
			r.Messages = len(s.conv.msgs)
			s.mu.Unlock()
			if err = s.AddAssistantMessage([]Block{{Type: BlockText, Content: "one more turn"}}); err == nil {
				r.Turn, _ = procStatus("VmHWM:")
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			r.Heap = int64(ms.HeapAlloc)
			runtime.KeepAlive(s)
		}
		st.Close()
	}
	if err != nil {
		r.Err = err.Error()
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
	os.Exit(0)
}

// procStatus reads a field of /proc/self/status, in bytes.
func procStatus(field string) (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}

// runResumeChild resumes session id of home in a new process.
func runResumeChild(tb testing.TB, home, id string) resumeRSS {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), resumeRSSEnv+"="+id, resumeRSSEnv+"_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("resume child: %v\n%s", err, stderr.Bytes())
	}
	var r resumeRSS
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("resume child said %q: %v", out, err)
	}
	if r.Err != "" {
		tb.Fatalf("resume child: %s", r.Err)
	}
	return r
}

// BenchmarkSessionResumeRSS resumes a session of 100,000 small messages
// written by the store, in a new process each iteration, and reports the
// resume's peak resident memory (VmHWM after Store.Open less VmRSS before
// it) against the file's size: rss/file, which issue #27 wants at most 2.
// rss-turn/file is the same peak after the resumed session got one more
// message (the first append after a resume may grow the message list);
// peak/file is the process's whole peak, runtime and test binary included;
// resume-cpu-ms the CPU time the resume took, which is what a lower GC
// target during the load costs; heap-B/message the live heap after the
// resume and a collection, per message, which is what the session's
// representation costs without the collector's slack.
// Run it with -benchtime 1x; the session is written once, untimed.
func BenchmarkSessionResumeRSS(b *testing.B) {
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		b.Run(string(format), func(b *testing.B) {
			home := b.TempDir()
			size := writeResumeSession(b, home, "resume-rss", format, resumeMessages)
			b.ResetTimer()
			var rss, peak, kept, cpu, turn, heap float64
			for i := 0; i < b.N; i++ {
				r := runResumeChild(b, home, "resume-rss")
				if r.Messages != resumeMessages+i { // each child adds one
					b.Fatalf("resumed %d messages, wrote %d", r.Messages, resumeMessages+i)
				}
				turn += float64(r.Turn - r.Before)
				rss += float64(r.Peak - r.Before)
				peak += float64(r.Peak)
				kept += float64(r.After - r.Before)
				cpu += r.CPU.Seconds() * 1e3
				heap += float64(r.Heap)
			}
			n := float64(b.N)
			b.ReportMetric(float64(size)/1e6, "file-MB")
			b.ReportMetric(rss/n/float64(size), "rss/file")
			b.ReportMetric(peak/n/float64(size), "peak/file")
			b.ReportMetric(kept/n/resumeMessages, "rss-B/message")
			b.ReportMetric(cpu/n, "resume-cpu-ms")
			b.ReportMetric(turn/n/float64(size), "rss-turn/file")
			b.ReportMetric(heap/n/resumeMessages, "heap-B/message")
		})
	}
}
