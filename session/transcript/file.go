package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// Unchanged is the dirty index of a conversation with nothing to save: Save
// is told the first message that may differ from the file, or Unchanged.
const Unchanged = math.MaxInt

// File is one session's transcript on disk (and, for jsonl, its meta file):
// what a save writes and where, so that the session only hands it its
// messages. It is safe for concurrent use; see the package's lock
// discipline.
type File struct {
	dir    Dir
	id     string
	name   string // file name stem: session_<name>.json
	format Format
	path   string // the transcript; never changes

	// readers counts the hook processes of the session running now: while
	// any runs, saves go through a copy renamed over the file, because a hook
	// may be reading it. It is raised under mu (a save cannot be half done)
	// and lowered without it.
	readers atomic.Int32

	mu   sync.Mutex // guards everything below
	hdr  fileHeader
	file *segFile
	// enc encodes the conversation into the file's units (encode.go).
	enc fileEncoder
	// needFull: the file is not in this package's layout (or a write failed),
	// so the next save rewrites it whole.
	needFull  bool
	metaStamp Stamp
}

func (d Dir) newFile(name, id string, format Format) *File {
	f := &File{dir: d, id: id, name: name, format: format}
	f.path = d.TranscriptPath(name, format)
	return f
}

// Path is the transcript, which hooks receive as transcript_path.
func (f *File) Path() string { return f.path }

// AddReader counts a hook process about to start: until DoneReader, saves
// go through a copy renamed over the file (see segFile), so that the hook
// never reads a write in progress. It waits for a save in progress to end.
func (f *File) AddReader() {
	f.mu.Lock()
	f.readers.Add(1)
	f.mu.Unlock()
}

// DoneReader counts a hook process that ended.
func (f *File) DoneReader() { f.readers.Add(-1) }

// NeedsRewrite reports whether the next save rewrites the file whole: it is
// not in this package's layout, or a write failed and left it unsure.
func (f *File) NeedsRewrite() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.needFull
}

// Load reads the transcript of session id, named name, finishing a write a
// crash interrupted (journal) and repairing a torn tail, which it rewrites
// at once so that no reader ever sees the torn file again. The messages are
// numbered 1..n (Message.SetSeq) as the conversation numbers a list it
// takes whole, so that what a repair encoded is known for the next save.
func (d Dir) Load(name, id string, format Format) (*File, []Message, error) {
	f := d.newFile(name, id, format)
	msgs, err := f.load()
	if err != nil {
		if f.file != nil {
			f.file.close()
		}
		return nil, nil, err
	}
	return f, msgs, nil
}

// number gives msgs the seqs a conversation taking them whole gives them.
func number(msgs []Message) {
	for i := range msgs {
		msgs[i].seq = uint64(i) + 1
	}
}

