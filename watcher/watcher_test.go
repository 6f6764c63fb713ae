package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	testDebounce = 20 * time.Millisecond
	waitFor      = 5 * time.Second
	tick         = 5 * time.Millisecond
)

// call is one onChange invocation as the test saw it.
type call struct {
	at    time.Time
	paths []string
}

// recorder is an onChange that keeps every call and checks, on each one, the
// promises New makes about them: never concurrent, paths sorted, unique,
// clean and absolute.
type recorder struct {
	t        *testing.T
	inFlight atomic.Int32
	mu       sync.Mutex
	calls    []call
}

func (r *recorder) onChange(paths []string) {
	if r.inFlight.Add(1) != 1 {
		r.t.Errorf("onChange called concurrently")
	}
	defer r.inFlight.Add(-1)
	if !slices.IsSorted(paths) || len(slices.Compact(slices.Clone(paths))) != len(paths) {
		r.t.Errorf("paths not sorted and unique: %q", paths)
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			r.t.Errorf("path not clean and absolute: %q", p)
		}
	}
	r.mu.Lock()
	r.calls = append(r.calls, call{at: time.Now(), paths: slices.Clone(paths)})
	r.mu.Unlock()
}

func (r *recorder) snapshot() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// reportedAfter reports whether a call naming path started after since: the
// caller's promise is that a reload at that moment sees the last write.
func (r *recorder) reportedAfter(path string, since time.Time) bool {
	for _, c := range r.snapshot() {
		if !c.at.Before(since) && slices.Contains(c.paths, path) {
			return true
		}
	}
	return false
}

// count is how many calls named path.
func (r *recorder) count(path string) int {
	n := 0
	for _, c := range r.snapshot() {
		if slices.Contains(c.paths, path) {
			n++
		}
	}
	return n
}

// all is every path ever reported.
func (r *recorder) all() []string {
	var ps []string
	for _, c := range r.snapshot() {
		ps = append(ps, c.paths...)
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

func newWatcher(t *testing.T, debounce time.Duration) (*Watcher, *recorder) {
	t.Helper()
	r := &recorder{t: t}
	w, err := New(debounce, r.onChange)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, w.Close()) })
	return w, r
}

// waitReported fails the test unless path is reported after since.
func waitReported(t *testing.T, r *recorder, path string, since time.Time) {
	t.Helper()
	require.Eventually(t, func() bool { return r.reportedAfter(path, since) }, waitFor, tick,
		"%s not reported after %s; calls: %v", path, since.Format(time.StampMicro), r.snapshot())
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// Save styles, as editors do them.

func saveInPlace(t *testing.T, path, content string) { write(t, path, content) }

func saveRenameOver(t *testing.T, path, content string) {
	tmp := path + ".tmp.123"
	write(t, tmp, content)
	require.NoError(t, os.Rename(tmp, path))
}

func saveDeleteRecreate(t *testing.T, path, content string) {
	require.NoError(t, os.Remove(path))
	write(t, path, content)
}

// saveVim is what vim does with 'backupcopy=no' and 'writebackup': probe the
// directory with a file named 4913, move the original to a backup, write the
// new file, delete the backup; a swap file sits beside it all along.
func saveVim(t *testing.T, path, content string) {
	dir, base := filepath.Split(path)
	write(t, filepath.Join(dir, "."+base+".swp"), "swap")
	probe := filepath.Join(dir, "4913")
	write(t, probe, "")
	require.NoError(t, os.Remove(probe))
	backup := path + "~"
	require.NoError(t, os.Rename(path, backup))
	write(t, path, content)
	require.NoError(t, os.Remove(backup))
}

func TestWatchFileSaveStyles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		save func(t *testing.T, path, content string)
	}{
		{"write in place", saveInPlace},
		{"write temp and rename over", saveRenameOver},
		{"delete and recreate", saveDeleteRecreate},
		{"vim with backup and swap files", saveVim},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".wave")
			require.NoError(t, os.Mkdir(dir, 0o755))
			target := filepath.Join(dir, "settings.json")
			write(t, target, "{}")

			w, r := newWatcher(t, testDebounce)
			require.NoError(t, w.WatchFile(target))

			// Two saves: the second proves the watch survived the first
			// (a rename over the target replaces the inode).
			for i := range 2 {
				before := time.Now()
				tc.save(t, target, fmt.Sprintf(`{"n":%d}`, i))
				waitReported(t, r, target, before)
			}
			require.Equal(t, []string{target}, r.all(), "only the target is reported, never temp files")
		})
	}
}

