package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// segFile keeps a transcript file laid out as a fixed head, one line per
// unit (a message, or an API message for jsonl) and a fixed foot:
//
//	json:  {"id":…,"version":1,"metadata":{…},"state":{"messages":[\n
//	       {message 0},\n
//	       {message 1}\n
//	       ]}}\n
//	jsonl: {api message 0}\n{api message 1}\n
//
// It remembers every unit's length and file offset, so a change to units
// i..n is one pwrite from unit i's offset, or from a byte inside it when the
// caller knows the unit's head is unchanged (session/encode.go): the cost of
// an event does not grow with the session. A shrink pads the old tail with spaces in that same write
// (whitespace after a JSON value or between JSON lines is still valid) and
// only then truncates, so the file parses at every moment.
//
// A write that overwrites bytes already acknowledged (an update of a tool
// block, an erased prompt) is first put in a journal beside the file; if the
// process is killed mid-write, loading replays the journal, so a torn write
// never destroys acknowledged messages. A pure append overwrites only the
// foot: if it is torn, loading keeps every complete line and drops the tail.
// Writes reach the kernel before an event returns, and an event starts its
// hooks only after its own writes, so a hook never reads a half-written file
// of its own event. They are not fsynced: a power failure (as opposed to a
// crash of the server) may lose the last events. While a hook of the session
// runs (another event's, with parallel tool calls, or an async hook), a
// change is made in a copy renamed over the file instead (replaceByCopy), so
// that hook never reads a write in progress; only then does the cost of a
// save grow with the file.
type segFile struct {
	f    *os.File
	path string
	// journal is opened on the first rewrite and removed by close.
	journal *os.File

	headLen int64
	sep     []byte // before every unit but the first
	term    []byte // after every unit
	foot    []byte // after the last unit

	lens []int64 // every unit's length, separator and terminator excluded
	offs []int64 // where every unit starts, separator included
	size int64   // bytes in the file, trailing padding included
	// reserved is where the blocks reserved for growth end (reserve): up
	// to there, a write cannot fail for lack of space. 0 after the file
	// changed under it (a rename, a truncate), which reserves again.
	reserved int64

	// readOnly is why the file could only be opened for reading; nil when
	// it is open for writing.
	readOnly error

	stamp Stamp

	// scratch is the buffer the last replace wrote from, kept for the
	// next when it is at most keepScratch: a save writes the turn's new
	// units from one buffer, and a fresh one of tens of KiB at every save
	// came from memory the process had not touched yet, a page fault per
	// 4 KiB (BenchmarkForwarding in acp).
	scratch []byte
}

// keepScratch is the largest write buffer a file keeps for its next save.
const keepScratch = 1 << 20

// Stamp identifies one version of a file cheaply: the store compares it
// with the file on disk to tell its own writes from other processes'.
type Stamp struct {
	info fs.FileInfo
}

func stampOf(fi fs.FileInfo) Stamp { return Stamp{fi} }

// Same reports whether fi is the file as it was when the stamp was taken:
// the store keeps the stamps of the files of sessions it closed, to tell a
// late watcher report of its own last write from another process's change.
func (s Stamp) Same(fi fs.FileInfo) bool {
	return s.info != nil && fi != nil && os.SameFile(s.info, fi) &&
		s.info.Size() == fi.Size() && s.info.ModTime().Equal(fi.ModTime())
}

func (sf *segFile) segLen(i int) int64 {
	return sf.sepLen(i) + sf.lens[i] + int64(len(sf.term))
}

// sepLen is the length of the separator before unit i.
func (sf *segFile) sepLen(i int) int64 {
	if i > 0 {
		return int64(len(sf.sep))
	}
	return 0
}

// unitsEnd is where the foot starts.
func (sf *segFile) unitsEnd() int64 {
	if n := len(sf.lens); n > 0 {
		return sf.offs[n-1] + sf.segLen(n-1)
	}
	return sf.headLen
}

