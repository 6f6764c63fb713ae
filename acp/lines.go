package acp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
)

// DefaultMaxLine bounds one message. ACP has no limit of its own; a message
// this large (a file of 256 MiB in one fs/write_text_file) is refused with
// an error rather than held in memory.
const DefaultMaxLine = 256 << 20

// readBufferSize is the line reader's buffer: most messages fit, and a
// longer one is gathered in a buffer of its own that is dropped afterwards,
// so one 50 MB message does not keep 50 MB for the rest of the session.
const readBufferSize = 64 << 10

// errLineTooLong reports a line longer than the limit; it was skipped whole.
type errLineTooLong struct{ size, limit int }

func (e *errLineTooLong) Error() string {
	return fmt.Sprintf("a message of more than %d bytes (at least %d) was skipped", e.limit, e.size)
}

// lineReader reads newline-delimited messages.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, readBufferSize), max: max}
}

// next returns the next line in a slice of its own, ending in "\n" (added if
// the stream ended without one). Lines of only white space are skipped. It
// returns io.EOF at the end, and *errLineTooLong for a line over the limit,
// after which reading goes on with the next line.
func (lr *lineReader) next() ([]byte, error) {
	line, owned, err := lr.nextView()
	if err != nil || owned {
		return line, err
	}
	return append(make([]byte, 0, len(line)), line...), nil
}

// nextView is next without the copy where it can: a line that fits the
// buffer is returned in it (owned false), valid only until the next read
// and not to be kept. The agent's reader passes most lines on this way
// (streamed text, which it copies only into the editor's output), instead
// of allocating and copying each one first (BenchmarkForwarding).
func (lr *lineReader) nextView() (line []byte, owned bool, err error) {
	for {
		line, owned, err = lr.read()
		if err != nil {
			return nil, false, err
		}
		if !blank(line) {
			return line, owned, nil
		}
	}
}

// read is nextView for one line, blank or not: a line that fits the buffer
// is returned in it; a long one, or the last one without its "\n", in a
// slice of its own (owned).
func (lr *lineReader) read() ([]byte, bool, error) {
	frag, err := lr.r.ReadSlice('\n')
	if err == nil {
		return frag, false, nil
	}
	line, err := lr.readRest(frag, err)
	return line, true, err
}

// readRest finishes a line ReadSlice did not return whole: the stream's
// last line, unterminated, or a long line, gathered or skipped.
func (lr *lineReader) readRest(frag []byte, err error) ([]byte, error) {
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(frag) == 0 {
			return nil, err
		}
		return append(append(make([]byte, 0, len(frag)+1), frag...), '\n'), nil // the last line, unterminated
	}
	// A long line: gather it, or skip it when it passes the limit.
	buf := append(make([]byte, 0, 4*len(frag)), frag...)
	size := len(frag)
	for {
		frag, err = lr.r.ReadSlice('\n')
		size += len(frag)
		if size > lr.max {
			buf = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				frag, err = lr.r.ReadSlice('\n')
				size += len(frag)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, &errLineTooLong{size: size, limit: lr.max}
		}
		buf = append(buf, frag...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return append(buf, '\n'), nil
		default:
			return nil, err
		}
	}
}

func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// buffered is how many bytes of a reader's input are read but not yet returned.
func (lr *lineReader) buffered() int { return lr.r.Buffered() }

// writeHighWater is how much a side may have queued before a writer that
// may wait (the worker, the agent's reader) waits for the peer to take it:
// a peer that stops reading holds the proxy back rather than fill its memory.
const writeHighWater = 8 << 20

// keepBuffer is the largest buffer kept for the next flush; a larger one (a
// 50 MB message) is dropped once written.
const keepBuffer = 1 << 20

// lineWriter writes whole messages to one side. Lines are queued until
// flush, which the proxy calls whenever it has nothing more to pass on at
// once (its input is drained, or a hook is about to run); a line never
// interleaves with another. No lock is held while the peer is written to,
// so that queueing never waits on a slow peer; one flush writes at a time.
// tryFlush writes without waiting, for the editor's reader, which must
// never wait on the agent (handleEditor). After a write fails (the peer is
// gone) it drops what it is given.
type lineWriter struct {
	w io.Writer
	// raw is w's descriptor when w is a pipe in non-blocking mode, which
	// tryFlush can write to once without waiting; nil otherwise.
	raw syscall.RawConn

	mu      sync.Mutex
	idle    sync.Cond // signalled when a flush stops writing
	buf     []byte    // queued, not yet written
	spare   []byte    // the buffer last written, for reuse
	writing bool      // a flush is writing buf's former contents, without mu
	broken  error
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w, raw: nonBlockingConn(w)}
	lw.idle.L = &lw.mu
	return lw
}

// write queues one line (ending in "\n"); it reports false once the peer is
// gone. With writeHighWater queued it waits for the peer (flush).
func (lw *lineWriter) write(line []byte) bool {
	lw.mu.Lock()
	if lw.broken != nil {
		lw.mu.Unlock()
		return false
	}
	lw.buf = append(lw.buf, line...)
	full := len(lw.buf) >= writeHighWater
	lw.mu.Unlock()
	if full {
		lw.flush()
	}
	return true
}

// pending is how much is queued.
func (lw *lineWriter) pending() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return len(lw.buf)
}

// flush sends what is queued, waiting for the peer to take it.
func (lw *lineWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for lw.writing {
		lw.idle.Wait()
	}
	for len(lw.buf) > 0 && lw.broken == nil {
		out := lw.buf
		lw.buf, lw.spare = lw.spare[:0], nil
		lw.writing = true
		lw.mu.Unlock()
		_, err := lw.w.Write(out)
		lw.mu.Lock()
		lw.writing = false
		if err != nil {
			lw.broken = err
		}
		if cap(out) <= keepBuffer && lw.spare == nil {
			lw.spare = out[:0]
		}
	}
	if lw.broken != nil {
		lw.buf = nil
	}
	lw.idle.Broadcast()
}

// tryFlush sends what is queued as far as the peer takes it at once, and
// reports whether nothing is left: false when the peer's pipe is full,
// another flush is writing, or the peer is not a pipe that can be written
// to without waiting. The caller leaves the rest to one that may wait.
func (lw *lineWriter) tryFlush() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.broken != nil || len(lw.buf) == 0 {
		return true
	}
	if lw.writing || lw.raw == nil {
		return false
	}
	n, err := writeOnce(lw.raw, lw.buf)
	if n > 0 {
		lw.buf = lw.buf[:copy(lw.buf, lw.buf[n:])]
	}
	if err != nil && !errors.Is(err, errWouldBlock) {
		lw.broken, lw.buf = err, nil
		return true
	}
	return len(lw.buf) == 0
}