func TestWatchFileRemoved(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "settings.json")
	write(t, target, "{}")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchFile(target))

	before := time.Now()
	require.NoError(t, os.Remove(target))
	waitReported(t, r, target, before)

	// And it is noticed when it comes back.
	before = time.Now()
	write(t, target, "{}")
	waitReported(t, r, target, before)
}

func TestWatchFileTempFilesIgnored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "settings.json")
	local := filepath.Join(dir, "settings.local.json")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchFile(target))

	for _, name := range []string{".settings.json.swp", "settings.json~", "4913", "settings.json.tmp.123",
		"#settings.json#", ".#settings.json", "settings.json.bak", "settings.local.json"} {
		write(t, filepath.Join(dir, name), "x")
		require.NoError(t, os.Remove(filepath.Join(dir, name)))
	}
	write(t, local, "{}")
	// Events of one directory arrive in order, so once the target's write is
	// reported every earlier event has been seen.
	before := time.Now()
	write(t, target, "{}")
	waitReported(t, r, target, before)
	require.Equal(t, []string{target}, r.all())
}

func TestWatchFileSiblingsShareADirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".wave")
	settings := filepath.Join(dir, "settings.json")
	local := filepath.Join(dir, "settings.local.json")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchFile(settings))
	require.NoError(t, w.WatchFile(local))
	require.NoError(t, w.WatchFile(local), "watching twice is harmless")

	require.NoError(t, os.Mkdir(dir, 0o755))
	before := time.Now()
	write(t, local, "{}")
	waitReported(t, r, local, before)
	before = time.Now()
	write(t, settings, "{}")
	waitReported(t, r, settings, before)
	require.Equal(t, []string{settings, local}, r.all())
}

func TestWatchFileParentCreatedLater(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		rel    string // target, relative to the root
		create func(t *testing.T, root string)
	}{
		{".wave created", ".wave/settings.json", func(t *testing.T, root string) {
			require.NoError(t, os.Mkdir(filepath.Join(root, ".wave"), 0o755))
		}},
		{"several levels at once", "a/b/c/settings.json", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "a/b/c"), 0o755))
		}},
		{"level by level", "a/b/c/settings.json", func(t *testing.T, root string) {
			for _, d := range []string{"a", "a/b", "a/b/c"} {
				require.NoError(t, os.Mkdir(filepath.Join(root, d), 0o755))
			}
		}},
		{"a file where the directory should be, replaced", ".wave/settings.json", func(t *testing.T, root string) {
			p := filepath.Join(root, ".wave")
			write(t, p, "not a directory")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Mkdir(p, 0o755))
		}},
		{"directory made elsewhere and moved in", ".wave/settings.json", func(t *testing.T, root string) {
			staging := filepath.Join(root, "staging")
			require.NoError(t, os.Mkdir(staging, 0o755))
			write(t, filepath.Join(staging, "settings.json"), "{}")
			require.NoError(t, os.Rename(staging, filepath.Join(root, ".wave")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			target := filepath.Join(root, tc.rel)
			w, r := newWatcher(t, testDebounce)
			require.NoError(t, w.WatchFile(target))

			before := time.Now()
			tc.create(t, root)
			write(t, target, "{}") // straight away: the watch may not have moved down yet
			waitReported(t, r, target, before)

			// Now the watch is on the file's own directory.
			before = time.Now()
			saveRenameOver(t, target, `{"again":true}`)
			waitReported(t, r, target, before)
			require.Equal(t, []string{target}, r.all())
		})
	}
}

func TestWatchFileParentDeletedAndRecreated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		gone func(t *testing.T, dir string) // takes .wave away
		wait bool                           // for the removal to be reported before recreating
	}{
		{"rm -rf, waiting", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(dir)) }, true},
		{"rm -rf, recreated at once", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(dir)) }, false},
		{"moved away, waiting", func(t *testing.T, dir string) { require.NoError(t, os.Rename(dir, dir+".bak")) }, true},
		{"moved away, recreated at once", func(t *testing.T, dir string) { require.NoError(t, os.Rename(dir, dir+".bak")) }, false},
		{"churned, then deleted", func(t *testing.T, dir string) {
			for i := range 20 {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.Mkdir(dir, 0o755))
				write(t, filepath.Join(dir, "settings.json"), fmt.Sprint(i))
			}
			require.NoError(t, os.RemoveAll(dir))
		}, false},
		{"moved away and deleted there", func(t *testing.T, dir string) {
			// The watch's MOVE_SELF arrives for a watch the kernel has
			// already dropped: fsnotify reports an error while holding its lock.
			require.NoError(t, os.Rename(dir, dir+".bak"))
			require.NoError(t, os.RemoveAll(dir+".bak"))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".wave")
			require.NoError(t, os.Mkdir(dir, 0o755))
			target := filepath.Join(dir, "settings.json")
			write(t, target, "{}")
			w, r := newWatcher(t, testDebounce)
			require.NoError(t, w.WatchFile(target))

			before := time.Now()
			tc.gone(t, dir)
			if tc.wait {
				waitReported(t, r, target, before) // the file went with its directory
			}
			require.NoError(t, os.Mkdir(dir, 0o755))
			before = time.Now()
			write(t, target, `{"recreated":true}`)
			waitReported(t, r, target, before)

			// The watch followed the new directory, not the old inode.
			for range 2 {
				before = time.Now()
				saveRenameOver(t, target, `{"edited":true}`)
				waitReported(t, r, target, before)
			}
			require.Equal(t, []string{target}, r.all())
		})
	}
}