// replace makes units[from:] the given units with a single positioned
// write, or, with viaCopy, in a copy renamed over the file (replaceByCopy).
// Every unit is given as pieces to concatenate. The first keep bytes of unit
// from stay as they are on disk, and units[0] is only the rest of it: a
// change at the end of a long unit writes only that end.
func (sf *segFile) replace(from int, keep int64, units [][][]byte, viaCopy bool) error {
	oldEnd := sf.unitsEnd()
	start := oldEnd
	if from < len(sf.lens) {
		start = sf.offs[from]
	}
	at := start // where the write starts
	if keep > 0 {
		at += sf.sepLen(from) + keep
	}
	buf := bytes.NewBuffer(sf.scratch[:0])
	defer sf.keep(buf)
	size := len(sf.foot)
	for _, u := range units {
		size += len(sf.sep) + len(sf.term)
		for _, piece := range u {
			size += len(piece) // the bytes, not the number of pieces: the buffer then grows no more
		}
	}
	buf.Grow(size) // one allocation at most: a unit can hold a 100 MB tool input
	offs := make([]int64, len(units))
	lens := make([]int64, len(units))
	for k, u := range units {
		offs[k] = at + int64(buf.Len())
		if k == 0 && keep > 0 {
			offs[k], lens[k] = start, keep
		} else if from+k > 0 {
			buf.Write(sf.sep)
		}
		for _, piece := range u {
			buf.Write(piece)
			lens[k] += int64(len(piece))
		}
		buf.Write(sf.term)
	}
	buf.Write(sf.foot)
	newSize := at + int64(buf.Len())
	if viaCopy && renamesOverOpenFiles {
		if err := sf.replaceByCopy(at, buf.Bytes()); err != nil {
			return err
		}
	} else if err := sf.writeInPlace(at, oldEnd, newSize, buf); err != nil {
		return err
	}
	sf.lens = append(sf.lens[:from], lens...)
	sf.offs = append(sf.offs[:from], offs...)
	sf.size = newSize
	return sf.restamp()
}

// keep keeps buf's memory for the next replace, unless it is large; nothing
// written from it holds on to it (the journal record is a copy).
func (sf *segFile) keep(buf *bytes.Buffer) {
	if b := buf.Bytes(); cap(b) <= keepScratch {
		sf.scratch = b[:0]
	} else {
		sf.scratch = nil
	}
}

// writeInPlace writes buf (from start to the new foot) over the file at start. Overwritten bytes are journalled first and a
// shrink is padded, so a crash at any moment leaves a file that loads whole;
// a reader in the middle of the write, though, can see part of it.
//
// A write that fails leaves the file as it was, never torn (docs/security.md):
// the blocks it grows into are reserved first, so a full disk or quota
// (ENOSPC, EDQUOT) fails before a byte changes; a write that fails anyway
// (EIO, EFBIG past a file size limit, a file system that cannot reserve) is
// undone from the bytes it overwrote, read before writing.
func (sf *segFile) writeInPlace(start, oldEnd, newSize int64, buf *bytes.Buffer) error {
	if newSize < sf.size {
		buf.Write(bytes.Repeat([]byte{' '}, int(sf.size-newSize)))
	}
	if err := sf.reserveTo(newSize); err != nil {
		return sf.intact(err)
	}
	// What the write overwrites, to put back if it fails: the file keeps no
	// copy of its units in memory (resume would need twice the file).
	old := make([]byte, sf.size-start)
	if _, err := sf.f.ReadAt(old, start); err != nil {
		return sf.intact(err)
	}
	rewrites := start < oldEnd
	if rewrites {
		if err := sf.writeJournal(start, newSize, buf.Bytes()); err != nil {
			if sf.journal != nil {
				_ = sf.journal.Truncate(0) // a torn record would be dropped anyway
			}
			return sf.intact(err)
		}
	}
	_, err := sf.f.WriteAt(buf.Bytes(), start)
	if err == nil && newSize < sf.size {
		err = sf.f.Truncate(newSize)
		sf.reserved = 0 // the truncate freed the blocks past the new end
	}
	if err != nil {
		if uerr := sf.undo(start, old); uerr != nil {
			// The journal, kept, finishes the write when the file is next
			// loaded: a whole file, if not the one the editor was told of.
			return fmt.Errorf("writing %s: %w; undoing the partial write failed too: %v", sf.path, err, uerr)
		}
		if rewrites {
			_ = sf.journal.Truncate(0)
		}
		return sf.intact(err)
	}
	if rewrites {
		return sf.journal.Truncate(0)
	}
	return nil
}

// reserveAhead is how far past a write the blocks for the file's growth
// are reserved at once: reserving costs a system call (on ext4 more than
// the write it protects), which is then paid once per this many bytes of
// conversation, not once per event. What is reserved past the end is given
// back when the file is closed; a server killed meanwhile leaves at most
// this much allocated past the end of a session file.
const reserveAhead = 64 << 10

