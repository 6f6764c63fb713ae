package session

import (
	"errors"
	"maps"
	"sync"

	"github.com/wavehooks/wavehooks/session/transcript"
)

// Session is one agent conversation and its file. Every request on a session
// goes through the one *Session the Store hands out, so it is safe for
// concurrent use: changes take a short lock, and are on disk before the lock
// is released; hooks and "ask" prompts run without it, so a slow hook or a
// pending ask never holds up other requests on the same session.
//
// Lock discipline. mu, the conversation's lock, guards the messages and
// every field below it. The file (a *transcript.File) has its own lock,
// which guards what storage keeps: descriptors, layout, encoder, stamps.
// The order is Store.mu, then mu, then the file's lock, never the reverse;
// the file's lock is a leaf (package transcript calls nothing back).
//
// mu IS held while the file is written, on purpose: a save reads the
// message list mu guards, a change whose save fails is taken back under the
// same hold (begin: no other request's change may slip in between the
// write and the undo, nor be undone with it), and the changes are marked
// saved only once the write returned. That is what keeps "a message the
// server acknowledged is on disk before the answer" and "a failed save
// never reaches the model later" without a second copy of the messages.
// What touches the file without mu: releasing its descriptors once the
// session is marked closed (closeFiles, closeIfIdle; no save can follow),
// counting the hook processes that read it (hookReaders.Leave) and its
// path (TranscriptPath), which never changes. Hooks and asks run with
// neither lock held.
type Session struct {
	store *Store
	id    string
	name  string // file name stem: session_<name>.json
	// format is the session's file format, fixed when it was made.
	format Format
	// file is the session's transcript; nil for a Scratch session. It is
	// set when the session is made and never replaced (a reload replaces
	// what it holds), so reading the pointer needs no lock.
	file *transcript.File

	mu   sync.Mutex // guards everything below
	conv *conversation
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
	if s.file == nil {
		return ""
	}
	return s.file.Path()
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
	s.mu.Unlock()
	// Marked closed, the session writes nothing more: the descriptors are
	// released under the file's lock alone.
	stamps, err := s.releaseFiles()
	s.store.rememberClosed(stamps)
	return errors.Join(ferr, err)
}

// releaseFiles closes the session's files and returns their stamps; the
// session is marked closed, so nothing writes them any more.
func (s *Session) releaseFiles() (map[string]transcript.Stamp, error) {
	if s.file == nil {
		return nil, nil
	}
	return s.file.Release()
}

// rememberClosed keeps the stamps of a closed session's files (see
// Store.closedStamps).
func (st *Store) rememberClosed(stamps map[string]transcript.Stamp) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rememberClosedLocked(stamps)
}

// rememberClosedLocked is rememberClosed with st.mu held.
func (st *Store) rememberClosedLocked(stamps map[string]transcript.Stamp) {
	if st.closedStamps == nil {
		st.closedStamps = map[string]transcript.Stamp{}
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
// the store's lock, so the store never hands out a session that is closed.
func (s *Session) closeIfIdle() error {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	s.mu.Lock()
	if !s.ended || s.running > 0 || s.closed {
		s.mu.Unlock()
		return nil
	}
	ferr := s.saveDeferred()
	s.closed = true
	s.mu.Unlock()
	// The stamps are remembered before the session leaves the store, under
	// the store's lock: a watcher event for the session's own last write
	// that came in between found neither the session nor its stamps, took
	// the file for another process's change and loaded the ended session
	// again, holding its transcript open for good
	// (TestEndedSessionsReleaseTheirTranscripts, about one run in ten).
	// The session is marked closed: its files are released without mu.
	stamps, err := s.releaseFiles()
	st.rememberClosedLocked(stamps)
	if st.byID[s.id] == s {
		delete(st.byID, s.id)
		delete(st.byName, s.name)
	}
	return errors.Join(ferr, err)
}

// open loads the session's file, finishing a write a crash interrupted
// and repairing a torn tail (transcript.Dir.Load).
func (s *Session) open() error {
	s.startVersions()
	f, msgs, err := s.store.disk.Load(s.name, s.id, s.format)
	if err != nil {
		return err
	}
	s.file, s.conv = f, newConversation(msgs)
	return nil
}

// catchUp reloads the file when another process changed it since the last
// save, before an event changes the conversation: the file watcher reports
// changes late (it debounces), and writing at offsets of a file that is no
// longer there would corrupt it. The caller holds s.mu.
func (s *Session) catchUp() {
	if s.scratch || !s.file.Stale() {
		return
	}
	if err := s.reload(); err != nil {
		s.file.MustRewrite() // unreadable or gone: write ours again
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

// saveChecked hands the conversation's changes to the file, with s.mu held
// (see Session for why), and forgets them once they are on disk.
func (s *Session) saveChecked(caughtUp bool) error {
	if s.closed {
		return ErrClosed
	}
	changed, from := s.conv.dirty != clean, min(s.conv.dirty, len(s.conv.msgs))
	if !s.scratch { // a scratch session's conversation lives in memory only
		if err := s.file.Save(s.conv.msgs, s.conv.dirty, s.conv.touched, caughtUp); err != nil {
			return err
		}
	}
	if changed {
		s.noteChange(from)
	}
	s.conv.saved()
	return nil
}