func TestBurstIsDebounced(t *testing.T) {
	t.Parallel()
	const debounce = 50 * time.Millisecond
	dir := t.TempDir()
	target := filepath.Join(dir, "settings.json")
	other := filepath.Join(dir, "other.json")
	write(t, target, "{}")
	w, r := newWatcher(t, debounce)
	require.NoError(t, w.WatchFile(target))
	require.NoError(t, w.WatchFile(other))

	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	for i := range 100 {
		_, err := fmt.Fprintf(f, "%d\n", i)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	last := time.Now()
	write(t, other, "{}")

	waitReported(t, r, target, last)
	waitReported(t, r, other, last)
	// Give a straggling call the time to show up before counting.
	require.Never(t, func() bool { return r.count(target) > 3 }, 4*debounce, tick)
	require.LessOrEqual(t, r.count(target), 3, "calls: %v", r.snapshot())
	var lastCall time.Time
	for _, c := range r.snapshot() {
		if slices.Contains(c.paths, target) {
			lastCall = c.at
		}
	}
	require.False(t, lastCall.Before(last), "the last call naming the file comes after the last write")
}

func TestSavedTogetherReportedTogether(t *testing.T) {
	t.Parallel()
	const debounce = 200 * time.Millisecond // batching slack is a tenth: 20 ms
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	local := filepath.Join(dir, "settings.local.json")
	w, r := newWatcher(t, debounce)
	require.NoError(t, w.WatchFile(settings))
	require.NoError(t, w.WatchFile(local))

	start := time.Now()
	write(t, local, "{}")
	write(t, settings, "{}")
	took := time.Since(start)
	waitReported(t, r, settings, start)
	waitReported(t, r, local, start)
	if took < debounce/20 { // far inside the slack, even if the loop lags a little
		require.Len(t, r.snapshot(), 1, "files saved together come in one call")
		require.Equal(t, []string{settings, local}, r.snapshot()[0].paths)
	}
}

func TestSteadyStreamIsNotStarved(t *testing.T) {
	t.Parallel()
	const debounce = 20 * time.Millisecond
	target := filepath.Join(t.TempDir(), "session.jsonl")
	write(t, target, "")
	w, r := newWatcher(t, debounce)
	require.NoError(t, w.WatchFile(target))

	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	start := time.Now()
	// Append more often than the debounce period: a pure trailing debounce
	// would say nothing until the writer stops.
	deadline := start.Add(2 * time.Second)
	for r.count(target) == 0 && time.Now().Before(deadline) {
		_, err := f.WriteString("{}\n")
		require.NoError(t, err)
		time.Sleep(debounce / 4)
	}
	require.Positive(t, r.count(target), "a steady stream of writes was never reported")
}

func TestWatchDirSessions(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchDir(sessions, KeepExt(".json", ".jsonl")))

	// The directory appears after the watch, and files land in it at once.
	require.NoError(t, os.Mkdir(sessions, 0o755))
	before := time.Now()
	for _, name := range []string{"a.json", "b.jsonl", "notes.txt", ".a.json.swp", "a.json.tmp.123", ".b.jsonl", "a.json~"} {
		write(t, filepath.Join(sessions, name), "{}")
	}
	require.NoError(t, os.Mkdir(filepath.Join(sessions, "sub.json"), 0o755))
	write(t, filepath.Join(sessions, "sub.json", "c.json"), "{}")
	a, b := filepath.Join(sessions, "a.json"), filepath.Join(sessions, "b.jsonl")
	waitReported(t, r, a, before)
	waitReported(t, r, b, before)

	// An append, an atomic save and a removal.
	f, err := os.OpenFile(b, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	before = time.Now()
	_, err = f.WriteString("{}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	waitReported(t, r, b, before)
	before = time.Now()
	saveRenameOver(t, a, `{"saved":true}`)
	waitReported(t, r, a, before)
	before = time.Now()
	require.NoError(t, os.Remove(a))
	waitReported(t, r, a, before)

	require.Equal(t, []string{a, b}, r.all())
}

func TestWatchDirNilKeepsAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchDir(dir, nil))
	before := time.Now()
	names := []string{"x", "y.txt", ".z"}
	for _, n := range names {
		write(t, filepath.Join(dir, n), "1")
	}
	for _, n := range names {
		waitReported(t, r, filepath.Join(dir, n), before)
	}
}

