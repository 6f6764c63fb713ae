// Package watcher tells the wavehooks server when a hook settings file or a
// session file has changed on disk, however the change was made.
//
// Watching a file directly with fsnotify breaks in everyday use: editors save
// by writing a temporary file and renaming it over the target (which replaces
// the inode the watch was on), by deleting and recreating it, or by writing it
// in many small pieces; and a project's .wave/ directory may not exist when the
// server starts, or may be deleted and recreated while it runs. So, as
// fsnotify's own README advises, this package watches directories rather than
// files, filters their events down to the paths it was asked about (which
// keeps editor swap and backup files out), follows a missing directory by
// watching its nearest existing ancestor, and debounces per path so that a
// burst of writes costs the server one reload rather than a hundred.
package watcher

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrClosed is returned by WatchFile and WatchDir after Close, so that a late
// registration fails loudly instead of silently never firing.
var ErrClosed = errors.New("watcher: closed")

// maxWaitFactor bounds how long a path that never stops changing (a session
// transcript appended to all the time) can be held back: it is reported at the
// latest this many debounce periods after its first unreported change, so a
// steady stream of writes cannot starve the reader.
const maxWaitFactor = 10

// Watcher turns raw, editor-dependent file system events into one call per
// changed path per burst. Its zero value is not usable; create it with New.
type Watcher struct {
	debounce time.Duration
	onChange func(paths []string)
	fs       *fsnotify.Watcher

	done      chan struct{}  // closed by Close: stops every goroutine below
	overflow  chan struct{}  // the kernel dropped events; buffered, holds one
	out       chan []string  // event loop → delivery goroutine
	wg        sync.WaitGroup // event loop, delivery and error-draining goroutines
	closeOnce sync.Once
	closeErr  error // result of the first Close

	// mu guards the registrations and the directory watches below; both the
	// event loop and WatchFile/WatchDir change them.
	mu      sync.Mutex
	closed  bool
	files   map[string]*target             // WatchFile targets by path
	dirs    map[string]*target             // WatchDir targets by directory
	watched map[string]bool                // directories with a live fsnotify watch
	keeps   map[string][]func(string) bool // WatchDir filters by directory
	// onWay holds every directory some target wants and each of their
	// ancestors: an event on one of them may move a watch (onTheWay). A
	// map, so that with tens of thousands of watched files (a hook's
	// watchPaths) an event costs a lookup, not a pass over every target.
	onWay map[string]bool

	// Owned by the event loop goroutine only.
	pending map[string]burst    // changed paths still inside their debounce window
	due     map[string]struct{} // paths whose window has closed, not yet delivered
}

// target is one registration: a file (WatchFile) or a directory's files
// (WatchDir). Both need the same thing from the file system: a watch on the
// directory that holds them, or, while it is missing, on its nearest existing
// ancestor so that its creation is noticed.
type target struct {
	path  string // the file for WatchFile, the directory for WatchDir
	want  string // the directory whose events name the paths we report
	isDir bool
	at    string // the directory actually watched for this target ("" = none yet)
}

// burst is the debounce state of one path.
type burst struct{ first, last time.Time }

// New starts a watcher. onChange is called from one goroutine (never
// concurrently), once per debounced burst, with the cleaned absolute paths that
// changed (created, written, removed or renamed onto or away), sorted. Calling
// onChange from a single goroutine lets the caller reload state without
// locking against itself; onChange must not call Close, which waits for it.
//
// debounce is how long a path must stay quiet before it is reported: long
// enough to fold an editor's save (several events) into one call, short
// enough that the user sees the result of a save at once. Zero reports each
// batch of events as soon as it has been read.
func New(debounce time.Duration, onChange func(paths []string)) (*Watcher, error) {
	if onChange == nil {
		return nil, errors.New("watcher: nil onChange")
	}
	if debounce < 0 {
		debounce = 0
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watcher: %w", err)
	}
	w := &Watcher{
		debounce: debounce,
		onChange: onChange,
		fs:       fsw,
		done:     make(chan struct{}),
		overflow: make(chan struct{}, 1),
		out:      make(chan []string),
		files:    make(map[string]*target),
		dirs:     make(map[string]*target),
		watched:  make(map[string]bool),
		keeps:    make(map[string][]func(string) bool),
		onWay:    make(map[string]bool),
		pending:  make(map[string]burst),
		due:      make(map[string]struct{}),
	}
	w.wg.Add(3)
	go w.loop()
	go w.deliver()
	go w.drainErrors()
	return w, nil
}

// WatchFile reports changes to one file path, which may not exist yet, nor its
// parent directories: settings files are optional and a project may gain a
// .wave/ directory at any time. It watches the nearest existing ancestor
// directory and moves the watch down as directories appear, and back up if
// they are deleted. Only the path itself is reported, never an editor's
// temporary, swap or backup files beside it; a temporary file renamed onto it
// is reported as a change of the path. A file already present when WatchFile
// is called is not reported: the caller has just read it.
func (w *Watcher) WatchFile(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if _, ok := w.files[abs]; ok {
		return nil
	}
	t := &target{path: abs, want: filepath.Dir(abs)}
	if err := w.place(t); err != nil {
		return err
	}
	w.files[abs] = t
	w.addOnWay(t.want)
	return nil
}

