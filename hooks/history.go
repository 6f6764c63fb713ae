package hooks

import (
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"strings"
	"sync"
	"time"
)

// DefaultHistorySize is how many event runs the history keeps.
const DefaultHistorySize = 500

// maxHistoryText bounds each stdin, stdout and stderr kept in the history, so
// 500 runs of hooks that flood their output cannot hold gigabytes.
const maxHistoryText = 64 << 10

// EventRun is one event as the history keeps it: what every configured hook
// did with it, and the combined outcome. It answers "why did (or didn't) my
// hook run?" without a debug log.
type EventRun struct {
	ID         uint64      `json:"id"`
	Time       time.Time   `json:"time"`
	SessionID  string      `json:"sessionId"`
	Event      event.Event `json:"event"`
	MatchValue string      `json:"matchValue,omitempty"`
	Stdin      string      `json:"stdin"`
	Hooks      []Run       `json:"hooks"`
	Outcome    string      `json:"outcome"`
	// Origin is empty for a run of the process that reports it; "runLog"
	// for one it read from the run log under $WAVE_HOME, recorded there
	// by another process sharing the wave home (the ACP proxy, another
	// server): serve's wave/hookRuns and wave/hookRun carry those too.
	Origin string `json:"origin,omitempty"`

	decision *Decision // for the run log and observers: the wire does not carry it
	input    []byte    // the whole stdin, for observers only: the ring and the wire keep Stdin's clip
}

// Decision is what the run's hooks decided (nil for a run read back from
// the wire): the run log and run observers keep it.
func (r *EventRun) Decision() *Decision { return r.decision }

// Input is the whole JSON the hooks were given, unclipped, so that an
// observer (the audit log) can hash exactly what the hooks judged; it is
// nil in a run kept by the history or read back from a log: a ring of 500
// runs must not hold 500 whole tool inputs.
func (r *EventRun) Input() []byte { return r.input }

// NewEventRun records a fired event, with its texts cut to a size the history can keep.
// matchValue is what the matchers were compared with (tool name, source, ...).
func NewEventRun(sessionID, matchValue string, res *Result) EventRun {
	r := EventRun{Time: time.Now(), SessionID: sessionID, Event: res.Event, MatchValue: matchValue,
		Stdin: clipBytes(res.Stdin), Hooks: make([]Run, len(res.Runs)), Outcome: Summary(res),
		decision: newDecision(res), input: res.Stdin}
	for i, h := range res.Runs {
		h.Stdout, h.Stderr = clip(h.Stdout), clip(h.Stderr)
		if h.Problems == nil {
			h.Problems = []string{}
		}
		r.Hooks[i] = h
	}
	return r
}

// clipBytes is clip for bytes, without first copying all of them into a
// string: a hook's stdin can be a whole 100 MB tool input.
func clipBytes(b []byte) string {
	if len(b) <= maxHistoryText {
		return string(b)
	}
	return string(b[:maxHistoryText]) + fmt.Sprintf("\n[truncated: %d more bytes]", len(b)-maxHistoryText)
}

func clip(s string) string {
	if len(s) <= maxHistoryText {
		return s
	}
	return s[:maxHistoryText] + fmt.Sprintf("\n[truncated: %d more bytes]", len(s)-maxHistoryText)
}

