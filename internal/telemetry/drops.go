package telemetry

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// DropsFile is the counter of runs that were not exported, in the run
// log's directory ($WAVE_HOME/runs): one JSON line per time a process
// counted drops, appended, so that every process sharing the wave home
// (serve, the proxy, `wavehooks run`) adds to the one count without a lock.
const DropsFile = "telemetry-dropped.jsonl"

// maxDropsBytes bounds the counter file: past it, the next append folds it
// into one line carrying the total.
const maxDropsBytes = 64 << 10

// dropLine is one line of the counter file.
type dropLine struct {
	Time    time.Time `json:"time"`
	Dropped uint64    `json:"dropped"`
	Why     string    `json:"why"`
}

// Drops is the total of the counter file in dir, and when the last drop
// was counted; no file is no drop. A line that does not read as one (a
// crash in the middle of an append) is skipped.
func Drops(dir string) (total uint64, last time.Time, err error) {
	b, err := safefile.ReadFile(filepath.Join(dir, DropsFile), 2*maxDropsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var l dropLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		total += l.Dropped
		if l.Time.After(last) {
			last = l.Time
		}
	}
	return total, last, nil
}

// addDrops appends n dropped runs to the counter file in dir, folding the
// file into one line when it has grown past its bound (a drop another
// process appends between the read and the rename of the fold is lost: the
// count is a warning sign, not a ledger).
func addDrops(dir string, n uint64, why string) error {
	if n == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, DropsFile)
	if st, err := os.Stat(path); err == nil && st.Size() > maxDropsBytes {
		total, _, err := Drops(dir)
		if err != nil {
			return err
		}
		line, _ := json.Marshal(dropLine{Time: time.Now().UTC(), Dropped: total, Why: "the counts before, folded"})
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, append(line, '\n'), 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	line, err := json.Marshal(dropLine{Time: time.Now().UTC(), Dropped: n, Why: why})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("counting %d dropped run(s): %w", n, err)
	}
	return nil
}
