package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Position is where a line is: its file (the name within the log's
// directory) and its line number from 1.
type Position struct {
	File string
	Line int
}

// String is the position as an editor or a terminal jumps to it: file:line.
func (p Position) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// The ways a chain is broken, as Problem.Kind names them.
const (
	Changed   = "changed"
	Removed   = "removed"
	Inserted  = "inserted"
	Reordered = "reordered"
)

// Problem is the first place the chain is broken: the record (by its
// sequence number) that was changed, removed, inserted or reordered, and
// where in the files it shows.
type Problem struct {
	Kind   string
	Seq    uint64
	Pos    Position
	Detail string
}

// String is the problem in the line `wavehooks log --verify` prints:
// where, which record, what happened to it, and how it shows.
func (p *Problem) String() string {
	return fmt.Sprintf("%s: record %d was %s: %s", p.Pos, p.Seq, p.Kind, p.Detail)
}

// Report is what Verify found.
type Report struct {
	// Records is how many records chain from the first, up to the first
	// problem (all of them when there is none).
	Records int
	// Files are the files read, oldest first.
	Files []string
	// Torn are lines that are no record but that the chain passes over
	// whole: an append a crash cut short, not tampering.
	Torn []Position
	// Keyed says each record's MAC was checked against the key.
	Keyed bool
	// Problem is the first break in the chain, nil when it is intact.
	Problem *Problem
}

// entry is what the first pass keeps of a line.
type entry struct {
	pos    Position
	rec    Record
	hash   string
	bad    error // not a record (torn, or never one)
	macErr error
}

// Verify reads the audit log in dir and proves its chain: records numbered
// from 1 without a gap, each carrying the hash of the one before, across
// the rotated files in order; with key, each record's MAC. It names the
// first record that was changed, removed, inserted or reordered. Lines that
// are no record but that the chain passes over (a crash mid-append) are
// reported as torn. An error is a log it could not read.
func Verify(dir string, key []byte) (Report, error) {
	snap, err := openSnapshot(dir)
	if err != nil {
		return Report{}, err
	}
	defer snap.close()
	rep := Report{Keyed: key != nil}
	var entries []entry
	present := map[uint64]bool{}
	for _, sf := range snap {
		rep.Files = append(rep.Files, sf.path)
		if err := readEntries(sf, key, func(e entry) {
			if e.bad == nil {
				present[e.rec.Seq] = true
			}
			entries = append(entries, e)
		}); err != nil {
			return Report{}, err
		}
	}
	exp, prevHash := uint64(1), ""
	var prevPos Position
	seen := map[uint64]Position{}
	var notRecords []entry
	for i, e := range entries {
		if e.bad != nil {
			notRecords = append(notRecords, e)
			continue
		}
		r := e.rec
		fits := r.Seq == exp && r.Prev == prevHash
		var p *Problem
		switch {
		case e.macErr != nil && fits && nextSeq(entries[i+1:]) == r.Seq:
			p = &Problem{Kind: Inserted, Seq: r.Seq, Pos: e.pos, Detail: e.macErr.Error() + ", and the record after it has its number: a record the log did not write"}
		case e.macErr != nil && fits:
			p = &Problem{Kind: Changed, Seq: r.Seq, Pos: e.pos, Detail: e.macErr.Error()}
		case e.macErr != nil:
			p = &Problem{Kind: Inserted, Seq: r.Seq, Pos: e.pos, Detail: e.macErr.Error() + ", and it does not follow record " +
				fmt.Sprint(exp-1) + ": a record the log did not write here"}
		case fits:
		case r.Seq == exp && len(notRecords) > 0:
			p = &Problem{Kind: Changed, Seq: exp, Pos: notRecords[0].pos, Detail: "the line is no longer a record (" +
				notRecords[0].bad.Error() + ") and the next one does not chain over it"}
		case r.Seq == exp && exp > 1:
			p = &Problem{Kind: Changed, Seq: exp - 1, Pos: prevPos, Detail: "its bytes no longer hash to the prev of record " +
				fmt.Sprint(r.Seq) + " (" + e.pos.String() + ")"}
		case r.Seq == exp:
			p = &Problem{Kind: Inserted, Seq: r.Seq, Pos: e.pos, Detail: "the first record carries a prev: records before it were removed, or it was put here"}
		case r.Seq < exp:
			p = &Problem{Kind: Inserted, Seq: r.Seq, Pos: e.pos, Detail: fmt.Sprintf("record %d is already at %s", r.Seq, seen[r.Seq])}
		case present[exp]:
			p = &Problem{Kind: Reordered, Seq: r.Seq, Pos: e.pos, Detail: fmt.Sprintf("it comes before record %d", exp)}
		default:
			detail := fmt.Sprintf("record %d is missing before record %d", exp, r.Seq)
			if r.Seq > exp+1 {
				detail = fmt.Sprintf("records %d to %d are missing before record %d", exp, r.Seq-1, r.Seq)
			}
			p = &Problem{Kind: Removed, Seq: exp, Pos: e.pos, Detail: detail}
		}
		if p != nil {
			rep.Problem = p
			return rep, nil
		}
		for _, n := range notRecords {
			rep.Torn = append(rep.Torn, n.pos)
		}
		notRecords = nil
		seen[r.Seq], prevPos, prevHash = e.pos, e.pos, e.hash
		exp++
		rep.Records++
	}
	for _, n := range notRecords {
		rep.Torn = append(rep.Torn, n.pos) // after the last record: an append cut short
	}
	return rep, nil
}

// nextSeq is the number of the first record among entries, 0 if none.
func nextSeq(entries []entry) uint64 {
	for _, e := range entries {
		if e.bad == nil {
			return e.rec.Seq
		}
	}
	return 0
}

// snapshotFile is one file of the log as it was when the snapshot was
// taken: open, and (the current file) read only up to the size it had.
type snapshotFile struct {
	path string
	f    *os.File
	size int64
}

// snapshot is the log's files, oldest first, as openSnapshot took them.
type snapshot []snapshotFile

func (s snapshot) close() {
	for _, sf := range s {
		_ = sf.f.Close()
	}
}

// openSnapshot opens the log's files as they are at one moment: under the
// writers' lock (when it can be taken: a copy on a read-only disk has
// none), so that no append or rotation is half done, and only for as long
// as it takes to open them and note the current file's size. The reading
// is done after, while the writers go on: the open files stay the files
// they were, whatever is renamed, and what is appended later is not read.
func openSnapshot(dir string) (snapshot, error) {
	if unlock, err := lockDir(filepath.Join(dir, lockFile)); err == nil {
		defer unlock()
	}
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var snap snapshot
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			snap.close()
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			_ = f.Close()
			snap.close()
			return nil, err
		}
		snap = append(snap, snapshotFile{path: path, f: f, size: st.Size()})
	}
	return snap, nil
}

// readEntries reads each line of a snapshot's file as an entry.
func readEntries(sf snapshotFile, key []byte, add func(entry)) error {
	f, path := io.NewSectionReader(sf.f, 0, sf.size), sf.path
	br := bufio.NewReaderSize(f, 64<<10)
	name := filepath.Base(path)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		e := entry{pos: Position{File: name, Line: n}, hash: lineHash(line)}
		if e.rec, e.bad = parse(line); e.bad == nil && key != nil {
			e.macErr = checkMAC(line, e.rec, key)
		}
		add(e)
		if err != nil {
			return nil
		}
	}
}

// Records reads the whole records of the log in dir, oldest first, without
// proving anything: what Verify proves is the chain, this is what it holds.
// Lines that are no record are skipped.
func Records(dir string) ([]Record, error) {
	snap, err := openSnapshot(dir)
	if err != nil {
		return nil, err
	}
	defer snap.close()
	var out []Record
	for _, sf := range snap {
		if err := readEntries(sf, nil, func(e entry) {
			if e.bad == nil {
				out = append(out, e.rec)
			}
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}
