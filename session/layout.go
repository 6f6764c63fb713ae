package session

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
// It remembers every unit's bytes and file offset, so a change to units
// i..n is one pwrite from unit i's offset: the cost of an event does not grow
// with the session. A shrink pads the old tail with spaces in that same write
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

	units [][]byte
	offs  []int64
	size  int64 // bytes in the file, trailing padding included

	// readOnly is why the file could only be opened for reading; nil when
	// it is open for writing.
	readOnly error

	stamp fileStamp
}

// fileStamp identifies one version of a file cheaply: the store compares it
// with the file on disk to tell its own writes from other processes'.
type fileStamp struct {
	info fs.FileInfo
}

func stampOf(fi fs.FileInfo) fileStamp { return fileStamp{fi} }

// same reports whether fi is the file as it was when the stamp was taken.
func (s fileStamp) same(fi fs.FileInfo) bool {
	return s.info != nil && fi != nil && os.SameFile(s.info, fi) &&
		s.info.Size() == fi.Size() && s.info.ModTime().Equal(fi.ModTime())
}

func (sf *segFile) segLen(i int) int64 {
	n := int64(len(sf.units[i]) + len(sf.term))
	if i > 0 {
		n += int64(len(sf.sep))
	}
	return n
}

// unitsEnd is where the foot starts.
func (sf *segFile) unitsEnd() int64 {
	if n := len(sf.units); n > 0 {
		return sf.offs[n-1] + sf.segLen(n-1)
	}
	return sf.headLen
}

// replace makes units[from:] the given units with a single positioned
// write, or, with viaCopy, in a copy renamed over the file (replaceByCopy).
func (sf *segFile) replace(from int, units [][]byte, viaCopy bool) error {
	oldEnd := sf.unitsEnd()
	start := oldEnd
	if from < len(sf.units) {
		start = sf.offs[from]
	}
	var buf bytes.Buffer
	size := len(sf.foot)
	for _, u := range units {
		size += len(sf.sep) + len(u) + len(sf.term)
	}
	buf.Grow(size) // one allocation: a unit can hold a 100 MB tool input
	offs := make([]int64, len(units))
	for k, u := range units {
		offs[k] = start + int64(buf.Len())
		if from+k > 0 {
			buf.Write(sf.sep)
		}
		buf.Write(u)
		buf.Write(sf.term)
	}
	buf.Write(sf.foot)
	newSize := start + int64(buf.Len())
	if viaCopy {
		if err := sf.replaceByCopy(start, buf.Bytes()); err != nil {
			return err
		}
	} else if err := sf.writeInPlace(start, oldEnd, newSize, &buf); err != nil {
		return err
	}
	sf.units = append(sf.units[:from], units...)
	sf.offs = append(sf.offs[:from], offs...)
	sf.size = newSize
	return sf.restamp()
}

// writeInPlace writes buf (from start to the new foot) over the file at
// start. Overwritten bytes are journalled first and a shrink is padded, so a
// crash at any moment leaves a file that loads whole; a reader in the middle
// of the write, though, can see part of it.
func (sf *segFile) writeInPlace(start, oldEnd, newSize int64, buf *bytes.Buffer) error {
	if newSize < sf.size {
		buf.Write(bytes.Repeat([]byte{' '}, int(sf.size-newSize)))
	}
	rewrites := start < oldEnd
	if rewrites {
		if err := sf.writeJournal(start, newSize, buf.Bytes()); err != nil {
			return err
		}
	}
	if _, err := sf.f.WriteAt(buf.Bytes(), start); err != nil {
		return err
	}
	if newSize < sf.size {
		if err := sf.f.Truncate(newSize); err != nil {
			return err
		}
	}
	if rewrites {
		return sf.journal.Truncate(0)
	}
	return nil
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
	sf.f = tmp
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
	rec, err := os.ReadFile(jp)
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
	sf.f = f
	sf.headLen = int64(len(head))
	sf.units, sf.offs, sf.size = units, offs, int64(buf.Len())
	return sf.restamp()
}

// open opens the file, whose content is already head, units and foot (plus
// padding up to size), and computes where each unit is. A file this process
// may read but not write (a read-only mount, another user's file) is opened
// for reading: the session can still be shown, and writes fail with the
// reason (writable).
func (sf *segFile) open(headLen int64, units [][]byte, size int64) error {
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
	sf.f = f
	sf.headLen, sf.units, sf.size = headLen, units, size
	sf.offs = make([]int64, len(units))
	off := headLen
	for i := range units {
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
