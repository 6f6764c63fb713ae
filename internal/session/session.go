package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"maps"
	"os"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// Session is one agent conversation and its file. Every request on a session
// goes through the one *Session the Store hands out, so it is safe for
// concurrent use: changes take a short lock, and are on disk before the lock
// is released; hooks and "ask" prompts run without it, so a slow hook or a
// pending ask never holds up other requests on the same session.
type Session struct {
	store  *Store
	id     string
	name   string // file name stem: session_<name>.json
	format Format

	// readers counts the hook processes of this session running now: while
	// any runs, saves go through a copy renamed over the file, because a hook
	// may be reading it. It is raised under mu (a save cannot be half done)
	// and lowered without it.
	readers atomic.Int32

	mu   sync.Mutex // guards everything below
	hdr  fileHeader
	conv *conversation
	file *segFile
	// enc encodes the conversation into the file's units (encode.go).
	enc fileEncoder
	// needFull: the file is not in this package's layout (or a write failed),
	// so the next save rewrites it whole.
	needFull  bool
	metaStamp fileStamp
	// stopBlocks counts Stop events blocked in a row (docs/hooks.md, "Exit codes", caps them).
	stopBlocks int
	// subagentStopBlocks counts SubagentStop events blocked in a row, by agent_id.
	subagentStopBlocks map[string]int
	// agent is the agent's state as the client last said it (client.go).
	agent agentState
	// tools times the calls PreToolUse let run, for duration_ms (durations.go).
	tools toolClock
	// cwd is the agent's working directory as CwdChanged last reported it,
	// sent to hooks as cwd; "" until then (the project root).
	cwd string
	// unreported: catchUp reloaded a change of another process that the
	// file watcher has not reported yet.
	unreported bool
	closed     bool
	// running counts the events (run) in progress; ended is set when
	// SessionEnd has run, until another event starts (see enter).
	running int
	ended   bool
	// scratch: the session has no file (Scratch); saves only mark the
	// conversation saved.
	scratch bool

	// version, firstVersion, changes and forgotten describe the versions of
	// the conversation (changes.go); changes at or before forgotten are not
	// remembered.
	version, firstVersion, forgotten uint64
	changes                          []change
}

// ID is the session id hooks receive as session_id.
func (s *Session) ID() string { return s.id }

// Format is the session's file format.
func (s *Session) Format() Format { return s.format }

// TranscriptPath is the session file hooks receive as transcript_path.
func (s *Session) TranscriptPath() string {
	if s.scratch {
		return ""
	}
	if s.format == FormatJSONL {
		return s.store.jsonlPath(s.name)
	}
	return s.store.jsonPath(s.name)
}

// Messages returns a copy of the conversation that the caller may keep and
// change: the message and block lists are copied; tool inputs and hook
// metadata are shared and must not be changed in place.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messages(0)
}

// APIMessages returns the conversation as the model must see it (see ToAPI).
func (s *Session) APIMessages() []APIMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ToAPI(s.conv.msgs)
}

// Close releases the session's files; the store opens it again on demand.
// The files' stamps are kept, so that the watcher's report of the session's
// own last save, which may come after Close, is not taken for another
// process's change (which would open the session again).
func (s *Session) Close() error {
	st := s.store
	st.mu.Lock()
	if st.byID[s.id] == s {
		delete(st.byID, s.id)
		delete(st.byName, s.name)
	}
	st.mu.Unlock()
	return s.closeFiles()
}

func (s *Session) closeFiles() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	ferr := s.saveDeferred()
	s.closed = true
	stamps, err := s.releaseFiles()
	err = errors.Join(ferr, err)
	s.mu.Unlock()
	s.store.rememberClosed(stamps)
	return err
}

// releaseFiles closes the session's files and returns their stamps; the
// caller holds s.mu and has set s.closed.
func (s *Session) releaseFiles() (map[string]fileStamp, error) {
	stamps := map[string]fileStamp{}
	if s.format == FormatJSONL {
		stamps[s.store.metaPath(s.name)] = s.metaStamp
	}
	if s.file == nil {
		return stamps, nil
	}
	err := s.file.close()
	stamps[s.file.path] = s.file.stamp
	return stamps, err
}

// rememberClosed keeps the stamps of a closed session's files (see
// Store.closedStamps).
func (st *Store) rememberClosed(stamps map[string]fileStamp) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rememberClosedLocked(stamps)
}

// rememberClosedLocked is rememberClosed with st.mu held.
func (st *Store) rememberClosedLocked(stamps map[string]fileStamp) {
	if st.closedStamps == nil {
		st.closedStamps = map[string]fileStamp{}
	}
	maps.Copy(st.closedStamps, stamps)
}