// reserveTo makes sure the blocks up to end are reserved, reserving
// reserveAhead more while at it; if there is no room for that much, just
// what the write needs. The file's size does not change, so the file on
// disk stays as it is; a reservation that fails leaves nothing behind.
func (sf *segFile) reserveTo(end int64) error {
	if end <= sf.size || end <= sf.reserved {
		return nil
	}
	from := max(sf.size, sf.reserved)
	if reserve(sf.f, from, end-from+reserveAhead) == nil {
		sf.reserved = end + reserveAhead
		return nil
	}
	if err := reserve(sf.f, from, end-from); err != nil {
		_ = sf.f.Truncate(sf.size) // frees what a partial reservation got
		sf.reserved = 0
		return err
	}
	sf.reserved = end
	return nil
}

// errFileIntact marks a failed write that left the file as it was: the
// session may go on writing only what changed, instead of the whole file.
var errFileIntact = errors.New("the file keeps its last complete version")

// intact reports a write that failed and changed nothing on disk.
func (sf *segFile) intact(err error) error {
	_ = sf.restamp() // a truncate to the same size still touched its times
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == sf.path {
		err = pe.Err // "writing PATH: write PATH: …" says the path once too often
	}
	return fmt.Errorf("writing %s: %w (%w)", sf.path, err, errFileIntact)
}

// undo puts back the file as it was before a write from start failed: the
// old bytes from start, read before the write, and its old size. The old bytes were on disk before, so putting
// them back needs no new blocks.
func (sf *segFile) undo(start int64, old []byte) error {
	if _, err := sf.f.WriteAt(old, start); err != nil {
		return err
	}
	sf.reserved = 0
	return sf.f.Truncate(sf.size)
}

// replaceByCopy makes the file its first start bytes followed by tail, in a
// copy renamed over it: a reader that has the file open keeps reading the
// old version, whole, and a crash leaves either version. The copy is made in
// the kernel (copy_file_range) but its cost still grows with the file, so
// the session uses it only while its hooks may be reading.
func (sf *segFile) replaceByCopy(start int64, tail []byte) (err error) {
	dir, base := filepath.Split(sf.path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = sf.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err = io.Copy(tmp, io.LimitReader(sf.f, start)); err != nil {
		return err
	}
	if _, err = tmp.Write(tail); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), sf.path); err != nil {
		return err
	}
	sf.f.Close()
	sf.f, sf.reserved = tmp, 0
	return nil
}

func (sf *segFile) restamp() error {
	fi, err := sf.f.Stat()
	if err != nil {
		return err
	}
	sf.stamp = stampOf(fi)
	return nil
}

func journalPath(path string) string { return path + ".journal" }

const journalMagic = "wavehooks-journal-1"

