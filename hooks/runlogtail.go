package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// RunLogTail reads the whole lines appended to the run log's current file,
// following it when it rotates (runs.jsonl renamed to runs.1.jsonl): the
// rest of the held file first, then the new runs.jsonl from its start. It
// is the one follower of the log, for `wavehooks log --follow` and for the
// server, which shows the ACP proxy's runs beside its own.
type RunLogTail struct {
	path    string
	f       *os.File
	off     int64
	partial []byte // a line whose end has not been written yet
}

// FollowRunLog opens the run log under dir for following: it returns the
// runs the log holds now (ReadRunLog) and a tail whose reads return only
// the runs appended after them, so that no run is read twice.
func FollowRunLog(dir string) (*RunLogTail, []RunRecord, error) {
	t := &RunLogTail{path: filepath.Join(dir, "runs.jsonl")}
	if err := t.open(); err != nil {
		return nil, nil, err
	}
	runs, err := ReadRunLog(dir)
	if err != nil {
		t.Close()
		return nil, nil, err
	}
	if t.f != nil {
		// What ReadRunLog read of the held file is not read again.
		if t.off, err = t.f.Seek(0, io.SeekEnd); err != nil {
			t.Close()
			return nil, nil, err
		}
	}
	return t, runs, nil
}

// open opens the current file, if there is one, from its start.
func (t *RunLogTail) open() error {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	t.f, t.off, t.partial = f, 0, nil
	return nil
}

// Close releases the held file.
func (t *RunLogTail) Close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// Read returns the runs appended since the last read, and with an error
// the runs it read before it.
func (t *RunLogTail) Read() ([]RunRecord, error) {
	var out []RunRecord
	for {
		if t.f != nil {
			recs, err := t.readHeld()
			out = append(out, recs...)
			if err != nil {
				return out, err
			}
		}
		st, err := os.Stat(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if t.f != nil {
			held, err := t.f.Stat()
			if err != nil {
				return out, err
			}
			if os.SameFile(held, st) {
				return out, nil
			}
		}
		t.Close()
		if err := t.open(); err != nil || t.f == nil {
			return out, err
		}
	}
}

// readHeld reads the held file from the offset to its end, keeping a last
// line without its newline for the next read. A line that is not a run
// (cut by a full disk) is skipped, as ReadRunLog skips it.
func (t *RunLogTail) readHeld() ([]RunRecord, error) {
	if _, err := t.f.Seek(t.off, io.SeekStart); err != nil {
		return nil, err
	}
	var out []RunRecord
	rd := bufio.NewReader(t.f)
	for {
		chunk, err := rd.ReadBytes('\n')
		t.off += int64(len(chunk))
		t.partial = append(t.partial, chunk...)
		if err == io.EOF {
			if len(t.partial) > int(RunLogMaxBytes) { // no run is this long: not a line of the log
				t.partial = nil
			}
			return out, nil
		}
		if err != nil {
			return out, err
		}
		line := bytes.TrimSpace(t.partial)
		t.partial = nil
		var r RunRecord
		if json.Unmarshal(line, &r) == nil && r.Event != "" {
			out = append(out, r)
		}
	}
}
