package audit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
)

// helperDir, when set, makes the test binary a writer process of the
// concurrency test: it appends helperCount records to that log and exits.
const (
	helperDir   = "WAVEHOOKS_AUDIT_HELPER_DIR"
	helperCount = 200
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperDir); dir != "" {
		l, err := audit.Open(dir, audit.HostCLI, audit.Options{MaxFileBytes: 16 << 10})
		if err == nil {
			for i := range helperCount {
				if err = l.Append(audit.Record{Kind: audit.KindRun, Event: "PreToolUse", Tool: "Bash", Answer: "deny", By: "hooks",
					Session: fmt.Sprintf("p%d-%d", os.Getpid(), i)}); err != nil {
					break
				}
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func appendN(t *testing.T, l *audit.Log, n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, l.Append(audit.Record{Kind: audit.KindRun, Event: "PreToolUse", Tool: "Bash",
			Answer: "deny", By: "hooks", Reason: "no rm -rf", Session: "s" + strconv.Itoa(i)}))
	}
}

func verify(t *testing.T, dir string) audit.Report {
	t.Helper()
	key, err := audit.ReadKey(audit.KeyPath(dir))
	require.NoError(t, err)
	rep, err := audit.Verify(dir, key)
	require.NoError(t, err)
	return rep
}

// A crash mid-append leaves half a line: the log verifies up to its last
// whole record and names the torn line as torn; the next append ends that
// line, chains from the last whole record, and the log verifies again.
func TestATornLastLineIsTornNotTampering(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(dir, audit.HostServe, audit.Options{})
	require.NoError(t, err)
	appendN(t, l, 3)
	path := filepath.Join(dir, "audit.jsonl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lastStart := len(b) - 1 - len(lastLine(b))
	require.NoError(t, os.WriteFile(path, b[:lastStart+40], 0o600)) // record 3 cut 40 bytes in

	rep := verify(t, dir)
	require.Nil(t, rep.Problem)
	require.Equal(t, 2, rep.Records)
	require.Equal(t, []audit.Position{{File: "audit.jsonl", Line: 3}}, rep.Torn)

	appendN(t, l, 1)
	rep = verify(t, dir)
	require.Nil(t, rep.Problem, "the append after the crash chains from the last whole record")
	require.Equal(t, 3, rep.Records)
	require.Equal(t, []audit.Position{{File: "audit.jsonl", Line: 3}}, rep.Torn, "the torn line stays, ended by a newline")
	recs, err := audit.Records(dir)
	require.NoError(t, err)
	require.Equal(t, uint64(3), recs[2].Seq, "the lost record's number is taken again")
}

func lastLine(b []byte) []byte {
	b = b[:len(b)-1]
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return b[i+1:]
		}
	}
	return b
}

// Rotation renames the current file to audit.N.jsonl; the next file's first
// record chains from the last one of it, so the whole log verifies as one
// chain, and a record removed at a file's end is still found.
func TestRotationKeepsOneChain(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(dir, audit.HostACP, audit.Options{MaxFileBytes: 2 << 10})
	require.NoError(t, err)
	appendN(t, l, 20)
	files, err := audit.Files(dir)
	require.NoError(t, err)
	require.Greater(t, len(files), 3, "the log rotated")
	require.Equal(t, "audit.1.jsonl", filepath.Base(files[0]))
	require.Equal(t, "audit.jsonl", filepath.Base(files[len(files)-1]))
	rep := verify(t, dir)
	require.Nil(t, rep.Problem)
	require.Equal(t, 20, rep.Records)

	// Remove the last record of the first file.
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(files[0], b[:len(b)-len(lastLine(b))-1], 0o600))
	rep = verify(t, dir)
	require.NotNil(t, rep.Problem)
	require.Equal(t, audit.Removed, rep.Problem.Kind)
	require.Equal(t, "audit.2.jsonl", rep.Problem.Pos.File)
	require.Equal(t, 1, rep.Problem.Pos.Line)
}

