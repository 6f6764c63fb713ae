package lsp

import (
	"sync"
	"sync/atomic"
)

// maxIdleWorkers is how many request goroutines wait for the next request
// once theirs is answered; more than that end.
const maxIdleWorkers = 4

// requestWorkers runs requests on goroutines that are kept for the next
// request instead of a new goroutine each: a new goroutine starts on a
// small stack that every preToolUse outgrows, and copying it as it grows
// was 6.5% of the server's CPU on a sequential agent's calls (perf,
// docs/performance.md). A request that finds no idle worker starts one, so
// requests still run concurrently (a pending ask holds up nothing).
type requestWorkers struct {
	jobs chan func() // unbuffered: a send succeeds only to a waiting worker
	quit chan struct{}
	idle atomic.Int32
	wg   sync.WaitGroup
}

func newRequestWorkers() *requestWorkers {
	return &requestWorkers{jobs: make(chan func()), quit: make(chan struct{})}
}

// run runs f on an idle worker, or on a new one.
func (w *requestWorkers) run(f func()) {
	select {
	case w.jobs <- f:
		return
	default:
	}
	w.wg.Add(1)
	go w.loop(f)
}

func (w *requestWorkers) loop(f func()) {
	defer w.wg.Done()
	for {
		f()
		if w.idle.Add(1) > maxIdleWorkers {
			w.idle.Add(-1)
			return
		}
		select {
		case f = <-w.jobs:
			w.idle.Add(-1)
		case <-w.quit:
			return
		}
	}
}

// stop ends the idle workers and waits for every worker to end; the
// caller has waited for the requests they run.
func (w *requestWorkers) stop() {
	close(w.quit)
	w.wg.Wait()
}