// writeJournal records a write before it is made: "magic start size len crc\n" then the bytes.
func (sf *segFile) writeJournal(start, newSize int64, data []byte) error {
	if sf.journal == nil {
		j, err := os.OpenFile(journalPath(sf.path), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		sf.journal = j
	}
	_, err := sf.journal.WriteAt(journalRecord(start, newSize, data), 0)
	return err
}

func journalRecord(start, newSize int64, data []byte) []byte {
	head := fmt.Sprintf("%s %d %d %d %d\n", journalMagic, start, newSize, len(data), crc32.ChecksumIEEE(data))
	return append([]byte(head), data...)
}

// replayJournal finishes a write that a crash interrupted, then removes the
// journal. A journal that is itself torn is dropped: its write never started.
func replayJournal(path string) error {
	jp := journalPath(path)
	rec, err := safefile.ReadFile(jp, maxJournalBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if start, size, data, ok := parseJournal(rec); ok {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteAt(data, start)
		if err == nil {
			err = f.Truncate(size)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("replaying %s: %w", jp, err)
		}
	}
	return os.Remove(jp)
}

func parseJournal(rec []byte) (start, size int64, data []byte, ok bool) {
	head, data, found := bytes.Cut(rec, []byte("\n"))
	f := strings.Fields(string(head))
	if !found || len(f) != 5 || f[0] != journalMagic {
		return 0, 0, nil, false
	}
	var n [4]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil || v < 0 {
			return 0, 0, nil, false
		}
		n[i] = v
	}
	if int64(len(data)) < n[2] {
		return 0, 0, nil, false
	}
	data = data[:n[2]]
	if int64(crc32.ChecksumIEEE(data)) != n[3] {
		return 0, 0, nil, false
	}
	return n[0], n[1], data, true
}

// rewrite replaces the whole file atomically (temp file + rename): for a new
// session, a repair, or a file that was not in this layout. It reopens the
// file, since the rename gives it a new inode.
func (sf *segFile) rewrite(head []byte, units [][]byte) error {
	var buf bytes.Buffer
	buf.Write(head)
	offs := make([]int64, len(units))
	for i, u := range units {
		offs[i] = int64(buf.Len())
		if i > 0 {
			buf.Write(sf.sep)
		}
		buf.Write(u)
		buf.Write(sf.term)
	}
	buf.Write(sf.foot)
	// A journal entry describes the old file: it must never replay onto the new one.
	if sf.journal != nil {
		if err := sf.journal.Truncate(0); err != nil {
			return err
		}
	}
	if !renamesOverOpenFiles && sf.f != nil && sf.readOnly == nil {
		if err := sf.rewriteInPlace(&buf); err != nil {
			return err
		}
	} else {
		if err := writeAtomic(sf.path, buf.Bytes(), false); err != nil {
			return err
		}
		f, err := os.OpenFile(sf.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		if sf.f != nil {
			sf.f.Close()
		}
		sf.f, sf.reserved = f, 0
	}
	sf.headLen = int64(len(head))
	sf.lens = make([]int64, len(units))
	for i, u := range units {
		sf.lens[i] = int64(len(u))
	}
	sf.offs, sf.size = offs, int64(buf.Len())
	return sf.restamp()
}

// rewriteInPlace is rewrite where a file cannot be renamed over while it is
// open (Windows): the whole new content is written over the open file through
// writeInPlace, journalled, so a crash at any moment leaves a file that loads
// whole. The size on disk is taken afresh: rewrite also repairs a file
// another process changed.
func (sf *segFile) rewriteInPlace(buf *bytes.Buffer) error {
	fi, err := sf.f.Stat()
	if err != nil {
		return err
	}
	sf.size, sf.reserved = fi.Size(), 0
	return sf.writeInPlace(0, sf.size, int64(buf.Len()), buf)
}

// open opens the file, whose content is already head, units of the given
// lengths and foot (plus padding up to size), and computes where each unit is. A file this process
// may read but not write (a read-only mount, another user's file) is opened
// for reading: the session can still be shown, and writes fail with the
// reason (writable).
func (sf *segFile) open(headLen int64, lens []int64, size int64) error {
	f, err := os.OpenFile(sf.path, os.O_RDWR, 0)
	sf.readOnly = nil
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		sf.readOnly = err
		f, err = os.Open(sf.path)
	}
	if err != nil {
		return err
	}
	if sf.f != nil {
		sf.f.Close()
	}
	sf.f, sf.reserved = f, 0
	sf.headLen, sf.lens, sf.size = headLen, lens, size
	sf.offs = make([]int64, len(lens))
	off := headLen
	for i := range lens {
		sf.offs[i] = off
		off += sf.segLen(i)
	}
	return sf.restamp()
}

// writable returns nil when the file can be written, opening it for writing
// again if it was opened read-only and that has changed (a remount), and
// otherwise the reason it cannot.
func (sf *segFile) writable() error {
	if sf.readOnly == nil {
		return nil
	}
	f, err := os.OpenFile(sf.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	sf.f.Close()
	sf.f, sf.readOnly = f, nil
	return nil
}

func (sf *segFile) close() error {
	var err error
	if sf.journal != nil {
		sf.journal.Close()
		sf.journal = nil
		if rerr := os.Remove(journalPath(sf.path)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
	}
	if sf.f != nil {
		if sf.reserved > sf.size && sf.readOnly == nil {
			// A truncate to the same size frees the blocks reserved past it,
			// but only while the file is the one this process last wrote:
			// after another process wrote to it (the reason a session is
			// reloaded and this file closed), sf.size is out of date and the
			// truncate would cut off what the other process added.
			if fi, serr := sf.f.Stat(); serr == nil && sf.stamp.Same(fi) && sf.f.Truncate(sf.size) == nil {
				_ = sf.restamp() // the truncate's own change is this store's, not another process's
			}
		}
		if cerr := sf.f.Close(); err == nil {
			err = cerr
		}
		sf.f = nil
	}
	return err
}

// writeAtomic writes data to path through a temporary file in the same
// directory, so readers see the old file or the new one, never a mix. With
// exclusive it links instead of renaming and fails with fs.ErrExist when
// path exists: that is how a session claims its file name without ever
// overwriting another session.
func writeAtomic(path string, data []byte, exclusive bool) error {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	_, err = io.Copy(tmp, bytes.NewReader(data))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if exclusive {
		return os.Link(tmpName, path)
	}
	return os.Rename(tmpName, path)
}
