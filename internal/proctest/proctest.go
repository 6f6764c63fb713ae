// Package proctest holds what the tests of several packages need of
// processes and files that differs by operating system: whether a process
// still runs, killing one a test left behind, and named pipes. The Windows
// versions only have to compile: the tests run their sh hooks on Linux
// (README, "What is tested where").
package proctest

import (
	"bytes"
	"sync"
)

// Output collects what a process (or a server's log) writes from another
// goroutine, for a test to read while it runs: bytes.Buffer with a lock.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Bytes is a copy of everything written so far.
func (o *Output) Bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return bytes.Clone(o.buf.Bytes())
}
