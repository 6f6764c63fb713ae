package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wavehooks/wavehooks/session/transcript"
)

// Options configure a Store: where its sessions live and what runs their hooks.
type Options struct {
	// WaveHome is $WAVE_HOME; sessions live in WaveHome/sessions.
	WaveHome string
	// ProjectRoot is the workspace, sent to hooks as cwd.
	ProjectRoot string
	// Format is the format of sessions created from now on (settings'
	// transcriptFormat); "" means json.
	Format Format
	// Firer runs an event's hooks (a *hooks.Engine); nil runs none.
	Firer Firer
	// SaveBeforeHooks writes a session's changes only when a hook may read
	// the transcript (before an event whose hooks may run), when the host
	// calls Session.Flush, and when the session closes, instead of after
	// every change. It is for a host that acknowledges nothing to anyone
	// (the ACP proxy: an agent's notifications have no answer); serve,
	// whose answer to a message promises it is on disk, leaves it off.
	// A crash loses what was not flushed: docs/acp.md.
	SaveBeforeHooks bool
}

// Store owns the session files of one WAVE_HOME for one server: it creates,
// finds and opens sessions, hands out one *Session per id so that every
// request on a session shares its lock, and tells the server's file watcher
// which changes in the sessions directory came from someone else.
//
// Its lock, mu, guards the sessions it has open and the claiming of file
// names; it is taken before a session's own (Session's lock discipline)
// and never while one is held.
type Store struct {
	disk  transcript.Dir
	root  string
	firer Firer
	// saveBeforeHooks is Options.SaveBeforeHooks.
	saveBeforeHooks bool

	mu     sync.Mutex // guards the fields below and the claiming of file names
	format Format
	byID   map[string]*Session
	byName map[string]*Session
	closed bool
	// closedStamps are the stamps of the files of sessions this store
	// closed (ended), by path: a watcher report of a file still as this
	// store left it is not another process's change.
	closedStamps map[string]transcript.Stamp
}

// NewStore opens (creating it if needed) the sessions directory of opts.WaveHome.
func NewStore(opts Options) (*Store, error) {
	if opts.WaveHome == "" {
		return nil, errors.New("session store: WaveHome is empty")
	}
	format, err := checkFormat(opts.Format)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(opts.WaveHome, "sessions"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{disk: transcript.NewDir(dir), root: opts.ProjectRoot, firer: opts.Firer, saveBeforeHooks: opts.SaveBeforeHooks, format: format,
		byID: map[string]*Session{}, byName: map[string]*Session{}}, nil
}

func checkFormat(f Format) (Format, error) {
	switch f {
	case "", FormatJSON:
		return FormatJSON, nil
	case FormatJSONL:
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("unknown transcript format %q (want json or jsonl)", f)
}

// Dir is the sessions directory, for the server's file watcher.
func (st *Store) Dir() string { return st.disk.Path() }

// SetFormat changes the format of sessions created from now on, when the
// settings change; open and existing sessions keep theirs.
func (st *Store) SetFormat(f Format) error {
	f, err := checkFormat(f)
	if err != nil {
		return err
	}
	st.mu.Lock()
	st.format = f
	st.mu.Unlock()
	return nil
}

// jsonPath and jsonlPath name the transcript of the session files named name.
func (st *Store) jsonPath(name string) string  { return st.disk.TranscriptPath(name, FormatJSON) }
func (st *Store) jsonlPath(name string) string { return st.disk.TranscriptPath(name, FormatJSONL) }

// Create starts a new session with the given id, or a random one when id is
// empty. It fails with ErrExists when the id already has a session and never
// takes another session's file: when the short name is taken, the name grows.
func (st *Store) Create(id string) (*Session, error) {
	if id == "" {
		id = NewID()
	}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, ErrClosed
	}
	if _, ok := st.byID[id]; ok {
		return nil, fmt.Errorf("%w: %s", ErrExists, id)
	}
	if name, _, ok := st.disk.Find(id); ok {
		return nil, fmt.Errorf("%w: %s (%s)", ErrExists, id, name)
	}
	metadata := map[string]any{
		"createdAt":   time.Now().UTC().Format(time.RFC3339Nano),
		"projectRoot": st.root,
	}
	for _, name := range transcript.NameCandidates(id) {
		if _, taken := st.byName[name]; taken {
			continue
		}
		if _, _, exists := st.disk.Owner(name); exists {
			continue
		}
		f, err := st.disk.Claim(name, id, metadata, st.format)
		if errors.Is(err, fs.ErrExist) {
			continue // another process took the name meanwhile
		}
		if err != nil {
			return nil, err
		}
		s := &Session{store: st, id: id, name: name, format: st.format, file: f, conv: newConversation(nil)}
		st.register(s)
		return s, nil
	}
	// Every name looked taken: a name whose owner cannot be read counts as
	// taken, which is also what a sessions directory that is gone or not a
	// directory looks like; say that rather than blame the names.
	if fi, err := os.Stat(st.Dir()); err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sessions directory %s: not a directory", st.Dir())
	}
	return nil, fmt.Errorf("no free session file name for %s in %s", id, st.Dir())
}

// Open returns the session with the given id, loading (and if a crash tore
// it, repairing) its file when it is not open yet.
func (st *Store) Open(id string) (*Session, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, ErrClosed
	}
	if s, ok := st.byID[id]; ok {
		return s, nil
	}
	name, format, ok := st.disk.Find(id)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	s := &Session{store: st, id: id, name: name, format: format}
	if err := s.open(); err != nil {
		return nil, err
	}
	st.register(s)
	return s, nil
}

// OpenOrCreate opens the session with the given id, or creates it (with a
// random id when id is empty); created says which happened, for
// SessionStart's source.
func (st *Store) OpenOrCreate(id string) (s *Session, created bool, err error) {
	if id != "" {
		s, err = st.Open(id)
		if !errors.Is(err, ErrNotFound) {
			return s, false, err
		}
	}
	s, err = st.Create(id)
	return s, err == nil, err
}

// Close closes every open session. The store cannot be used afterwards.
func (st *Store) Close() error {
	st.mu.Lock()
	st.closed = true
	open := make([]*Session, 0, len(st.byID))
	for _, s := range st.byID {
		open = append(open, s)
	}
	clear(st.byID)
	clear(st.byName)
	st.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.closeFiles())
	}
	return errors.Join(errs...)
}

func (st *Store) register(s *Session) {
	st.byID[s.id] = s
	st.byName[s.name] = s
}