// Summary says in one line what the event's hooks decided.
func Summary(res *Result) string {
	var parts []string
	if !res.Continue {
		parts = append(parts, "stop: "+res.StopReason)
	}
	switch {
	case res.Permission != PermissionNone:
		parts = append(parts, string(res.Permission))
	case res.Blocked:
		parts = append(parts, "blocked")
	}
	if res.Reason != "" {
		parts = append(parts, "reason: "+firstLine(res.Reason))
	}
	if n := len(res.Context) + len(res.AdditionalContext); n > 0 {
		parts = append(parts, fmt.Sprintf("%d context", n))
	}
	parts = append(parts, res.LaterAnswer.Parts()...)
	if n := len(res.Warnings); n > 0 {
		parts = append(parts, fmt.Sprintf("%d warning(s)", n))
	}
	if n := len(res.Errors); n > 0 {
		parts = append(parts, fmt.Sprintf("%d error(s)", n))
	}
	ran, background := 0, 0
	for _, r := range res.Runs {
		switch {
		case r.Ran:
			ran++
		case r.Async && r.Matched && r.Skipped == "":
			background++
		}
	}
	parts = append(parts, fmt.Sprintf("%d of %d hook(s) ran", ran, len(res.Runs)))
	if background > 0 {
		parts = append(parts, fmt.Sprintf("%d started in the background", background))
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// History is a bounded ring of the latest event runs; it never grows past
// its capacity however many events fire.
type History struct {
	mu   sync.Mutex
	ring []EventRun
	next int // where the next run goes
	full bool
	seq  uint64
	log  *RunLog // also written there, when set
	obs  []RunObserver
}

// RunObserver is told of every run a History adds, after the run is stored
// and written to the run log: the audit log and the telemetry export are
// observers, so that every host (serve, the ACP proxy, the CLI) feeds them
// by the one call that already records a run. ObserveRun is called on the
// goroutine that fired the event, outside the history's lock: it must not
// block (queue, or drop and count), or take no longer than a local write
// (the audit log appends its record there, since it must not drop one).
type RunObserver interface {
	ObserveRun(r *EventRun)
}

// Observe adds o to the observers told of every run added from now on.
func (h *History) Observe(o RunObserver) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.obs = append(h.obs[:len(h.obs):len(h.obs)], o)
}

// PersistTo makes every run added from now on also a line of l, so that
// the history outlives the process. Writing it is best effort: a run the
// disk refuses is still in the history.
func (h *History) PersistTo(l *RunLog) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = l
}

// NewHistory keeps the last capacity runs (DefaultHistorySize if capacity <= 0).
func NewHistory(capacity int) *History {
	if capacity <= 0 {
		capacity = DefaultHistorySize
	}
	return &History{ring: make([]EventRun, capacity)}
}

// Add stores a run, evicting the oldest when full, and returns it with its
// id, as the history keeps it (its whole input was for the observers).
func (h *History) Add(r EventRun) EventRun {
	h.mu.Lock()
	h.seq++
	r.ID = h.seq
	h.ring[h.next] = r
	h.ring[h.next].input = nil // observers get the whole input; the ring keeps the clip
	h.next = (h.next + 1) % len(h.ring)
	if h.next == 0 {
		h.full = true
	}
	log, obs := h.log, h.obs
	h.mu.Unlock()
	// The run log's line is written behind, outside the history's lock:
	// neither the answer nor concurrent events wait on the disk.
	if log != nil {
		log.Put(r) // written after the answer, in order (RunLog.Put)
	}
	for _, o := range obs {
		o.ObserveRun(&r)
	}
	r.input = nil // the run as the history keeps it
	return r
}

// Flush waits until the run log and every observer that writes behind
// (the audit log) have written the runs added before it. Hosts call it as
// they end; a reader of those files in the same process, before it reads.
func (h *History) Flush() {
	h.mu.Lock()
	log, obs := h.log, h.obs
	h.mu.Unlock()
	if log != nil {
		log.Flush()
	}
	for _, o := range obs {
		if f, ok := o.(interface{ Flush() }); ok {
			f.Flush()
		}
	}
}

// Len is the number of runs kept.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.full {
		return len(h.ring)
	}
	return h.next
}

// Holds reports whether r is a run this history recorded and still keeps:
// the same id, session, event and time (to the nanosecond, as the run log
// keeps it). Another process's run cannot match all four but by a clock
// and counter coincidence. It costs O(1): run n sits at ring[(n-1) % size]
// until n+size runs have been added, so the server tells its own lines of
// the shared run log from another process's without listing its history.
func (h *History) Holds(r *EventRun) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.ID == 0 || r.ID > h.seq || h.seq-r.ID >= uint64(len(h.ring)) {
		return false
	}
	k := &h.ring[(r.ID-1)%uint64(len(h.ring))]
	return k.ID == r.ID && k.SessionID == r.SessionID && k.Event == r.Event && k.Time.UnixNano() == r.Time.UnixNano()
}

// List returns runs newest first, filtered by session and event when those
// are not empty, at most limit of them (all when limit <= 0).
func (h *History) List(sessionID string, event event.Event, limit int) []EventRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.next
	if h.full {
		n = len(h.ring)
	}
	out := []EventRun{}
	for i := 0; i < n; i++ {
		r := h.ring[(h.next-1-i+len(h.ring))%len(h.ring)]
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
