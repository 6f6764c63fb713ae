// Package writebehind writes records after the answer that made them: a
// hooked call's run-log line and audit record are appended by a goroutine
// of their own while the caller's answer is already on its way, instead of
// on the deciding goroutine before it (issue #39: ≈ 130 µs of a hooked
// call's 4 ms here were those two local writes).
//
// A Queue keeps the order records were put in, never drops one (a full
// queue makes Put wait: memory stays bounded when the disk is slow), and
// has no goroutine while it is empty, so a Queue nobody closes leaks
// nothing. Flush waits until every record put before it is written: hosts
// call it when they end, and tests before they read what was written.
// What a hard crash (SIGKILL, power loss) takes is what was queued and not
// yet written: at most the records of the last few milliseconds.
package writebehind

import "sync"

// DefaultMax is how many records a Queue holds before Put waits.
const DefaultMax = 4096

// Queue is an ordered write-behind queue of records of type T. The zero
// value is not usable: make one with New.
type Queue[T any] struct {
	write func(batch []T) // writes a batch, in order; called by one goroutine at a time
	max   int

	mu        sync.Mutex
	changed   sync.Cond // signalled when the queue shrinks or the writer stops
	queued    []T
	writing   bool   // a writer goroutine is running
	put, done uint64 // records put, and written (or handed to write)
}

// New is a queue that hands its records to write, in batches, from a
// goroutine started when the first record of a batch is put. max bounds the
// records waiting (DefaultMax when <= 0).
func New[T any](write func(batch []T), max int) *Queue[T] {
	if max <= 0 {
		max = DefaultMax
	}
	q := &Queue[T]{write: write, max: max}
	q.changed.L = &q.mu
	return q
}

// Put queues r to be written after the records put before it, waiting
// while the queue is full.
func (q *Queue[T]) Put(r T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queued) >= q.max {
		q.changed.Wait()
	}
	q.queued = append(q.queued, r)
	q.put++
	if !q.writing {
		q.writing = true
		go q.drain()
	}
}

// drain writes batches until the queue is empty, then ends.
func (q *Queue[T]) drain() {
	q.mu.Lock()
	for len(q.queued) > 0 {
		batch := q.queued
		q.queued = nil
		q.changed.Broadcast() // room for the Puts waiting
		q.mu.Unlock()
		q.writeBatch(batch)
		q.mu.Lock()
		q.done += uint64(len(batch))
		q.changed.Broadcast()
	}
	q.writing = false
	q.changed.Broadcast()
	q.mu.Unlock()
}

// writeBatch calls write. A writer that panics loses its batch, not the
// process or the queue: the records after it are still written, and Flush
// still returns (write logs its own failures; a panic is a bug in it).
func (q *Queue[T]) writeBatch(batch []T) {
	defer func() { _ = recover() }()
	q.write(batch)
}

// Flush waits until every record put before it has been written.
func (q *Queue[T]) Flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	target := q.put
	for q.done < target {
		q.changed.Wait()
	}
}