func TestWatchDirRecreated(t *testing.T) {
	t.Parallel()
	sessions := filepath.Join(t.TempDir(), "sessions")
	require.NoError(t, os.Mkdir(sessions, 0o755))
	s := filepath.Join(sessions, "s.json")
	write(t, s, "{}")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchDir(sessions, KeepExt(".json")))

	before := time.Now()
	require.NoError(t, os.RemoveAll(sessions))
	waitReported(t, r, s, before)
	require.NoError(t, os.Mkdir(sessions, 0o755))
	before = time.Now()
	write(t, s, "{}")
	waitReported(t, r, s, before)
	before = time.Now()
	write(t, s, `{"again":true}`)
	waitReported(t, r, s, before)
}

func TestRelativePathIsReportedAbsolute(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchFile("./.wave/../.wave/settings.json"))
	require.NoError(t, os.Mkdir(".wave", 0o755))
	before := time.Now()
	write(t, filepath.Join(root, ".wave", "settings.json"), "{}")
	waitReported(t, r, filepath.Join(root, ".wave", "settings.json"), before)
}

func TestOverflowReportsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "settings.json")
	sessions := filepath.Join(dir, "sessions")
	require.NoError(t, os.Mkdir(sessions, 0o755))
	s := filepath.Join(sessions, "s.json")
	write(t, s, "{}")
	w, r := newWatcher(t, testDebounce)
	require.NoError(t, w.WatchFile(target))
	require.NoError(t, w.WatchDir(sessions, nil))

	// What fsnotify sends when the kernel queue overflowed and events were lost.
	before := time.Now()
	w.fs.Errors <- fsnotify.ErrEventOverflow
	waitReported(t, r, target, before)
	waitReported(t, r, s, before)

	// Watching goes on afterwards.
	before = time.Now()
	write(t, target, "{}")
	waitReported(t, r, target, before)
}

func TestCloseStopsCallbacksAndLeaksNothing(t *testing.T) {
	before := goleak.IgnoreCurrent()
	dir := t.TempDir()
	target := filepath.Join(dir, "settings.json")
	var closed atomic.Bool
	var calls, late atomic.Int32
	w, err := New(0, func([]string) {
		calls.Add(1)
		if closed.Load() {
			late.Add(1)
		}
	})
	require.NoError(t, err)
	require.NoError(t, w.WatchFile(target))
	require.NoError(t, w.WatchDir(dir, nil))

	// Close in the middle of a stream of events.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				_ = os.WriteFile(target, []byte(fmt.Sprint(i)), 0o644)
			}
		}
	}()
	require.Eventually(t, func() bool { return calls.Load() > 2 }, waitFor, tick)
	require.NoError(t, w.Close())
	closed.Store(true)
	close(stop)
	<-done
	require.NoError(t, w.Close(), "closing twice is harmless")
	require.ErrorIs(t, w.WatchFile(target), ErrClosed)
	require.ErrorIs(t, w.WatchDir(dir, nil), ErrClosed)
	require.Zero(t, late.Load(), "onChange ran after Close returned")
	goleak.VerifyNone(t, before)
}

func TestNewRejectsNilCallback(t *testing.T) {
	_, err := New(time.Millisecond, nil)
	require.Error(t, err)
}

// BenchmarkWriteToNotify measures how long a rename-over save takes to reach
// onChange with the server's 50 ms debounce: the floor is the debounce, and
// the rest is what the watcher adds.
func BenchmarkWriteToNotify(b *testing.B) {
	const debounce = 50 * time.Millisecond
	target := filepath.Join(b.TempDir(), "settings.json")
	notified := make(chan struct{}, 1)
	w, err := New(debounce, func([]string) {
		select {
		case notified <- struct{}{}:
		default:
		}
	})
	require.NoError(b, err)
	defer w.Close()
	require.NoError(b, w.WatchFile(target))
	tmp := target + ".tmp"

	var over time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, target); err != nil {
			b.Fatal(err)
		}
		select {
		case <-notified:
		case <-time.After(waitFor):
			b.Fatal("no notification")
		}
		over += time.Since(start) - debounce
		n++
	}
	b.ReportMetric(float64(over.Nanoseconds())/float64(n), "ns-over-debounce/op")
}
