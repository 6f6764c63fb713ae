package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	name, part, ok := st.sessionFileName(path)
	if !ok {
		return "", false, nil
	}
	st.mu.Lock()
	s := st.byName[name]
	closedStamp, wasClosed := st.closedStamps[path]
	st.mu.Unlock()
	if s == nil && wasClosed {
		if fi, err := os.Stat(path); err == nil && closedStamp.same(fi) {
			return "", false, nil // as this store left it when the session ended
		}
		st.mu.Lock()
		delete(st.closedStamps, path)
		st.mu.Unlock()
	}
	if s == nil {
		if owner, _, exists := st.owner(name); exists && owner != "" {
			return owner, true, nil
		}
		return "", false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.id, false, nil
	}
	if s.unreported {
		s.unreported = false
		return s.id, true, nil
	}
	want := s.file.stamp
	switch {
	case s.format == FormatJSON && part != "json", s.format == FormatJSONL && part == "json":
		return "", false, nil // the other format's file of this name is not the session's
	case part == "meta":
		want = s.metaStamp
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.needFull = true // written again at the next event
		return s.id, true, nil
	}
	if err != nil {
		return s.id, false, err
	}
	if want.same(fi) {
		return s.id, false, nil
	}
	return s.id, true, s.reload()
}

// reload replaces the session's messages with the file's; the caller holds s.mu.
func (s *Session) reload() error {
	old, oldSeq := s.file, s.conv.nextSeq
	fresh := &Session{store: s.store, id: s.id, name: s.name, format: s.format}
	if err := fresh.load(); err != nil {
		return err
	}
	if old != nil {
		old.close()
	}
	s.hdr, s.conv, s.file, s.enc = fresh.hdr, fresh.conv, fresh.file, fresh.enc
	s.needFull, s.metaStamp = fresh.needFull, fresh.metaStamp
	s.noteChange(0) // another process's conversation: the whole of it is new
	// An event in flight may still look up a message of the old conversation
	// by seq (a prompt to erase): new seqs must not collide with old ones.
	s.conv.renumber(oldSeq)
	return nil
}

// sessionFileName parses session_<name>.json, .jsonl or .meta.json in the
// store's directory; part is "json", "jsonl" or "meta".
func (st *Store) sessionFileName(path string) (name, part string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil || filepath.Dir(abs) != st.dir {
		return "", "", false
	}
	base, found := strings.CutPrefix(filepath.Base(abs), "session_")
	if !found {
		return "", "", false
	}
	for _, p := range []struct{ suffix, part string }{{".meta.json", "meta"}, {".jsonl", "jsonl"}, {".json", "json"}} {
		if n, found := strings.CutSuffix(base, p.suffix); found && validName(n) {
			return n, p.part, true
		}
	}
	return "", "", false
}

// validName accepts the stems nameCandidates produces: an id suffix, or an
// id followed by ".<n>".
func validName(n string) bool {
	stem, num, dotted := strings.Cut(n, ".")
	if ValidateID(stem) != nil {
		return false
	}
	if !dotted {
		return true
	}
	return num != "" && strings.Trim(num, "0123456789") == ""
}
