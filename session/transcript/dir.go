package transcript

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

// Dir is a sessions directory: the names of its files, which session owns
// each, and the creation and loading of a session's File. It holds no state
// of its own besides its path, so it needs no lock; the store that uses it
// serialises the claiming of names under its own.
type Dir struct {
	path string
}

// NewDir is the sessions directory at path, which must be absolute.
func NewDir(path string) Dir { return Dir{path: path} }

// Path is the directory, for the server's file watcher.
func (d Dir) Path() string { return d.path }

// file names a file of the session files named stem: session_<stem><ext>.
func (d Dir) file(stem, ext string) string { return filepath.Join(d.path, "session_"+stem+ext) }

// TranscriptPath is the transcript of the session files named name in
// format f: session_<name>.json or session_<name>.jsonl.
func (d Dir) TranscriptPath(name string, f Format) string {
	if f == FormatJSONL {
		return d.file(name, ".jsonl")
	}
	return d.file(name, ".json")
}

// MetaPath is a jsonl session's meta file, session_<name>.meta.json.
func (d Dir) MetaPath(name string) string { return d.file(name, ".meta.json") }

// Find looks for the files of session id, trying its names in order
// (NameCandidates).
func (d Dir) Find(id string) (name string, format Format, ok bool) {
	for _, name := range NameCandidates(id) {
		if owner, format, exists := d.Owner(name); exists && owner == id {
			return name, format, true
		}
	}
	return "", "", false
}

// Owner reads which session a file name belongs to, in either format;
// exists is true for a name whose files are there even when their owner
// cannot be read (the name is taken all the same).
func (d Dir) Owner(name string) (id string, format Format, exists bool) {
	if id, err := readJSONID(d.TranscriptPath(name, FormatJSON)); !errors.Is(err, fs.ErrNotExist) {
		return id, FormatJSON, true
	}
	if hdr, _, err := readMeta(d.MetaPath(name)); !errors.Is(err, fs.ErrNotExist) {
		return hdr.ID, FormatJSONL, true
	}
	if _, err := os.Lstat(d.TranscriptPath(name, FormatJSONL)); err == nil {
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

// Claim creates the files of a new, empty session id under name, with
// metadata in its header, failing with fs.ErrExist if another session (of
// this process or another) got there first: a session never overwrites
// another's file.
func (d Dir) Claim(name, id string, metadata map[string]any, format Format) (*File, error) {
	hdr := fileHeader{ID: id, Version: fileVersion, Metadata: metadata}
	f := d.newFile(name, id, format)
	f.hdr = hdr
	if format == FormatJSONL {
		hdr.Format = FormatJSONL
		meta, err := encodeJSON(hdr)
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(d.MetaPath(name), append(meta, '\n'), true); err != nil {
			return nil, err
		}
		fi, err := os.Stat(d.MetaPath(name))
		if err != nil {
			return nil, err
		}
		f.metaStamp = stampOf(fi)
		if err := os.WriteFile(f.path, nil, 0o600); err != nil {
			return nil, err
		}
		f.file = &segFile{path: f.path, term: jsonlTerm}
		return f, f.file.open(0, nil, 0)
	}
	head, err := jsonHead(hdr)
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(f.path, append(head, jsonFoot...), true); err != nil {
		return nil, err
	}
	f.file = &segFile{path: f.path, sep: jsonSep, foot: jsonFoot}
	return f, f.file.open(int64(len(head)), nil, int64(len(head)+len(jsonFoot)))
}

// ParseName parses session_<name>.json, .jsonl or .meta.json in the
// directory; part is "json", "jsonl" or "meta". Other files (temporary
// files, journals, other names) are not a session's.
func (d Dir) ParseName(path string) (name, part string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil || filepath.Dir(abs) != d.path {
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

// validName accepts the stems NameCandidates produces: an id suffix, or an
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
