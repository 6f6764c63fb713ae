package hooks

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/wavehooks/wavehooks/internal/writebehind"
)

// RunLogMaxBytes bounds each of the run log's two files: when the current
// one would grow past it, it becomes the previous one (replacing it), so the
// log never takes more than twice this on disk.
const RunLogMaxBytes = 4 << 20

// RunLogDir is where, under a wave home, the run log is kept.
func RunLogDir(waveHome string) string { return filepath.Join(waveHome, "runs") }

// The run log's files: the current one and the one before it.
const (
	runLogFile     = "runs.jsonl"
	runLogPrevFile = "runs.1.jsonl"
)

// Decision is what an event's hooks decided, as the run log keeps it for
// `wavehooks test --record` to turn into expectations: the wire's
// wave/hookRuns does not carry it (Outcome says it in a line).
type Decision struct {
	Permission Permission `json:"permission,omitempty"`
	Blocked    bool       `json:"blocked,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Context    []string   `json:"context,omitempty"`
	// UpdatedInput is the rewritten tool input; a rewrite too large for the
	// log is left out and UpdatedInputClipped set.
	UpdatedInput        json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedInputClipped bool            `json:"updatedInputClipped,omitempty"`
	// UpdatedPrompt is the prompt a UserPromptSubmit hook rewrote, so that
	// the history shows what the model got and `wavehooks test --record`
	// keeps it; one too large for the log is left out and
	// UpdatedPromptClipped set.
	UpdatedPrompt        string `json:"updatedPrompt,omitempty"`
	UpdatedPromptClipped bool   `json:"updatedPromptClipped,omitempty"`
}

func newDecision(res *Result) *Decision {
	d := &Decision{Permission: res.Permission, Blocked: res.Blocked, Reason: clip(res.Reason)}
	for _, c := range append(append([]string{}, res.Context...), res.AdditionalContext...) {
		d.Context = append(d.Context, clip(c))
	}
	if len(res.UpdatedInput) <= maxHistoryText {
		d.UpdatedInput = res.UpdatedInput
	} else {
		d.UpdatedInputClipped = true
	}
	if len(res.UpdatedPrompt) <= maxHistoryText {
		d.UpdatedPrompt = res.UpdatedPrompt
	} else {
		d.UpdatedPromptClipped = true
	}
	return d
}

// RunRecord is one line of the run log: an event run and its decision.
type RunRecord struct {
	EventRun
	Decision *Decision `json:"decision,omitempty"`
	// Writer is the RunLog that wrote the line (RunLog.Writer): a server
	// that follows the log knows its own lines by it, even after they left
	// its bounded history.
	Writer string `json:"writer,omitempty"`
}

// RunLog appends event runs to $WAVE_HOME/runs/runs.jsonl, one JSON line
// each, so that the run history outlives the server or proxy that kept it
// (`wavehooks test --record` reads it; `wavehooks log` will). It keeps the
// file open in append mode between appends (an event's line is then one
// stat and one write, not nine system calls: docs/performance.md), and
// checks by a stat of the path before each append that the file it holds
// is still the current one: several servers can share one wave home, and
// a rotation or removal by another (or by the user) makes the next append
// open the file anew. On Windows, where an open file cannot be renamed by
// another process, each append opens, writes and closes. The files are the
// user's only (0600 in a 0700 directory): they hold tool inputs and prompts.
type RunLog struct {
	dir    string
	max    int64
	writer string      // random, the same on every line this RunLog writes
	mu     sync.Mutex  // one append at a time: this process's lines stay whole
	f      *os.File    // the current file as opened, or nil; guarded by mu
	fi     os.FileInfo // f's identity when opened, for os.SameFile
	// behind writes the runs of Put after the answer that made them.
	behind *writebehind.Queue[EventRun]
}

// keepRunLogOpen is whether a RunLog holds its file between appends.
const keepRunLogOpen = runtime.GOOS != "windows"

// NewRunLog is the run log in dir, its files bounded by RunLogMaxBytes.
func NewRunLog(dir string) *RunLog { return newRunLog(dir, RunLogMaxBytes) }

// newRunLog is the run log in dir, its files bounded by max.
func newRunLog(dir string, max int64) *RunLog {
	l := &RunLog{dir: dir, max: max, writer: rand.Text()[:16]}
	l.behind = writebehind.New(l.appendBatch, 0)
	return l
}

// Put appends r later, on a goroutine of its own, after the runs put
// before it: the History's way, so that a hooked call's answer does not
// wait for its line (issue #39). Flush waits for the lines put.
func (l *RunLog) Put(r EventRun) { l.behind.Put(r) }

// Flush waits until every run put before it is written (or refused by the
// disk: the run log is best effort).
func (l *RunLog) Flush() { l.behind.Flush() }

// appendBatch writes the runs of one write-behind batch in one write.
func (l *RunLog) appendBatch(runs []EventRun) {
	var lines []byte
	for _, r := range runs {
		line, err := fastjson.Marshal(RunRecord{EventRun: r, Decision: r.decision, Writer: l.writer})
		if err == nil {
			lines = append(append(lines, line...), '\n')
		}
	}
	if len(lines) > 0 {
		_ = l.write(lines)
	}
}

// Writer is the id this RunLog writes on each of its lines (RunRecord.Writer).
func (l *RunLog) Writer() string { return l.writer }

// Append writes one run as a line, first rotating the current file when
// the line would take it past the bound. Appends take turns, so a process's
// lines never interleave; lines of other processes are whole too (O_APPEND).
// The directory is made only when the file cannot be opened without it.
func (l *RunLog) Append(r EventRun) error {
	// segmentio's encoder: the standard one took about as long as the rest
	// of the append (perf of the server, docs/performance.md).
	line, err := fastjson.Marshal(RunRecord{EventRun: r, Decision: r.decision, Writer: l.writer})
	if err != nil {
		return err
	}
	return l.write(append(line, '\n'))
}

// write appends whole lines in one write, first rotating the current file
// when they would take it past the bound.
func (l *RunLog) write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	path := filepath.Join(l.dir, runLogFile)
	st, err := os.Stat(path)
	if err == nil && st.Size()+int64(len(line)) > l.max {
		l.drop()
		if err := os.Rename(path, filepath.Join(l.dir, runLogPrevFile)); err != nil {
			return err
		}
	} else if err != nil || l.f == nil || !os.SameFile(st, l.fi) {
		l.drop() // removed, or rotated by another process: open the current one
	}
	if l.f == nil {
		if err := l.open(path); err != nil {
			return err
		}
	}
	_, err = l.f.Write(line)
	if !keepRunLogOpen {
		l.drop()
	}
	return err
}

// open opens the current file for appending, making the directory only
// when the file cannot be opened without it.
func (l *RunLog) open(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(l.dir, 0o700); err == nil {
			f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	l.f, l.fi = f, fi
	return nil
}

// drop closes the file held, if any.
func (l *RunLog) drop() {
	if l.f != nil {
		_ = l.f.Close()
		l.f, l.fi = nil, nil
	}
}

// Close writes the runs put, then closes the file the log holds; a later
// Append opens it again.
func (l *RunLog) Close() error {
	l.Flush()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drop()
	return nil
}

// ReadRunLog reads the run log of dir, oldest first. A missing log is no
// runs; a line that is not a record (cut by a full disk, say) is skipped.
func ReadRunLog(dir string) ([]RunRecord, error) {
	var out []RunRecord
	for _, name := range []string{runLogPrevFile, runLogFile} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), int(RunLogMaxBytes)+1)
		for sc.Scan() {
			var r RunRecord
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.Event != "" {
				out = append(out, r)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
