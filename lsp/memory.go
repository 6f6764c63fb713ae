package lsp

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// releaseDelay is how long the server waits after the last large frame
// before it returns memory to the OS.
const releaseDelay = time.Second

// memoryRelease gives the memory of large messages back to the OS once the
// server is idle. Go frees garbage at its next collection, which an idle
// server may not run for minutes, and returns freed pages to the OS slowly;
// the JSON encoders' pools keep their largest buffers until two collections
// have passed. So after a large frame (stream.onLarge) the server collects
// twice and returns what is free (debug.FreeOSMemory), once nothing large
// has happened for releaseDelay (docs/performance.md, "Large frames").
type memoryRelease struct {
	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// touch (re)starts the countdown to a release.
func (m *memoryRelease) touch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.stopped:
	case m.timer == nil:
		m.timer = time.AfterFunc(releaseDelay, releaseMemory)
	default:
		m.timer.Reset(releaseDelay)
	}
}

// stop cancels a pending release; the server is done.
func (m *memoryRelease) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = true
	if m.timer != nil {
		m.timer.Stop()
	}
}

func releaseMemory() {
	runtime.GC() // pooled buffers move to the pools' victim caches
	debug.FreeOSMemory()
}
