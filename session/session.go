package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
	"sync/atomic"
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
	// lines are the file's lines of a jsonl session, with their origins.
	lines []apiLine
	// needFull: the file is not in this package's layout (or a write failed),
	// so the next save rewrites it whole.
	needFull  bool
	metaStamp fileStamp
	// stopBlocks counts Stop events blocked in a row (DESIGN.md section 5 caps them).
	stopBlocks int
	// subagentStopBlocks counts SubagentStop events blocked in a row, by agent_id.
	subagentStopBlocks map[string]int
	// cwd is the agent's working directory as CwdChanged last reported it,
	// sent to hooks as cwd; "" until then (the project root).
	cwd string
	// unreported: catchUp reloaded a change of another process that the
	// file watcher has not reported yet.
	unreported bool
	closed     bool
}

// ID is the session id hooks receive as session_id.
func (s *Session) ID() string { return s.id }

// Format is the session's file format.
func (s *Session) Format() Format { return s.format }

// TranscriptPath is the session file hooks receive as transcript_path.
func (s *Session) TranscriptPath() string {
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
	out := make([]Message, len(s.conv.msgs))
	for i, m := range s.conv.msgs {
		out[i] = m.clone()
	}
	return out
}

// APIMessages returns the conversation as the model must see it (see ToAPI).
func (s *Session) APIMessages() []APIMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ToAPI(s.conv.msgs)
}

// Close releases the session's files; the store opens it again on demand.
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
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.file == nil {
		return nil
	}
	return s.file.close()
}

// load reads the session's file, finishing a write a crash interrupted
// (journal) and repairing a torn tail, which it rewrites at once so that no
// reader ever sees the torn file again.
func (s *Session) load() error {
	if s.format == FormatJSONL {
		return s.loadJSONL()
	}
	path := s.store.jsonPath(s.name)
	if err := replayJournal(path); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	p, err := parseJSONFile(data)
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
	switch {
	case p.layout:
		s.needFull = false
		return s.file.open(p.headLen, p.units, int64(len(data)))
	case p.torn:
		return s.rewriteAll()
	default:
		s.needFull = true
		return s.file.open(0, nil, int64(len(data)))
	}
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
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Killed between claiming the name and creating the transcript.
		if err = os.WriteFile(path, nil, 0o600); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	api, units, layout, torn := parseJSONLFile(data)
	msgs := FromAPI(api)
	s.conv = newConversation(msgs)
	s.lines = convert(msgs, 0)
	s.file = &segFile{path: path, term: jsonlTerm}
	if torn {
		return s.rewriteAll()
	}
	if layout && len(units) == len(s.lines) {
		for i := range s.lines {
			enc, err := appendAPIMessage(nil, &s.lines[i].msg)
			if err != nil || !bytes.Equal(enc, units[i]) {
				layout = false
				break
			}
		}
	} else {
		layout = false
	}
	s.needFull = !layout
	if !layout {
		return s.file.open(0, nil, int64(len(data)))
	}
	return s.file.open(0, units, int64(len(data)))
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
	if s.needFull || !s.diskChanged() {
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
func (s *Session) save() error {
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
	var err error
	switch {
	case s.needFull:
		err = s.rewriteAll()
	case s.conv.dirty == clean:
		return nil
	case s.diskChanged():
		// Changed by another process while hooks ran: the offsets are no
		// longer the file's. The session's state wins, written whole.
		err = s.rewriteAll()
	case s.format == FormatJSONL:
		err = s.saveJSONL()
	default:
		err = s.saveJSON()
	}
	if err != nil {
		// The file may now differ from what the session believes it holds:
		// rewrite it whole next time.
		s.needFull = true
		return fmt.Errorf("saving session %s: %w", s.id, err)
	}
	s.conv.dirty = clean
	return nil
}

// saveJSON re-encodes the messages from the first changed one and writes
// from the first whose bytes differ.
func (s *Session) saveJSON() error {
	msgs, old := s.conv.msgs, s.file.units
	from := min(s.conv.dirty, len(msgs), len(old))
	units := make([][]byte, 0, len(msgs)-from)
	for i := from; i < len(msgs); i++ {
		b, err := encodeJSON(msgs[i])
		if err != nil {
			return err
		}
		units = append(units, b)
	}
	j := 0
	for j < len(units) && from+j < len(old) && bytes.Equal(units[j], old[from+j]) {
		j++
	}
	if j == len(units) && len(msgs) == len(old) {
		return nil
	}
	return s.file.replace(from+j, units[j:], s.readers.Load() > 0)
}

// saveJSONL converts again from the nearest line that the change cannot
// have affected: the last line that starts with the first content of a
// message before the first changed one. Converting from there reproduces the
// lines before the change unchanged, so only the lines that differ are written.
func (s *Session) saveJSONL() error {
	k, start := s.reconvertFrom()
	lines := convert(s.conv.msgs, start)
	units := make([][]byte, len(lines))
	for i := range lines {
		b, err := appendAPIMessage(nil, &lines[i].msg)
		if err != nil {
			return err
		}
		units[i] = b
	}
	old := s.file.units
	j := 0
	for j < len(units) && k+j < len(old) && bytes.Equal(units[j], old[k+j]) {
		j++
	}
	s.lines = append(s.lines[:k], lines...)
	if j == len(units) && k+j == len(old) {
		return nil
	}
	return s.file.replace(k+j, units[j:], s.readers.Load() > 0)
}

// reconvertFrom says where saveJSONL converts again: from message start,
// giving the lines from index k on.
func (s *Session) reconvertFrom() (k, start int) {
	from := min(s.conv.dirty, len(s.conv.msgs))
	k = sort.Search(len(s.lines), func(i int) bool { return s.lines[i].first >= from }) - 1
	for k >= 0 && !s.lines[k].clean {
		k--
	}
	if k < 0 {
		// No line starts before the change: the messages before it send
		// nothing, so converting from the change is converting from the start.
		return 0, from
	}
	return k, s.lines[k].first
}

// rewriteAll writes the whole file atomically.
func (s *Session) rewriteAll() error {
	var head []byte
	var units [][]byte
	if s.format == FormatJSONL {
		if err := s.ensureMeta(); err != nil {
			return err
		}
		s.lines = convert(s.conv.msgs, 0)
		units = make([][]byte, len(s.lines))
		for i := range s.lines {
			b, err := appendAPIMessage(nil, &s.lines[i].msg)
			if err != nil {
				return err
			}
			units[i] = b
		}
	} else {
		var err error
		if head, err = jsonHead(s.hdr); err != nil {
			return err
		}
		units = make([][]byte, len(s.conv.msgs))
		for i := range s.conv.msgs {
			if units[i], err = encodeJSON(s.conv.msgs[i]); err != nil {
				return err
			}
		}
	}
	if err := s.file.rewrite(head, units); err != nil {
		return err
	}
	s.needFull = false
	s.conv.dirty = clean
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