func (f *File) load() ([]Message, error) {
	if f.format == FormatJSONL {
		return f.loadJSONL()
	}
	path := f.path
	if err := replayJournal(path); err != nil {
		return nil, err
	}
	p, size, err := readJSONFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.hdr.check(path); err != nil {
		return nil, err
	}
	if p.hdr.ID != f.id {
		return nil, fmt.Errorf("%s belongs to session %s, not %s", path, p.hdr.ID, f.id)
	}
	if p.hdr.Version == 0 {
		p.hdr.Version = fileVersion
	}
	number(p.msgs)
	f.hdr = p.hdr
	f.file = &segFile{path: path, sep: jsonSep, foot: jsonFoot}
	enc := &jsonEncoder{}
	enc.loaded(p.msgs)
	f.enc = enc
	switch {
	case p.layout:
		f.needFull = false
		return p.msgs, f.file.open(p.headLen, p.lens, size)
	case p.torn:
		return p.msgs, f.rewriteAll(p.msgs)
	default:
		f.needFull = true
		return p.msgs, f.file.open(0, nil, size)
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

func (f *File) loadJSONL() ([]Message, error) {
	metaPath := f.dir.MetaPath(f.name)
	hdr, metaInfo, err := readMeta(metaPath)
	if err != nil {
		return nil, err
	}
	if err := hdr.check(metaPath); err != nil {
		return nil, err
	}
	if hdr.ID != f.id {
		return nil, fmt.Errorf("%s belongs to session %s, not %s", metaPath, hdr.ID, f.id)
	}
	f.hdr, f.metaStamp = hdr, stampOf(metaInfo)
	path := f.path
	if err := replayJournal(path); err != nil {
		return nil, err
	}
	r, fi, err := openSessionFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Killed between claiming the name and creating the transcript.
		if err = os.WriteFile(path, nil, 0o600); err == nil {
			r, fi, err = openSessionFile(path)
		}
	}
	if err != nil {
		return nil, err
	}
	defer enterLoad(fi.Size())()
	lines, err := countLines(io.LimitReader(r, MaxSessionFileBytes+1))
	if err == nil {
		_, err = r.Seek(0, io.SeekStart)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	counted := &countingReader{r: io.LimitReader(r, MaxSessionFileBytes+1)}
	msgs, sums, layout, torn, err := scanJSONLFile(counted, lines, fi.Size())
	r.Close()
	if err == nil && counted.n > MaxSessionFileBytes {
		err = fmt.Errorf("%s: %w", path, &safefile.TooLargeError{Size: counted.n, Limit: MaxSessionFileBytes})
	}
	if err != nil {
		return nil, err
	}
	number(msgs)
	f.file = &segFile{path: path, term: jsonlTerm}
	enc := &jsonlEncoder{}
	f.enc = enc
	if torn {
		return msgs, f.rewriteAll(msgs)
	}
	// The file is in this package's layout when folding the messages gives
	// its lines back exactly; then saves rewrite only what changes.
	same, err := enc.load(msgs, len(sums), func(i int, sum lineSum) bool {
		return i < len(sums) && sums[i] == sum
	})
	if err != nil {
		return nil, err
	}
	layout = layout && same && len(enc.loaded) == len(sums)
	f.needFull = !layout
	if !layout {
		return msgs, f.file.open(0, nil, counted.n)
	}
	lens := make([]int64, len(sums))
	for i, sum := range sums {
		lens[i] = sum.n
	}
	return msgs, f.file.open(0, lens, counted.n)
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

// diskChanged reports whether the file is no longer as this File last
// wrote it: another process changed, replaced or removed it. f.mu is held.
func (f *File) diskChanged() bool {
	fi, err := os.Stat(f.file.path)
	return err != nil || !f.file.stamp.Same(fi)
}

// Stale reports whether another process changed the file since the last
// save, so that the session must read it again (Reload) before changing
// it: the file watcher reports changes late (it debounces), and writing at
// offsets of a file that is no longer there would corrupt it. A file the
// next save rewrites whole is never stale: the session's state wins.
func (f *File) Stale() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.needFull && f.diskChanged()
}

// MustRewrite makes the next save rewrite the file whole (it is gone, or
// unreadable): the session's state is written again.
func (f *File) MustRewrite() {
	f.mu.Lock()
	f.needFull = true
	f.mu.Unlock()
}

// Reload reads the file again, as another process left it, and returns its
// messages (numbered as Load numbers them); the File then writes over that
// version. On error the File is as it was.
func (f *File) Reload() ([]Message, error) {
	fresh := f.dir.newFile(f.name, f.id, f.format)
	msgs, err := fresh.load()
	if err != nil {
		if fresh.file != nil {
			fresh.file.close()
		}
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.file != nil {
		f.file.close()
	}
	f.hdr, f.file, f.enc = fresh.hdr, fresh.file, fresh.enc
	f.needFull, f.metaStamp = fresh.needFull, fresh.metaStamp
	return msgs, nil
}

// Save writes what changed in msgs since the last save: from message dirty
// on (Unchanged: nothing), with touched naming the blocks changed in place.
// caughtUp says the caller has just checked the file (Stale) and need not
// stat it again. It returns once the write syscalls returned; the caller
// then forgets its changes (they are on disk), and keeps them on error.
// A failed write leaves the file whole (docs/security.md); when it may
// differ from what the File believes it holds, the next save rewrites it.
func (f *File) Save(msgs []Message, dirty int, touched []BlockRef, caughtUp bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.file != nil && f.file.readOnly != nil {
		if dirty == Unchanged {
			return nil // a file opened read-only is shown as it is, not converted
		}
		if err := f.file.writable(); err != nil {
			// Nothing was written: the file still matches what was loaded,
			// and the change is written by the first save that can write.
			return fmt.Errorf("saving session %s: %w", f.id, err)
		}
	}
	var err error
	switch {
	case f.needFull:
		err = f.rewriteAll(msgs)
	case dirty == Unchanged:
		return nil
	case !caughtUp && f.diskChanged():
		// Changed by another process while hooks ran: the offsets are no
		// longer the file's. The session's state wins, written whole.
		err = f.rewriteAll(msgs)
	default:
		err = f.saveUnits(&changed{msgs: msgs, touched: touched}, dirty)
	}
	if err != nil {
		if !errors.Is(err, errFileIntact) {
			// The file may now differ from what the File believes it
			// holds: rewrite it whole next time.
			f.needFull = true
		}
		return fmt.Errorf("saving session %s: %w", f.id, err)
	}
	return nil
}

// fileEncoder turns the conversation into the file's units and remembers
// what it wrote (encode.go): update encodes the messages from index from on,
// reusing what did not change, and says what to write (ok false: nothing).
type fileEncoder interface {
	update(c *changed, from int) (w unitWrite, ok bool, err error)
}

func newEncoder(f Format) fileEncoder {
	if f == FormatJSONL {
		return &jsonlEncoder{}
	}
	return &jsonEncoder{}
}

// saveUnits writes what changed from the first changed message on.
func (f *File) saveUnits(c *changed, dirty int) error {
	if measureNoSave { // a measuring build only (measure_nosave.go)
		return nil
	}
	if f.enc == nil {
		f.enc = newEncoder(f.format) // a new session: nothing written yet
	}
	w, ok, err := f.enc.update(c, dirty)
	if err != nil || !ok {
		return err
	}
	return f.file.replace(w.from, w.keep, w.units, f.readers.Load() > 0)
}

// rewriteAll writes the whole file atomically, encoding it afresh.
func (f *File) rewriteAll(msgs []Message) error {
	var head []byte
	if f.format == FormatJSONL {
		if err := f.ensureMeta(); err != nil {
			return err
		}
	} else {
		var err error
		if head, err = jsonHead(f.hdr); err != nil {
			return err
		}
	}
	enc := newEncoder(f.format)
	w, _, err := enc.update(&changed{msgs: msgs}, 0)
	if err != nil {
		return err
	}
	units := make([][]byte, len(w.units))
	for i, u := range w.units {
		units[i] = joinPieces(u)
	}
	if err := f.file.rewrite(head, units); err != nil {
		return err
	}
	f.enc = enc
	f.needFull = false
	return nil
}

// ensureMeta writes a jsonl session's meta file again if it was removed:
// without it the session could not be opened again.
func (f *File) ensureMeta() error {
	path := f.dir.MetaPath(f.name)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	hdr := f.hdr
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
	f.metaStamp = stampOf(fi)
	return nil
}

// Release closes the file's descriptors (and removes its journal) and
// returns the stamps of its files by path, for the store to tell the
// watcher's report of this File's last write from another process's. The
// File must not be used afterwards; the session marks itself closed first.
func (f *File) Release() (map[string]Stamp, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	stamps := map[string]Stamp{}
	if f.format == FormatJSONL {
		stamps[f.dir.MetaPath(f.name)] = f.metaStamp
	}
	if f.file == nil {
		return stamps, nil
	}
	err := f.file.close()
	stamps[f.file.path] = f.file.stamp
	return stamps, err
}

// Change is what a file watcher's report of a path meant for a File (Check).
type Change int

const (
	// OwnWrite: the file is exactly as this File last wrote it.
	OwnWrite Change = iota
	// NotOurs: the path is the other format's file of the same name.
	NotOurs
	// Removed: the file is gone; the next save writes it whole again.
	Removed
	// Foreign: another process changed it; the session reads it again (Reload).
	Foreign
)

// Check tells what a change the watcher reported at path, this File's
// transcript or meta file (part "json", "jsonl" or "meta", as
// Dir.ParseName gives it), was. A removed file is marked to be written
// whole at the next save.
func (f *File) Check(path, part string) (Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	want := f.file.stamp
	switch {
	case f.format == FormatJSON && part != "json", f.format == FormatJSONL && part == "json":
		return NotOurs, nil
	case part == "meta":
		want = f.metaStamp
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		f.needFull = true // written again at the next event
		return Removed, nil
	}
	if err != nil {
		return OwnWrite, err
	}
	if want.Same(fi) {
		return OwnWrite, nil
	}
	return Foreign, nil
}