// enter and leave bracket every event (run): a session whose SessionEnd
// has run is closed once no event is running on it any more, so that an
// event that started before the end (a FileChanged the server fired for
// it) still finishes. An event that starts after the end resumes the
// session: it is not closed then.
func (s *Session) enter() {
	s.mu.Lock()
	s.running++
	s.ended = false
	s.mu.Unlock()
}

func (s *Session) leave() error {
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
	return s.closeIfIdle()
}

// closeIfIdle closes an ended session no event is running on: it leaves
// the store (which loads it again from its file for a later event) and its
// descriptors are released. Deciding and leaving the store happen under
// both locks, so the store never hands out a session that is closed.
func (s *Session) closeIfIdle() error {
	st := s.store
	st.mu.Lock()
	s.mu.Lock()
	if !s.ended || s.running > 0 || s.closed {
		s.mu.Unlock()
		st.mu.Unlock()
		return nil
	}
	ferr := s.saveDeferred()
	s.closed = true
	// The stamps are remembered before the session leaves the store, under
	// the store's lock: a watcher event for the session's own last write
	// that came in between found neither the session nor its stamps, took
	// the file for another process's change and loaded the ended session
	// again, holding its transcript open for good
	// (TestEndedSessionsReleaseTheirTranscripts, about one run in ten).
	stamps, err := s.releaseFiles()
	st.rememberClosedLocked(stamps)
	if st.byID[s.id] == s {
		delete(st.byID, s.id)
		delete(st.byName, s.name)
	}
	s.mu.Unlock()
	st.mu.Unlock()
	return errors.Join(ferr, err)
}

// load reads the session's file, finishing a write a crash interrupted
// (journal) and repairing a torn tail, which it rewrites at once so that no
// reader ever sees the torn file again.
func (s *Session) load() error {
	s.startVersions()
	if s.format == FormatJSONL {
		return s.loadJSONL()
	}
	path := s.store.jsonPath(s.name)
	if err := replayJournal(path); err != nil {
		return err
	}
	p, size, err := readJSONFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := p.hdr.check(path); err != nil {
		return err
	}
	if p.hdr.ID != s.id {
		return fmt.Errorf("%s belongs to session %s, not %s", path, p.hdr.ID, s.id)
	}
	if p.hdr.Version == 0 {
		p.hdr.Version = fileVersion
	}
	s.hdr = p.hdr
	s.conv = newConversation(p.msgs)
	s.file = &segFile{path: path, sep: jsonSep, foot: jsonFoot}
	enc := &jsonEncoder{}
	enc.loaded(p.msgs)
	s.enc = enc
	switch {
	case p.layout:
		s.needFull = false
		return s.file.open(p.headLen, p.lens, size)
	case p.torn:
		return s.rewriteAll()
	default:
		s.needFull = true
		return s.file.open(0, nil, size)
	}
}

// readJSONFile reads a json session file line by line (scanJSONFile), and
// whole only when it is not in this package's layout.
func readJSONFile(path string) (parsedFile, int64, error) {
	f, fi, err := openSessionFile(path)
	if err != nil {
		return parsedFile{}, 0, err
	}
	defer enterLoad(fi.Size())()
	lines, err := countLines(io.LimitReader(f, MaxSessionFileBytes+1))
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return parsedFile{}, 0, err
	}
	counted := &countingReader{r: io.LimitReader(f, MaxSessionFileBytes+1)}
	p, done, err := scanJSONFile(counted, lines, fi.Size())
	f.Close()
	if err == nil && counted.n > MaxSessionFileBytes {
		err = &safefile.TooLargeError{Size: counted.n, Limit: MaxSessionFileBytes}
	}
	if err != nil || done {
		return p, counted.n, err
	}
	data, err := safefile.ReadFile(path, MaxSessionFileBytes)
	if err != nil {
		return parsedFile{}, 0, err
	}
	p, err = parseJSONFile(data)
	return p, int64(len(data)), err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

