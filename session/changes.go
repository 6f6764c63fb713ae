package session

import (
	"sync/atomic"
	"time"
)

// Versions let an editor keep a copy of a conversation and apply only what
// changed (the server's wave/sessionChanged carries a Delta): every save that
// changes a session's messages gives it a new version and notes the first
// message it changed. Versions come from one counter for the whole process,
// so a session closed and opened again never repeats a version an editor
// has seen, and the counter starts at the clock in microseconds, so a
// restarted server's versions are above those of the one before.
var versions atomic.Uint64

func init() { versions.Store(uint64(time.Now().UnixMicro())) }

// maxChanges bounds the changes a session remembers; an editor further
// behind gets the whole conversation.
const maxChanges = 64

// change is one save: the version it made and the first message it changed.
type change struct {
	version uint64
	from    int
}

// Delta is what changed in a conversation from version Since to Version:
// the messages before From are as they were, and Messages are all the
// messages from From on (a conversation that got shorter has fewer). From
// is 0 when the whole conversation is sent.
type Delta struct {
	Since, Version uint64
	From           int
	Messages       []Message
}

// noteChange records a save that changed messages from index from on; the
// caller holds s.mu.
func (s *Session) noteChange(from int) {
	s.version = versions.Add(1)
	if len(s.changes) == maxChanges {
		s.forgotten = s.changes[0].version
		s.changes = append(s.changes[:0], s.changes[1:]...)
	}
	s.changes = append(s.changes, change{s.version, from})
}

// startVersions gives a session read from its file its first version: the
// messages it holds are known to an editor only through wave/getSession.
func (s *Session) startVersions() {
	s.version = versions.Add(1)
	s.firstVersion, s.forgotten, s.changes = s.version, s.version, s.changes[:0]
}

// FirstVersion is the version the session had when this process opened or
// created it: a delta since then is what an editor that has not asked for
// the whole conversation can be told. A session created empty starts at 0,
// so its first delta holds every message.
func (s *Session) FirstVersion() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstVersion
}

// Snapshot returns the session's version and a copy of its messages, read together.
func (s *Session) Snapshot() (uint64, []Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, s.messages(0)
}

// ChangesSince returns what changed after version since, and false when
// nothing did. The messages are copies (see Messages). When since is older
// than what the session remembers, the delta holds the whole conversation.
func (s *Session) ChangesSince(since uint64) (Delta, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if since >= s.version {
		return Delta{}, false
	}
	from := 0
	if since >= s.forgotten {
		from = len(s.conv.msgs)
		for i := len(s.changes) - 1; i >= 0 && s.changes[i].version > since; i-- {
			from = min(from, s.changes[i].from)
		}
	}
	from = min(from, len(s.conv.msgs))
	return Delta{Since: since, Version: s.version, From: from, Messages: s.messages(from)}, true
}

// messages copies the messages from index from on; the caller holds s.mu.
func (s *Session) messages(from int) []Message {
	out := make([]Message, len(s.conv.msgs)-from)
	for i := range out {
		out[i] = s.conv.msgs[from+i].Clone()
	}
	return out
}
