package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"unsafe"

	fastjson "github.com/segmentio/encoding/json"
)

// Format is how a session file is written. It is chosen per session when the
// session is created (settings' transcriptFormat) and read back from the file
// name afterwards, so changing the setting never orphans existing sessions.
type Format string

const (
	// FormatJSON is session_<shortId>.json: {id, version, metadata, state:
	// {messages}} with every block, errors included, as docs/hooks.md's jq reads it.
	FormatJSON Format = "json"
	// FormatJSONL is session_<shortId>.jsonl: one API message per line, as
	// Claude Code's transcripts and the jq recipes of docs/hooks.md expect, with id and
	// metadata in session_<shortId>.meta.json. Error blocks are not in it (the
	// model never sees them), so a resumed jsonl session has none; see FromAPI
	// for what else a resume cannot restore. A user line whose content is a
	// list (tool results, or context merged with a prompt) defeats the jq recipes of docs/hooks.md,
	// readable-text recipe, which adds "[USER] " to .content.
	FormatJSONL Format = "jsonl"
)

// fileVersion is the layout version this package writes; files of a newer
// version are refused rather than misread.
const fileVersion = 1

// fileHeader is everything in a session file besides its messages: the head
// of a json file, or the whole meta file of a jsonl session.
type fileHeader struct {
	ID       string         `json:"id"`
	Version  int            `json:"version"`
	Format   Format         `json:"format,omitempty"` // meta file only
	Metadata map[string]any `json:"metadata"`
}

func (h *fileHeader) check(name string) error {
	if h.Version > fileVersion {
		return fmt.Errorf("%s was written by a newer wavehooks (version %d)", name, h.Version)
	}
	if err := ValidateID(h.ID); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Layout constants of the json format: the messages array is the last thing
// in the file, so appending a message rewrites only the closing brackets.
var (
	jsonSep  = []byte(",\n")
	jsonFoot = []byte("\n]}}\n")
	// jsonHeadEnd ends the head line; "state" is last so docs/hooks.md's
	// `jq '.state.messages'` finds the messages after id and metadata.
	jsonHeadEnd = []byte(`,"state":{"messages":[`)
	jsonlTerm   = []byte("\n")
)

// jsonHead is the first line of a json session file.
func jsonHead(h fileHeader) ([]byte, error) {
	h.Format = ""
	if h.Metadata == nil {
		h.Metadata = map[string]any{}
	}
	b, err := encodeJSON(h)
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], jsonHeadEnd...)
	return append(b, '\n'), nil
}

// parsedFile is what reading a session file found.
type parsedFile struct {
	hdr  fileHeader
	msgs []Message
	// lens are the lengths of the file's unit lines and headLen the head's
	// length, when the file is in this package's layout (layout true); the
	// session then rewrites only what changes.
	lens    []int64
	headLen int64
	layout  bool
	// torn: the file ended in the middle of a write; msgs holds every
	// complete message before the tear.
	torn bool
}

// parseJSONFile reads a json session file, in this package's layout or any
// other valid JSON of the same shape.
func parseJSONFile(data []byte) (parsedFile, error) {
	p, done, err := scanJSONFile(bytes.NewReader(data), bytes.Count(data, []byte{'\n'}), int64(len(data)))
	if err != nil {
		return p, err
	}
	if done {
		return p, nil
	}
	if p.headLen == 0 || json.Valid(data) {
		return parseForeignJSON(data)
	}
	p.torn, p.layout = true, false
	return p, nil
}

// scanJSONFile reads a json session file in this package's layout one line
// at a time, so that loading a long session never holds the file in memory
// besides its messages. done is false when the file turned out not to be
// entirely in the layout (another program's JSON, or a torn tail): the
// caller then reads it whole (parseJSONFile); p.headLen is 0 when not even
// its first line was. lines, the file's count of newlines, and size, its
// length, size the message list so that it is allocated once (see
// capacityFor).
func scanJSONFile(r io.Reader, lines int, size int64) (p parsedFile, done bool, err error) {
	lr := lineReader{r: bufio.NewReaderSize(r, 64<<10)}
	var arena msgArena
	var scratch []BlockJSON // the block list each line decodes into
	line, complete, err := lr.next()
	if err != nil || !complete || !bytes.HasSuffix(line, jsonHeadEnd) {
		return p, false, ignoreEOF(err)
	}
	if err := json.Unmarshal(append(bytes.Clone(line), "]}}"...), &p.hdr); err != nil {
		return p, false, nil
	}
	p.headLen = int64(len(line) + 1)
	if n := capacityFor(lines, size); n > 0 { // only for what begins as a session file
		p.msgs, p.lens = make([]Message, 0, n), make([]int64, 0, n)
	}
	p.layout = true
	footer := false
	lastComma := true
	for !footer {
		line, complete, err := lr.next()
		if err != nil || !complete {
			return p, false, ignoreEOF(err)
		}
		switch {
		case string(line) == "]}}":
			footer = true
			continue
		case len(line) == 0:
			p.layout = p.layout && len(p.lens) == 0
			continue
		}
		lm, unit, after, ok := decodeMessageLine(line, scratch)
		if !ok {
			return p, false, nil
		}
		p.layout = p.layout && lastComma
		lastComma = string(after) == ","
		if cap(lm.Blocks) > cap(scratch) {
			scratch = lm.Blocks[:0]
		}
		p.lens = append(p.lens, int64(len(unit)))
		p.msgs = append(p.msgs, arena.message(&lm, line))
		if len(after) > 0 && !lastComma {
			return p, false, nil
		}
	}
	for {
		line, _, err := lr.next()
		if err != nil {
			if err != io.EOF {
				return p, false, err
			}
			break
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return p, false, nil
		}
	}
	if lastComma && len(p.lens) > 0 {
		p.layout = false
	}
	return p, true, nil
}

