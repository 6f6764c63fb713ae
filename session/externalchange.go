package session

import (
	"os"

	"github.com/wavehooks/wavehooks/session/transcript"
)

// ExternalChange is called by the server's file watcher for a path in the
// sessions directory. It tells the store's own writes (changed=false: the
// file is exactly as this store last wrote it) from another process's: then
// an open session is reloaded from disk and its id returned with
// changed=true, for the server to announce. Files that are not session files
// (temporary files, journals, other names) are ignored. A session file that
// is not open is only reported; a deleted file of an open session is
// written again at its next event.
func (st *Store) ExternalChange(path string) (id string, changed bool, err error) {
	name, part, ok := st.disk.ParseName(path)
	if !ok {
		return "", false, nil
	}
	st.mu.Lock()
	s := st.byName[name]
	closedStamp, wasClosed := st.closedStamps[path]
	st.mu.Unlock()
	if s == nil && wasClosed {
		if fi, err := os.Stat(path); err == nil && closedStamp.Same(fi) {
			return "", false, nil // as this store left it when the session ended
		}
		st.mu.Lock()
		delete(st.closedStamps, path)
		st.mu.Unlock()
	}
	if s == nil {
		if owner, _, exists := st.disk.Owner(name); exists && owner != "" {
			return owner, true, nil
		}
		return "", false, nil
	}
	// The conversation's lock is held throughout: whether a change was
	// already reported (unreported), the check of the file and a reload
	// must be one step, or a reload by an event in between could go
	// unreported.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.id, false, nil
	}
	if s.unreported {
		s.unreported = false
		return s.id, true, nil
	}
	switch c, err := s.file.Check(path, part); {
	case err != nil:
		return s.id, false, err
	case c == transcript.NotOurs:
		return "", false, nil // the other format's file of this name is not the session's
	case c == transcript.Removed:
		return s.id, true, nil // written again at the next event
	case c == transcript.OwnWrite:
		return s.id, false, nil
	}
	return s.id, true, s.reload()
}

// reload replaces the session's messages with the file's; the caller holds s.mu.
func (s *Session) reload() error {
	oldSeq := s.conv.nextSeq
	msgs, err := s.file.Reload()
	if err != nil {
		return err
	}
	s.conv = newConversation(msgs)
	s.noteChange(0) // another process's conversation: the whole of it is new
	// An event in flight may still look up a message of the old conversation
	// by seq (a prompt to erase): new seqs must not collide with old ones.
	s.conv.renumber(oldSeq)
	return nil
}
