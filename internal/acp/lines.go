package acp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
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
	for {
		line, err := lr.read()
		if err != nil {
			return nil, err
		}
		if !blank(line) {
			return line, nil
		}
	}
}

func (lr *lineReader) read() ([]byte, error) {
	frag, err := lr.r.ReadSlice('\n')
	if err == nil {
		return append(make([]byte, 0, len(frag)), frag...), nil
	}
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

// writeBufferSize is the output buffer of each side: a burst of small
// messages (streamed text chunks) goes out in a few writes.
const writeBufferSize = 64 << 10

// lineWriter writes whole messages to one side. Lines are buffered until
// flush, which the proxy calls whenever it has nothing more to pass on at
// once (its input is drained, or a hook is about to run); a line never
// interleaves with another. After a write fails (the peer is gone) it drops
// what it is given.
type lineWriter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	broken error
}

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: bufio.NewWriterSize(w, writeBufferSize)}
}

// write queues one line (ending in "\n"); it reports false once the peer is gone.
func (lw *lineWriter) write(line []byte) bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.broken != nil {
		return false
	}
	if _, err := lw.w.Write(line); err != nil {
		lw.broken = err
		return false
	}
	return true
}

// flush sends what is queued.
func (lw *lineWriter) flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.broken == nil && lw.w.Buffered() > 0 {
		if err := lw.w.Flush(); err != nil {
			lw.broken = err
		}
	}
}