// Appenders that share a wave home keep one chain: goroutines with a Log
// each (each its own lock descriptor) and whole processes, at once, leave
// records numbered without a gap that all verify.
func TestWritersAtOnceKeepOneChain(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	const procs, goroutines, each = 2, 3, 50
	var cmds []*exec.Cmd
	for range procs {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperDir+"="+dir)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := audit.Open(dir, audit.HostServe, audit.Options{MaxFileBytes: 16 << 10})
			if err != nil {
				errs <- err
				return
			}
			for range each {
				if err := l.Append(audit.Record{Kind: audit.KindAnswer, Answer: audit.Allow, By: "user in the editor: prompt"}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	rep := verify(t, dir)
	require.Nil(t, rep.Problem)
	require.Empty(t, rep.Torn)
	require.Equal(t, procs*helperCount+goroutines*each, rep.Records)
}

// Without the key only the chain is checked; with a key other than the
// log's, the first record's MAC already fails: a chain is proved to be the
// one written under this key, not one like it (the rewritten chain is
// cmd/wavehooks's TestLogVerify).
func TestTheKeyDetectsARewrittenChain(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(dir, audit.HostCLI, audit.Options{})
	require.NoError(t, err)
	appendN(t, l, 3)

	rep, err := audit.Verify(dir, nil)
	require.NoError(t, err)
	require.Nil(t, rep.Problem, "without the key the chain alone is checked")
	require.False(t, rep.Keyed)

	wrong := make([]byte, 32)
	rep, err = audit.Verify(dir, wrong)
	require.NoError(t, err)
	require.NotNil(t, rep.Problem)
	require.Equal(t, uint64(1), rep.Problem.Seq)
	require.Equal(t, audit.Changed, rep.Problem.Kind)
}

// BenchmarkAppend is the cost one decision adds: the lock, the read of the
// last record, the MAC and the write of one line.
func BenchmarkAppend(b *testing.B) {
	l, err := audit.Open(b.TempDir(), audit.HostServe, audit.Options{})
	require.NoError(b, err)
	rec := audit.Record{Kind: audit.KindRun, Event: "PreToolUse", Tool: "Bash", Answer: "deny", By: "hooks", Reason: "no rm -rf",
		Hooks: []audit.Hook{{Command: "/home/u/.wave/hooks/deny-rm.sh", Source: "user", Ran: true, Exit: 2}}}
	for b.Loop() {
		if err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// A record larger than the first window the tail is read with (a run of
// many hooks with long commands) is still found as the last one by another
// writer, who chains from it.
func TestAnotherWriterChainsFromALargeRecord(t *testing.T) {
	dir := t.TempDir()
	first, err := audit.Open(dir, audit.HostServe, audit.Options{})
	require.NoError(t, err)
	var hooks []audit.Hook
	for i := range 40 {
		hooks = append(hooks, audit.Hook{Command: fmt.Sprintf("%03d %s", i, strings.Repeat("x", 1000)), Source: "user", Ran: true})
	}
	appendN(t, first, 2)
	require.NoError(t, first.Append(audit.Record{Kind: audit.KindRun, Event: "PreToolUse", Hooks: hooks, Answer: "none", By: "hooks"}))
	second, err := audit.Open(dir, audit.HostACP, audit.Options{})
	require.NoError(t, err)
	appendN(t, second, 1)
	rep := verify(t, dir)
	require.Nil(t, rep.Problem)
	require.Equal(t, 4, rep.Records)
}

// A verify while writers append and rotate sees the log as it was at one
// moment: never a half-written line as torn, never a file renamed under it
// as records removed.
func TestVerifyWhileWritersAppendAndRotate(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 2, 300
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		l, err := audit.Open(dir, audit.HostServe, audit.Options{MaxFileBytes: 4 << 10})
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := l.Append(audit.Record{Kind: audit.KindRun, Event: "Stop", Answer: "none", By: "hooks"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	key, err := audit.ReadKey(audit.KeyPath(dir))
	require.NoError(t, err)
	for verified := false; !verified; {
		select {
		case <-done:
			verified = true
		default:
		}
		rep, err := audit.Verify(dir, key)
		require.NoError(t, err)
		require.Nil(t, rep.Problem)
		require.Empty(t, rep.Torn)
		if verified {
			require.Equal(t, writers*each, rep.Records)
		}
	}
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// Decisions are recorded behind the answers that made them: in the order
// they were made (a run before the answer to its ask), each stamped with
// the time it was made, not the time it was written, and all of them there
// once Flush returns — which every host calls as it ends.
func TestDecisionsAreWrittenBehindInTheOrderMade(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(dir, audit.HostServe, audit.Options{})
	require.NoError(t, err)
	const n = 300
	before := time.Now()
	for i := range n {
		res := &hooks.Result{Event: event.PreToolUse, Continue: true, Permission: hooks.PermissionAsk, Reason: "check",
			Stdin: []byte(`{"i":` + strconv.Itoa(i) + `}`), Runs: []hooks.Run{{Command: "ask.sh", Matched: true, Ran: true}}}
		run := hooks.NewEventRun("s"+strconv.Itoa(i), "Bash", res)
		l.ObserveRun(&run)
		l.RecordAnswer(audit.Answer{Session: "s" + strconv.Itoa(i), Event: "PreToolUse", Tool: "Bash", Answer: audit.Allow, By: "user: prompt"})
	}
	l.Flush()
	recs, err := audit.Records(dir)
	require.NoError(t, err)
	require.Len(t, recs, 2*n)
	for i := range n {
		run, answer := recs[2*i], recs[2*i+1]
		require.Equal(t, audit.KindRun, run.Kind, "record %d", 2*i)
		require.Equal(t, "ask", run.Answer)
		require.Equal(t, audit.KindAnswer, answer.Kind, "record %d", 2*i+1)
		require.Equal(t, run.Session, answer.Session)
		require.Equal(t, "s"+strconv.Itoa(i), run.Session)
		require.False(t, run.Time.Before(before.Add(-time.Second)))
		require.False(t, answer.Time.Before(run.Time), "stamped when made")
	}
	require.Nil(t, verify(t, dir).Problem)
}