// WatchDir reports changes to every file directly inside dir whose base name
// satisfies keep (nil keeps all), so that the server hears about session files
// written by other processes without knowing their names in advance. dir may
// not exist yet. Files already present are not reported, and subdirectories
// are not followed. Calling WatchDir again for the same dir adds another
// filter: a name is reported if any filter keeps it.
func (w *Watcher) WatchDir(dir string, keep func(name string) bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	if keep == nil {
		keep = func(string) bool { return true }
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if _, ok := w.dirs[abs]; !ok {
		t := &target{path: abs, want: abs, isDir: true}
		if err := w.place(t); err != nil {
			return err
		}
		w.dirs[abs] = t
		w.addOnWay(abs)
	}
	w.keeps[abs] = append(w.keeps[abs], keep)
	return nil
}

// KeepExt returns a WatchDir filter that keeps names ending in one of exts
// (".json", ".jsonl") and drops hidden names, because atomic writers and
// editors name their temporary files ".name.tmp" or "name.json.swp", and half
// written temporaries must not be loaded as sessions.
func KeepExt(exts ...string) func(name string) bool {
	return func(name string) bool {
		if strings.HasPrefix(name, ".") {
			return false
		}
		for _, e := range exts {
			if strings.HasSuffix(name, e) {
				return true
			}
		}
		return false
	}
}

// Close stops the watcher and waits for its goroutines, so that no onChange
// call happens after Close returns and the caller may tear down whatever
// onChange uses. Changes still inside their debounce window are dropped.
// Closing twice is harmless.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.done)
		w.closeErr = w.fs.Close()
		w.wg.Wait()
	})
	return w.closeErr
}

// loop owns the debounce state: it reads fsnotify, keeps the directory watches
// in step with the tree, and hands closed bursts to the delivery goroutine. It
// never calls onChange itself, so a slow onChange does not stall the kernel
// queue (which would overflow and lose events).
func (w *Watcher) loop() {
	defer w.wg.Done()
	defer close(w.out)

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var batch []string // w.due, sorted; nil when it must be rebuilt
	for {
		var out chan<- []string
		if len(w.due) > 0 {
			if batch == nil {
				batch = slices.Sorted(maps.Keys(w.due))
			}
			out = w.out
		}
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case <-w.overflow:
			w.resync()
		case <-timer.C:
		case out <- batch:
			clear(w.due)
			batch = nil
		}
		if w.collect(time.Now()) {
			batch = nil
		}
		if next, ok := w.nextDeadline(); ok {
			timer.Reset(time.Until(next))
		} else {
			timer.Stop()
		}
	}
}

// drainErrors reads fsnotify's errors on a goroutine of its own because
// fsnotify can send one while holding the lock that Add and Remove need: if
// the event loop, busy in Add, were also the reader, neither would move.
// Only an overflow matters (events were lost: start over); other errors come
// from one failed read or watch removal, and the watches that matter are
// placed again on the next event, so there is nothing better to do than go on.
func (w *Watcher) drainErrors() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				select {
				case w.overflow <- struct{}{}:
				default: // one resync is already due; it covers this one too
				}
			}
		}
	}
}

// deliver calls onChange, one batch at a time, on its own goroutine.
func (w *Watcher) deliver() {
	defer w.wg.Done()
	for paths := range w.out {
		w.onChange(paths)
	}
}

// handle reacts to one fsnotify event: it records the reported paths it names
// and, if it touched a directory on the way to a target, re-places watches.
func (w *Watcher) handle(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename) {
		return // Chmod alone: the content did not change
	}
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}

	if _, ok := w.files[name]; ok {
		w.mark(name)
	} else if keeps, ok := w.keeps[filepath.Dir(name)]; ok && keepAny(keeps, filepath.Base(name)) {
		if !ev.Has(fsnotify.Create) || !isDir(name) {
			w.mark(name)
		}
	}

	if !ev.Has(fsnotify.Create | fsnotify.Remove | fsnotify.Rename) {
		return
	}
	lost := false
	if w.watched[name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		// A watched directory went away; inotify dropped (or fsnotify
		// removed) its watch, and a directory created in its place is a
		// new inode that needs a new one.
		w.lose(name)
		lost = true
	}
	if lost || w.onTheWay(name) {
		w.reconcile(true)
	}
}

// onTheWay reports whether name is a directory that some target needs, or
// one on the way down to it, so that only such events cost a reconcile.
func (w *Watcher) onTheWay(name string) bool { return w.onWay[name] }

