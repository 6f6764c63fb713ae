package lsp

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/watcher"
)

// This file brings the runs of other processes into the server's run
// history: the ACP proxy (and any other server sharing the wave home)
// appends every run to $WAVE_HOME/runs/runs.jsonl (hooks.RunLog); the
// server watches that file with fsnotify (watcher), reads what is
// appended, leaves out the lines it wrote itself, and offers the rest in
// wave/hookRuns and as wave/hookRun notifications, marked origin "runLog".
// So :WaveHooksLog and Show Hook Runs show the proxy's sessions too.

// originRunLog marks a run read from the run log (hooks.EventRun.Origin).
const originRunLog = "runLog"

// runLogFeed is the runs of other processes: the newest ones, bounded as
// the server's own history is, and the tail of the log file.
type runLogFeed struct {
	w *watcher.Watcher

	mu   sync.Mutex
	runs []hooks.EventRun // oldest first, at most max
	max  int
	path string            // the run log's current file, watched
	tail *hooks.RunLogTail // nil until the first read
	// ready is set once the log was read the first time; from then on
	// appends are news.
	ready bool
}

// startRunLogFeed places the watch on the run log, then reads the runs the
// log already holds (the watch first, so that an append made meanwhile is
// seen). It runs in the background: a large log must not delay the
// server's first answers.
func (s *Server) startRunLogFeed() {
	dir := hooks.RunLogDir(s.waveHome)
	size := s.opts.HistorySize // as many as the server's own history keeps
	if size <= 0 {
		size = hooks.DefaultHistorySize
	}
	feed := &runLogFeed{max: size, path: filepath.Join(dir, "runs.jsonl")}
	w, err := watcher.New(s.opts.Debounce, func([]string) { s.readRunLog() })
	if err != nil {
		s.log.Warn("cannot watch the run log; the ACP proxy's runs are not shown", "err", err)
		return
	}
	if err := w.WatchFile(feed.path); err != nil {
		s.log.Warn("cannot watch the run log; the ACP proxy's runs are not shown", "path", feed.path, "err", err)
		_ = w.Close()
		return
	}
	feed.w = w
	s.runFeedMu.Lock()
	s.runFeed = feed
	s.runFeedMu.Unlock()
	s.background(func() {
		feed.mu.Lock()
		defer feed.mu.Unlock()
		defer func() { feed.ready = true }() // even after an error: appends are read from here on
		tail, old, err := hooks.FollowRunLog(dir)
		if err != nil {
			s.log.Warn("cannot read the run log", "err", err)
			return
		}
		feed.tail = tail
		keep := make([]hooks.EventRun, 0, min(len(old), feed.max))
		for i := len(old) - 1; i >= 0 && len(keep) < feed.max; i-- { // the newest max, not the whole log
			if !s.ownRun(&old[i]) {
				keep = append(keep, old[i].EventRun)
			}
		}
		for i := len(keep) - 1; i >= 0; i-- {
			feed.add(keep[i])
		}
	})
}

// ownRun says whether a run log line is one this server wrote: by its
// writer id, or (a line of a RunLog without one) by the run still in its
// history. Without the id, a burst of more runs than the history holds
// listed the evicted ones again, as another process's.
func (s *Server) ownRun(rec *hooks.RunRecord) bool {
	return (rec.Writer != "" && rec.Writer == s.runLogWriter) || s.history.Holds(&rec.EventRun)
}

// stopRunLogFeed stops the watch; Serve calls it once no work runs.
func (s *Server) stopRunLogFeed() {
	s.runFeedMu.Lock()
	feed := s.runFeed
	s.runFeedMu.Unlock()
	if feed == nil {
		return
	}
	_ = feed.w.Close()
	feed.mu.Lock()
	if feed.tail != nil {
		feed.tail.Close()
	}
	feed.mu.Unlock()
}

func (s *Server) feed() *runLogFeed {
	s.runFeedMu.Lock()
	defer s.runFeedMu.Unlock()
	return s.runFeed
}

// readRunLog reads what was appended to the run log and announces each
// run of another process with wave/hookRun.
func (s *Server) readRunLog() {
	feed := s.feed()
	if feed == nil || s.connCtx.Err() != nil || !s.enterWork() {
		return
	}
	defer s.handlers.Done()
	feed.mu.Lock()
	if !feed.ready || feed.tail == nil {
		feed.mu.Unlock()
		return // the first read has not happened yet; it will see this line
	}
	recs, err := feed.tail.Read()
	var fresh []hooks.EventRun
	if len(recs) > 0 {
		for i := range recs {
			if !s.ownRun(&recs[i]) {
				fresh = append(fresh, feed.add(recs[i].EventRun))
			}
		}
	}
	feed.mu.Unlock()
	if err != nil {
		s.log.Debug("reading the run log", "err", err)
	}
	for i := range fresh {
		s.notify(notifyHookRun, &fresh[i])
	}
}

// add keeps r, marked as the run log's; past twice max the oldest are
// dropped down to max, so that adding costs O(1) on average. The caller
// holds f.mu.
func (f *runLogFeed) add(r hooks.EventRun) hooks.EventRun {
	r.Origin = originRunLog
	if r.Hooks == nil {
		r.Hooks = []hooks.Run{}
	}
	f.runs = append(f.runs, r)
	if len(f.runs) > 2*f.max {
		n := copy(f.runs, f.runs[len(f.runs)-f.max:])
		clear(f.runs[n:]) // let go of what the dropped runs hold
		f.runs = f.runs[:n]
	}
	return r
}

// list is the newest max kept runs, newest first, filtered as History.List
// filters.
func (f *runLogFeed) list(sessionID string, event event.Event, limit int) []hooks.EventRun {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []hooks.EventRun{}
	for i := len(f.runs) - 1; i >= max(0, len(f.runs)-f.max); i-- {
		r := f.runs[i]
		if (sessionID != "" && r.SessionID != sessionID) || (event != "" && r.Event != event) {
			continue
		}
		out = append(out, r)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// allRuns is the server's own runs and the run log's, newest first by
// time, at most limit (all when limit <= 0).
func (s *Server) allRuns(sessionID string, event event.Event, limit int) []hooks.EventRun {
	own := s.history.List(sessionID, event, limit)
	feed := s.feed()
	if feed == nil {
		return own
	}
	other := feed.list(sessionID, event, limit)
	if len(other) == 0 {
		return own
	}
	all := append(own, other...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}
