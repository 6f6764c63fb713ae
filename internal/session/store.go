package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// MaxSessionFileBytes caps a session file the server reads from
// $WAVE_HOME/sessions (a transcript, in either format): a session it
// resumes, or one another process changed. Any process of the user's, or a
// hook, can put a file there: a FIFO or a symlink to /dev/zero is refused
// (internal/safefile), and a sparse file of a terabyte is refused by its
// size before anything is read. A GiB is far more than a real session
// holds (each message is at most 256 MiB, and the server keeps the whole
// conversation in memory anyway); a larger one cannot be resumed, and the
// error says why (docs/protocol-limits.md, "Files the server reads").
const MaxSessionFileBytes = 1 << 30

// maxMetaFileBytes caps a jsonl session's .meta.json: the session's id,
// format and metadata, a few hundred bytes when this package writes it.
const maxMetaFileBytes = 1 << 20

// maxJournalBytes caps a session file's journal, which holds one write (at
// most the rewritten tail of a file of MaxSessionFileBytes) after a header line.
const maxJournalBytes = MaxSessionFileBytes + 4<<10

// openSessionFile opens a session file for reading through the bounded
// reader, refusing what is not a regular file or exceeds MaxSessionFileBytes.
func openSessionFile(path string) (*os.File, fs.FileInfo, error) {
	f, fi, err := safefile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > MaxSessionFileBytes {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, &safefile.TooLargeError{Size: fi.Size(), Limit: MaxSessionFileBytes})
	}
	return f, fi, nil
}

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
type Store struct {
	dir   string
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
	closedStamps map[string]fileStamp
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
	return &Store{dir: dir, root: opts.ProjectRoot, firer: opts.Firer, saveBeforeHooks: opts.SaveBeforeHooks, format: format,
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
func (st *Store) Dir() string { return st.dir }

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

// path names a file of the session files named stem: session_<stem><ext>.
func (st *Store) path(stem, ext string) string { return filepath.Join(st.dir, "session_"+stem+ext) }

func (st *Store) jsonPath(name string) string  { return st.path(name, ".json") }
func (st *Store) jsonlPath(name string) string { return st.path(name, ".jsonl") }
func (st *Store) metaPath(name string) string  { return st.path(name, ".meta.json") }

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
	if name, _, ok := st.find(id); ok {
		return nil, fmt.Errorf("%w: %s (%s)", ErrExists, id, name)
	}
	hdr := fileHeader{ID: id, Version: fileVersion, Metadata: map[string]any{
		"createdAt":   time.Now().UTC().Format(time.RFC3339Nano),
		"projectRoot": st.root,
	}}
	for _, name := range nameCandidates(id) {
		if _, taken := st.byName[name]; taken {
			continue
		}
		if _, _, exists := st.owner(name); exists {
			continue
		}
		s, err := st.claim(name, hdr, st.format)
		if errors.Is(err, fs.ErrExist) {
			continue // another process took the name meanwhile
		}
		if err != nil {
			return nil, err
		}
		st.register(s)
		return s, nil
	}
	// Every name looked taken: a name whose owner cannot be read counts as
	// taken, which is also what a sessions directory that is gone or not a
	// directory looks like; say that rather than blame the names.
	if fi, err := os.Stat(st.dir); err != nil {
		return nil, fmt.Errorf("sessions directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sessions directory %s: not a directory", st.dir)
	}
	return nil, fmt.Errorf("no free session file name for %s in %s", id, st.dir)
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
	name, format, ok := st.find(id)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	s := &Session{store: st, id: id, name: name, format: format}
	if err := s.load(); err != nil {
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

// find looks for the file of a session that is not open.
func (st *Store) find(id string) (name string, format Format, ok bool) {
	for _, name := range nameCandidates(id) {
		if owner, format, exists := st.owner(name); exists && owner == id {
			return name, format, true
		}
	}
	return "", "", false
}

// owner reads which session a file name belongs to, in either format.
func (st *Store) owner(name string) (id string, format Format, exists bool) {
	if id, err := readJSONID(st.jsonPath(name)); !errors.Is(err, fs.ErrNotExist) {
		return id, FormatJSON, true
	}
	if hdr, _, err := readMeta(st.metaPath(name)); !errors.Is(err, fs.ErrNotExist) {
		return hdr.ID, FormatJSONL, true
	}
	if _, err := os.Lstat(st.jsonlPath(name)); err == nil {
		return "", FormatJSONL, true // a transcript without its meta file: not ours to take
	}
	return "", "", false
}

// readJSONID reads the id of a json session file from its first line, or
// from the whole file when it is not in this package's layout.
func readJSONID(path string) (string, error) {
	f, _, err := openSessionFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if p, err := parseJSONFile(line); err == nil && p.hdr.ID != "" {
		return p.hdr.ID, nil
	}
	data, err := safefile.ReadFile(path, MaxSessionFileBytes)
	if err != nil {
		return "", err
	}
	p, err := parseJSONFile(data)
	return p.hdr.ID, err
}

func readMeta(path string) (fileHeader, fs.FileInfo, error) {
	var hdr fileHeader
	f, fi, err := safefile.Open(path)
	if err != nil {
		return hdr, nil, err
	}
	defer f.Close()
	if fi.Size() > maxMetaFileBytes {
		return hdr, fi, fmt.Errorf("%s: %w", path, &safefile.TooLargeError{Size: fi.Size(), Limit: maxMetaFileBytes})
	}
	if err := json.NewDecoder(io.LimitReader(f, maxMetaFileBytes)).Decode(&hdr); err != nil {
		return hdr, fi, fmt.Errorf("%s: %w", path, err)
	}
	return hdr, fi, nil
}

// claim creates the files of a new session under name, failing with
// fs.ErrExist if another session got there first.
func (st *Store) claim(name string, hdr fileHeader, format Format) (*Session, error) {
	s := &Session{store: st, id: hdr.ID, name: name, format: format, hdr: hdr, conv: newConversation(nil)}
	if format == FormatJSONL {
		hdr.Format = FormatJSONL
		meta, err := encodeJSON(hdr)
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(st.metaPath(name), append(meta, '\n'), true); err != nil {
			return nil, err
		}
		fi, err := os.Stat(st.metaPath(name))
		if err != nil {
			return nil, err
		}
		s.metaStamp = stampOf(fi)
		if err := os.WriteFile(st.jsonlPath(name), nil, 0o600); err != nil {
			return nil, err
		}
		s.file = &segFile{path: st.jsonlPath(name), term: jsonlTerm}
		return s, s.file.open(0, nil, 0)
	}
	head, err := jsonHead(hdr)
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(st.jsonPath(name), append(head, jsonFoot...), true); err != nil {
		return nil, err
	}
	s.file = &segFile{path: st.jsonPath(name), sep: jsonSep, foot: jsonFoot}
	return s, s.file.open(int64(len(head)), nil, int64(len(head)+len(jsonFoot)))
}