// addOnWay records dir and its ancestors for onTheWay; it stops at the
// first already recorded, so registering n files costs O(n) lookups.
func (w *Watcher) addOnWay(dir string) {
	for !w.onWay[dir] {
		w.onWay[dir] = true
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}

// lose forgets the watch on dir. Targets that were watching it have lost
// their directory; a file target's file went with it, which is a change.
func (w *Watcher) lose(dir string) {
	_ = w.fs.Remove(dir) // usually already gone: ErrNonExistentWatch is fine
	delete(w.watched, dir)
	for _, t := range w.targets() {
		if t.at != dir {
			continue
		}
		if !t.isDir && t.at == t.want {
			w.mark(t.path)
		}
		t.at = ""
	}
}

// reconcile moves each target's watch to the nearest existing ancestor of the
// directory it wants and drops watches nobody needs. When scan is set and a
// target reaches its directory, what is already in it is reported: it was
// created before the watch was in place, so no event named it.
func (w *Watcher) reconcile(scan bool) {
	for _, t := range w.targets() {
		prev := t.at
		if err := w.place(t); err != nil {
			continue // e.g. permission denied: retried on the next event
		}
		if scan && t.at == t.want && prev != t.want {
			w.scan(t)
		}
	}
	needed := make(map[string]bool, len(w.watched))
	for _, t := range w.targets() {
		if t.at != "" {
			needed[t.at] = true
		}
	}
	for dir := range w.watched {
		if !needed[dir] {
			_ = w.fs.Remove(dir)
			delete(w.watched, dir)
		}
	}
}

// place sets t.at to the nearest existing ancestor of t.want (t.want itself if
// it exists) and makes sure that directory is watched. It looks again after
// adding the watch, because a directory created between the look and the
// watch would otherwise never be noticed.
func (w *Watcher) place(t *target) error {
	for range 64 {
		dir := nearestDir(t.want)
		if !w.watched[dir] {
			if err := w.fs.Add(dir); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					continue // vanished meanwhile: look again
				}
				return fmt.Errorf("watcher: watch %s: %w", dir, err)
			}
			w.watched[dir] = true
		}
		if nearestDir(t.want) == dir {
			t.at = dir
			return nil
		}
	}
	return fmt.Errorf("watcher: %s keeps changing", t.want)
}

// scan reports what a target's directory holds now that it is watched.
func (w *Watcher) scan(t *target) {
	if !t.isDir {
		if _, err := os.Lstat(t.path); err == nil {
			w.mark(t.path)
		}
		return
	}
	entries, err := os.ReadDir(t.path)
	if err != nil {
		return
	}
	keeps := w.keeps[t.path]
	for _, e := range entries {
		if !e.IsDir() && keepAny(keeps, e.Name()) {
			w.mark(filepath.Join(t.path, e.Name()))
		}
	}
}

// resync starts over after the kernel dropped events: every watch is
// re-placed and every target is reported, since any of them may have changed
// unseen.
func (w *Watcher) resync() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for dir := range w.watched {
		_ = w.fs.Remove(dir)
	}
	clear(w.watched)
	for _, t := range w.targets() {
		t.at = ""
		if !t.isDir {
			w.mark(t.path)
		}
	}
	w.reconcile(true)
}

// targets lists every registration; there are a handful, so a slice is fine.
func (w *Watcher) targets() []*target {
	ts := make([]*target, 0, len(w.files)+len(w.dirs))
	for _, t := range w.files {
		ts = append(ts, t)
	}
	for _, t := range w.dirs {
		ts = append(ts, t)
	}
	return ts
}

// mark starts or extends the debounce window of path.
func (w *Watcher) mark(path string) {
	now := time.Now()
	b, ok := w.pending[path]
	if !ok {
		b.first = now
	}
	b.last = now
	w.pending[path] = b
}

// deadline is when a path's burst is reported: once it has been quiet for the
// debounce period, or maxWaitFactor periods after it began, if sooner.
func (w *Watcher) deadline(b burst) time.Time {
	quiet := b.last.Add(w.debounce)
	if latest := b.first.Add(maxWaitFactor * w.debounce); latest.Before(quiet) {
		return latest
	}
	return quiet
}

// collect moves the paths whose window has closed by now to w.due and reports
// whether it moved any. When some path is due, paths due within a tenth of
// the debounce period go with it: files saved together (settings.json and
// settings.local.json) then cost the server one reload, not two a few
// microseconds apart.
func (w *Watcher) collect(now time.Time) bool {
	ripe := false
	for _, b := range w.pending {
		if !w.deadline(b).After(now) {
			ripe = true
			break
		}
	}
	if !ripe {
		return false
	}
	horizon := now.Add(w.debounce / 10)
	for p, b := range w.pending {
		if !w.deadline(b).After(horizon) {
			w.due[p] = struct{}{}
			delete(w.pending, p)
		}
	}
	return true
}

func (w *Watcher) nextDeadline() (time.Time, bool) {
	var next time.Time
	found := false
	for _, b := range w.pending {
		if d := w.deadline(b); !found || d.Before(next) {
			next, found = d, true
		}
	}
	return next, found
}

// nearestDir returns p if it is an existing directory, else its nearest
// ancestor that is (the root, at worst).
func nearestDir(p string) string {
	for {
		if isDir(p) {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func keepAny(keeps []func(string) bool, name string) bool {
	for _, k := range keeps {
		if k(name) {
			return true
		}
	}
	return false
}