func (s *Session) loadJSONL() error {
	hdr, metaInfo, err := readMeta(s.store.metaPath(s.name))
	if err != nil {
		return err
	}
	if err := hdr.check(s.store.metaPath(s.name)); err != nil {
		return err
	}
	if hdr.ID != s.id {
		return fmt.Errorf("%s belongs to session %s, not %s", s.store.metaPath(s.name), hdr.ID, s.id)
	}
	s.hdr, s.metaStamp = hdr, stampOf(metaInfo)
	path := s.store.jsonlPath(s.name)
	if err := replayJournal(path); err != nil {
		return err
	}
	f, fi, err := openSessionFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Killed between claiming the name and creating the transcript.
		if err = os.WriteFile(path, nil, 0o600); err == nil {
			f, fi, err = openSessionFile(path)
		}
	}
	if err != nil {
		return err
	}
	defer enterLoad(fi.Size())()
	lines, err := countLines(io.LimitReader(f, MaxSessionFileBytes+1))
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return err
	}
	counted := &countingReader{r: io.LimitReader(f, MaxSessionFileBytes+1)}
	msgs, sums, layout, torn, err := scanJSONLFile(counted, lines, fi.Size())
	f.Close()
	if err == nil && counted.n > MaxSessionFileBytes {
		err = fmt.Errorf("%s: %w", path, &safefile.TooLargeError{Size: counted.n, Limit: MaxSessionFileBytes})
	}
	if err != nil {
		return err
	}
	s.conv = newConversation(msgs)
	s.file = &segFile{path: path, term: jsonlTerm}
	enc := &jsonlEncoder{}
	s.enc = enc
	if torn {
		return s.rewriteAll()
	}
	// The file is in this package's layout when folding the messages gives
	// its lines back exactly; then saves rewrite only what changes.
	same, err := enc.load(s.conv, len(sums), func(i int, sum lineSum) bool {
		return i < len(sums) && sums[i] == sum
	})
	if err != nil {
		return err
	}
	layout = layout && same && len(enc.loaded) == len(sums)
	s.needFull = !layout
	if !layout {
		return s.file.open(0, nil, counted.n)
	}
	lens := make([]int64, len(sums))
	for i, sum := range sums {
		lens[i] = sum.n
	}
	return s.file.open(0, lens, counted.n)
}

// lineSum identifies a line of a jsonl file without keeping it: its length
// and a hash of its bytes.
type lineSum struct {
	n    int64
	hash uint64
}

// lineSeed seeds the line hashes; they are only compared within a process.
var lineSeed = maphash.MakeSeed()

func sumOf(pieces ...[]byte) lineSum {
	var h maphash.Hash
	h.SetSeed(lineSeed)
	var n int64
	for _, p := range pieces {
		h.Write(p)
		n += int64(len(p))
	}
	return lineSum{n, h.Sum64()}
}

// scanJSONLFile reads a jsonl transcript one line at a time: the messages of
// every complete line up to the first one that does not parse (torn), and
// each line's sum. layout is false when the file has blank lines. lines and
// size, the file's newlines and length, size the lists (see capacityFor).
func scanJSONLFile(r io.Reader, lines int, size int64) (msgs []Message, sums []lineSum, layout, torn bool, err error) {
	lr := lineReader{r: bufio.NewReaderSize(r, 64<<10)}
	layout = true
	if n := capacityFor(lines, size); n > 0 {
		msgs, sums = make([]Message, 0, n), make([]lineSum, 0, n)
	}
	var arena msgArena
	var dec apiLineDecoder
	for {
		line, complete, err := lr.next()
		if err == io.EOF {
			return msgs, sums, layout, false, nil
		}
		if err != nil {
			return nil, nil, false, false, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if complete {
				layout = false
				continue
			}
			return msgs, sums, layout, false, nil
		}
		if !complete {
			return msgs, sums, false, true, nil
		}
		var ok bool
		if msgs, ok = appendJSONLLine(msgs, line, &dec, &arena); !ok {
			return msgs, sums, false, true, nil
		}
		sums = append(sums, sumOf(line))
	}
}

// appendJSONLLine decodes one line of a jsonl transcript and adds its
// message to msgs (appendFromAPI), its blocks, tool calls and short strings
// in the arena and nothing pointing into line; ok is false for a line that
// is not a message (torn).
func appendJSONLLine(msgs []Message, line []byte, dec *apiLineDecoder, a *msgArena) ([]Message, bool) {
	m, ok := dec.decode(line)
	if !ok {
		return msgs, false
	}
	a.apiMessage(&m, line)
	return appendFromAPI(msgs, &m, a), true
}

// diskChanged reports whether the file is no longer as this session last
// wrote it: another process changed, replaced or removed it.
func (s *Session) diskChanged() bool {
	fi, err := os.Stat(s.file.path)
	return err != nil || !s.file.stamp.same(fi)
}

// catchUp reloads the file when another process changed it since the last
// save, before an event changes the conversation: the file watcher reports
// changes late (it debounces), and writing at offsets of a file that is no
// longer there would corrupt it. The caller holds s.mu.
func (s *Session) catchUp() {
	if s.scratch || s.needFull || !s.diskChanged() {
		return
	}
	if err := s.reload(); err != nil {
		s.needFull = true // unreadable or gone: write ours again
		return
	}
	s.unreported = true
}