// capacityFor is the length to give a message list for a file of size
// bytes and lines newlines: its lines, each a message at most, unless that
// would take more memory than the file's size (a file of blank or tiny
// lines), in which case the list grows as messages are found.
func capacityFor(lines int, size int64) int {
	if lines <= 0 || int64(lines)*int64(unsafe.Sizeof(Message{})+8) > size {
		return 0
	}
	return lines
}

// countLines counts the newlines of r.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// decodeMessageLine reads a line of the messages array: a message and its
// separator. An append overwrites the newline after the last message with
// ",\n…": cut after one byte, it leaves that message's line as `{…},]}}`.
// The message is whole, so it is returned, and the caller drops the tail.
// m.Blocks is decoded into scratch when it is long enough, and m's strings
// may point into line (segmentio's decoder without copies: a resume then
// leaves little garbage behind, docs/performance.md): the caller copies
// both out (msgArena.message) before the next line.
func decodeMessageLine(line []byte, scratch []BlockJSON) (m lineMessage, unit, after []byte, ok bool) {
	unit = line
	if n := len(line); n > 0 && line[n-1] == ',' {
		unit, after = line[:n-1], line[n-1:]
	}
	clear(scratch[:cap(scratch)]) // the decoder keeps the fields of a reused block that a line leaves out
	m.Blocks = scratch[:0]
	if rest, err := fastjson.Parse(unit, &m, fastjson.ZeroCopy); err == nil && len(rest) == 0 && m.Role != "" {
		if !m.hasMetadata() {
			return m, unit, after, true
		}
		// A hook's metadata would keep strings in the line, which is
		// reused: decode such a line again, copying (they are rare).
		clear(m.Blocks[:cap(m.Blocks)])
		m.Blocks = m.Blocks[:0]
		if json.Unmarshal(unit, &m) == nil {
			return m, unit, after, true
		}
	}
	m = lineMessage{}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&m); err != nil || m.Role == "" {
		return lineMessage{}, nil, nil, false
	}
	return m, line[:dec.InputOffset()], line[dec.InputOffset():], true
}

// lineMessage is a message as a line of the file holds it, decoded with
// BlockJSON directly rather than through Block.UnmarshalJSON, which would
// read every block twice.
type lineMessage struct {
	Role   string      `json:"role"`
	Blocks []BlockJSON `json:"blocks"`
}

func (m *lineMessage) hasMetadata() bool {
	for i := range m.Blocks {
		if m.Blocks[i].Metadata != nil {
			return true
		}
	}
	return false
}

// lineReader reads lines of any length from a buffered reader.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// next returns the next line without its newline, valid until the next
// call; complete is false for a last line that has no newline.
func (l *lineReader) next() (line []byte, complete bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			l.buf = append(l.buf, chunk...)
			continue
		}
		if len(l.buf) > 0 {
			l.buf = append(l.buf, chunk...)
			chunk = l.buf
		}
		switch {
		case err == io.EOF && len(chunk) > 0:
			return chunk, false, nil
		case err != nil:
			return nil, false, err
		}
		return chunk[:len(chunk)-1], true, nil
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// parseForeignJSON reads a valid session file that is not laid out one
// message per line (written or reformatted by another program).
func parseForeignJSON(data []byte) (parsedFile, error) {
	var whole struct {
		fileHeader
		State struct {
			Messages []Message `json:"messages"`
		} `json:"state"`
	}
	if err := json.Unmarshal(data, &whole); err != nil {
		return parsedFile{}, fmt.Errorf("not a session file: %w", err)
	}
	return parsedFile{hdr: whole.fileHeader, msgs: whole.State.Messages}, nil
}

// loadGC lowers the garbage collector's target while large session files
// load: decoding a file leaves garbage of about its size, which the default
// target (a heap twice the live one) lets pile up to double the memory a
// resume needs. Loads may overlap; the target in force before the first is
// restored after the last.
var loadGC struct {
	sync.Mutex
	loads int
	old   int
}

// largeLoad is the file size from which a load lowers the GC target.
const largeLoad = 4 << 20

func enterLoad(size int64) func() {
	if size < largeLoad {
		return func() {}
	}
	loadGC.Lock()
	if loadGC.loads == 0 {
		loadGC.old = debug.SetGCPercent(25)
	}
	loadGC.loads++
	loadGC.Unlock()
	return func() {
		loadGC.Lock()
		loadGC.loads--
		if loadGC.loads == 0 {
			debug.SetGCPercent(loadGC.old)
		}
		loadGC.Unlock()
	}
}
