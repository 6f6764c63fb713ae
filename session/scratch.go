package session

// Scratch is a session that lives only in memory: the same per-event rules
// as any session, with no file, no store directory and nothing written. It
// is what `wavehooks run` applies one event's hook results to, so that what
// it prints is exactly what the server would answer, computed by the same
// code, without a session store on disk. Its TranscriptPath is "": the
// caller reports the transcript path its input named.
func Scratch(projectRoot string, firer Firer) *Session {
	st := &Store{root: projectRoot, firer: firer, format: FormatJSON,
		byID: map[string]*Session{}, byName: map[string]*Session{}}
	return &Session{store: st, id: "scratch", format: FormatJSON, conv: newConversation(nil), scratch: true}
}

// ScratchWithID is Scratch under a session id of the caller's: a host that
// cannot keep a session's file (a read-only sessions directory, a full disk)
// still runs that session's hooks in memory, and they see the session's own
// id as session_id, not "scratch".
func ScratchWithID(id, projectRoot string, firer Firer) *Session {
	s := Scratch(projectRoot, firer)
	s.id = id
	return s
}