// save writes what changed since the last save. It is called with s.mu held,
// and returns once the write syscalls returned.
func (s *Session) save() error { return s.saveChecked(false) }

// saveAfterChange is save after an event's hooks ran: with
// Options.SaveBeforeHooks the change waits for the next event whose hooks
// may read it, Flush or the session's close.
func (s *Session) saveAfterChange() error {
	if s.store.saveBeforeHooks {
		return nil
	}
	return s.save()
}

// Flush writes what the session has not written yet (Options.SaveBeforeHooks
// keeps changes until a hook may read them): the host calls it when a turn
// ends, so that the file is whole whenever the agent is idle.
func (s *Session) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.save()
}

// saveDeferred writes what Options.SaveBeforeHooks kept unwritten, before
// hook processes start (hookReaders.Enter) and before the session's files
// are released; the caller holds s.mu.
func (s *Session) saveDeferred() error {
	if !s.store.saveBeforeHooks || s.closed || s.conv.dirty == clean {
		return nil
	}
	return s.save()
}

// saveCaughtUp is save right after catchUp, with s.mu held since: catchUp
// has just compared the file with what the session wrote (one stat of the
// path), and a second stat microseconds later would only repeat it.
func (s *Session) saveCaughtUp() error { return s.saveChecked(true) }

func (s *Session) saveChecked(caughtUp bool) error {
	if s.closed {
		return ErrClosed
	}
	if s.file != nil && s.file.readOnly != nil {
		if s.conv.dirty == clean {
			return nil // a file opened read-only is shown as it is, not converted
		}
		if err := s.file.writable(); err != nil {
			// Nothing was written: the file still matches what was loaded,
			// and the change is written by the first save that can write.
			return fmt.Errorf("saving session %s: %w", s.id, err)
		}
	}
	changed, from := s.conv.dirty != clean, min(s.conv.dirty, len(s.conv.msgs))
	var err error
	switch {
	case s.scratch:
		// nothing to write: the conversation lives in memory only
	case s.needFull:
		err = s.rewriteAll()
	case s.conv.dirty == clean:
		return nil
	case !caughtUp && s.diskChanged():
		// Changed by another process while hooks ran: the offsets are no
		// longer the file's. The session's state wins, written whole.
		err = s.rewriteAll()
	default:
		err = s.saveUnits()
	}
	if err != nil {
		if !errors.Is(err, errFileIntact) {
			// The file may now differ from what the session believes it
			// holds: rewrite it whole next time.
			s.needFull = true
		}
		return fmt.Errorf("saving session %s: %w", s.id, err)
	}
	if changed {
		s.noteChange(from)
	}
	s.conv.saved()
	return nil
}

// fileEncoder turns the conversation into the file's units and remembers
// what it wrote (encode.go): update encodes the messages from index from on,
// reusing what did not change, and says what to write (ok false: nothing).
type fileEncoder interface {
	update(c *conversation, from int) (w unitWrite, ok bool, err error)
}

func newEncoder(f Format) fileEncoder {
	if f == FormatJSONL {
		return &jsonlEncoder{}
	}
	return &jsonEncoder{}
}

// saveUnits writes what changed from the first changed message on.
func (s *Session) saveUnits() error {
	if measureNoSave { // a measuring build only (measure_nosave.go)
		return nil
	}
	if s.enc == nil {
		s.enc = newEncoder(s.format) // a new session: nothing written yet
	}
	w, ok, err := s.enc.update(s.conv, s.conv.dirty)
	if err != nil || !ok {
		return err
	}
	return s.file.replace(w.from, w.keep, w.units, s.readers.Load() > 0)
}

// rewriteAll writes the whole file atomically, encoding it afresh.
func (s *Session) rewriteAll() error {
	var head []byte
	if s.format == FormatJSONL {
		if err := s.ensureMeta(); err != nil {
			return err
		}
	} else {
		var err error
		if head, err = jsonHead(s.hdr); err != nil {
			return err
		}
	}
	enc := newEncoder(s.format)
	w, _, err := enc.update(s.conv, 0)
	if err != nil {
		return err
	}
	units := make([][]byte, len(w.units))
	for i, u := range w.units {
		units[i] = joinPieces(u)
	}
	if err := s.file.rewrite(head, units); err != nil {
		return err
	}
	s.enc = enc
	s.needFull = false
	s.conv.saved()
	return nil
}

// ensureMeta writes a jsonl session's meta file again if it was removed:
// without it the session could not be opened again.
func (s *Session) ensureMeta() error {
	path := s.store.metaPath(s.name)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	hdr := s.hdr
	hdr.Format = FormatJSONL
	meta, err := encodeJSON(hdr)
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(meta, '\n'), false); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	s.metaStamp = stampOf(fi)
	return nil
}
