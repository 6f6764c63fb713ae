package audit

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/writebehind"
)

// MaxFileBytes bounds the current file: past it, it is renamed audit.N.jsonl
// and a new one begins. Rotated files are kept: removing them is the team's
// choice, once shipped off the machine (docs/security.md, "The audit log").
const MaxFileBytes = 16 << 20

// The files of the log's directory.
const (
	currentFile = "audit.jsonl"
	keyFile     = "key"
	lockFile    = "lock"
)

// Dir is where, under a wave home, the audit log is kept.
func Dir(waveHome string) string { return filepath.Join(waveHome, "audit") }

// Log appends decisions to the audit log of one directory. It is safe for
// concurrent use, and several processes may append to one directory at once
// (the lock file orders them). A nil *Log records nothing: a host without a
// wave home has no log to keep.
type Log struct {
	dir    string
	host   Host
	writer string
	key    []byte
	max    int64
	logger *slog.Logger

	mu   sync.Mutex // one append of this process at a time; the lock file orders processes
	lost uint64     // records that could not be appended since the last one that was

	// behind appends the records of decisions (ObserveRun, RecordAnswer)
	// after the answer that made them, in the order they were made.
	behind *writebehind.Queue[Record]

	// known is the record this Log appended last, in knownFile, which it
	// left knownSize bytes long: while the file is still that file and that
	// long, nobody appended since, and its tail need not be read again.
	known     tail
	knownFile os.FileInfo
	knownSize int64
}

// Options adjust a Log; the zero value is the default.
type Options struct {
	// MaxFileBytes bounds the current file (MaxFileBytes when 0).
	MaxFileBytes int64
	// Logger is told of appends that fail; nil discards.
	Logger *slog.Logger
}

// Open opens (making it when missing) the audit log in dir, written by a
// host of kind h. It makes the directory (0700) and the key (32 random
// bytes, 0600) the first time; a key it cannot read is an error, since
// records without a MAC would not verify.
func Open(dir string, h Host, o Options) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := loadOrMakeKey(dir)
	if err != nil {
		return nil, err
	}
	l := &Log{dir: dir, host: h, writer: rand.Text()[:12], key: key, max: o.MaxFileBytes, logger: o.Logger}
	if l.max <= 0 {
		l.max = MaxFileBytes
	}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	l.behind = writebehind.New(l.appendBatch, 0)
	return l, nil
}

// KeyPath is the key of the log in dir.
func KeyPath(dir string) string { return filepath.Join(dir, keyFile) }

// ReadKey reads the key at path: 64 hex digits (and a newline).
func ReadKey(path string) ([]byte, error) {
	b, err := safefile.ReadFile(path, 1<<10)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != sha256.Size {
		return nil, fmt.Errorf("%s: not an audit key (64 hex digits)", path)
	}
	return key, nil
}

// loadOrMakeKey reads dir's key, making it when there is none. The key is
// written whole to a file of its own and linked into place, which fails
// when the key exists: two processes that both find none cannot both make
// one, and neither can read one half written. The loser reads the winner's.
func loadOrMakeKey(dir string) ([]byte, error) {
	path := KeyPath(dir)
	if key, err := ReadKey(path); !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	f, err := os.CreateTemp(dir, "key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	key := make([]byte, sha256.Size)
	_, _ = rand.Read(key)
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Link(f.Name(), path); errors.Is(err, fs.ErrExist) {
		return ReadKey(path)
	} else if err != nil {
		return nil, err
	}
	return key, nil
}

// ObserveRun records what an event's hooks decided: hooks.History calls it
// for every run of every host. An append that fails is logged and counted
// in the next record's Lost; the decision itself stands (it was made).
func (l *Log) ObserveRun(r *hooks.EventRun) {
	if l == nil {
		return
	}
	rec := Record{Kind: KindRun, Session: r.SessionID, Event: string(r.Event), Tool: r.MatchValue, By: "hooks", Answer: "none"}
	if in := r.Input(); in != nil {
		rec.InputSHA256 = sum(in)
	}
	if d := r.Decision(); d != nil {
		rec.Answer, rec.Reason = answerOf(d, r.Outcome), clipText(d.Reason)
	}
	for _, h := range r.Hooks {
		if !h.Matched {
			continue
		}
		managed := h.Source == settings.SourceManaged
		rec.Hooks = append(rec.Hooks, Hook{Command: clipText(h.Command), Source: h.Source.String(), Managed: managed,
			Ran: h.Ran, Skipped: clipText(h.Skipped), Exit: h.ExitCode, DurationNs: h.DurationNs, TimedOut: h.TimedOut})
		if h.Ran && managed {
			rec.Managed = true
		}
		rec.DurationNs = max(rec.DurationNs, h.DurationNs)
	}
	l.put(rec)
}

// answerOf is a run's decision in a word.
func answerOf(d *hooks.Decision, outcome string) string {
	switch {
	case strings.HasPrefix(outcome, "stop: "):
		return "stop"
	case d.Permission != hooks.PermissionNone:
		return string(d.Permission)
	case d.Blocked:
		return "block"
	}
	return "none"
}

// Answer is the answer to an ask, as an adapter decided it.
type Answer struct {
	Session, Event, Tool string
	// Input is the tool input the user was asked about; its hash is kept.
	Input []byte
	// Answer is allow, deny or cancelled.
	Answer string
	// By is who answered: "user: prompt", "user: code action", "timeout",
	// "proxy: the hooks could not run (fail closed)", …
	By       string
	Reason   string
	Duration time.Duration
}

// Answer values.
const (
	Allow     = "allow"
	Deny      = "deny"
	Cancelled = "cancelled"
)

// RecordAnswer records the answer to an ask where it was decided.
func (l *Log) RecordAnswer(a Answer) {
	if l == nil {
		return
	}
	rec := Record{Kind: KindAnswer, Session: a.Session, Event: a.Event, Tool: a.Tool, Answer: a.Answer,
		By: clipText(a.By), Reason: clipText(a.Reason), DurationNs: int64(a.Duration)}
	if a.Input != nil {
		rec.InputSHA256 = sum(a.Input)
	}
	l.put(rec)
}

// sum is the SHA-256 of b in hex.
func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// put queues rec, stamped with the time of the decision, to be appended
// behind the answer (Flush waits for it).
//
// Why behind: the record was written on the deciding goroutine before the
// answer, ≈ 60-150 µs of a hooked call (issue #39 row 1). Written behind,
// a hard crash (SIGKILL, power loss) between the answer and the append —
// a few milliseconds at most — loses the records queued then; every host
// flushes as it ends, on its signals too, and a failed append is still
// logged and counted in the next record's Lost.
func (l *Log) put(rec Record) {
	rec.Time = time.Now().UTC()
	l.behind.Put(rec)
}

// appendBatch appends the records of one write-behind batch, in order.
func (l *Log) appendBatch(recs []Record) {
	for _, rec := range recs {
		if err := l.Append(rec); err != nil {
			l.logger.Warn("the audit log could not record a decision", "dir", l.dir, "err", err)
		}
	}
}

// Flush waits until every decision recorded before it is appended (or its
// failure logged). Hosts call it as they end; a nil *Log has nothing to.
func (l *Log) Flush() {
	if l != nil {
		l.behind.Flush()
	}
}

// Append writes rec now (its Seq, Prev, Host, Writer, Lost and MAC are set
// here, and its Time when it has none) as the next record: under the lock, it reads the last whole
// record of the log, rotates the current file when the line would take it
// past its bound, and appends the line in one write, after a newline when
// the file ends in a torn line.
func (l *Log) Append(rec Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.appendLocked(rec)
	if err != nil {
		l.lost++
	}
	return err
}

// appendLocked is Append under this process's mutex.
func (l *Log) appendLocked(rec Record) error {
	unlock, err := lockDir(filepath.Join(l.dir, lockFile))
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(l.dir, currentFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	last, torn := l.known, false
	if l.knownFile == nil || !os.SameFile(st, l.knownFile) || st.Size() != l.knownSize {
		// Another process appended (or rotated) since this one's last append.
		if last, torn, err = lastRecord(f, st.Size()); err != nil {
			return err
		}
	}
	l.knownFile = nil // until this append is whole
	if last.line == nil {
		if last, err = l.lastRotated(); err != nil {
			return err
		}
	}
	if rec.Time.IsZero() {
		rec.Time = time.Now().UTC()
	}
	rec.Seq, rec.Prev, rec.Host, rec.Writer, rec.Lost = last.seq+1, last.hash, l.host, l.writer, l.lost
	line, err := seal(rec, l.key)
	if err != nil {
		return err
	}
	if st.Size() > 0 && st.Size()+int64(len(line))+2 > l.max {
		if err := l.rotate(path); err != nil {
			return err
		}
		_ = f.Close()
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
			return err
		}
		defer f.Close()
		if st, err = f.Stat(); err != nil {
			return err
		}
		torn = false
	}
	out := make([]byte, 0, len(line)+2)
	if torn {
		out = append(out, '\n') // the torn line stays, ended; the chain goes on from the last whole record
	}
	out = append(append(out, line...), '\n')
	if _, err := f.Write(out); err != nil {
		return err
	}
	l.lost = 0
	l.known, l.knownFile, l.knownSize = tail{line: line, seq: rec.Seq, hash: lineHash(line)}, st, st.Size()+int64(len(out))
	return nil
}

// tail is the last whole record of a file: its line, sequence and hash.
type tail struct {
	line []byte
	seq  uint64
	hash string
}

// lastRecord finds the last line of f (size bytes) that is a record, and
// whether the file ends in a torn line (bytes after the last newline). It
// reads backwards from the end, a growing window at a time.
func lastRecord(f *os.File, size int64) (tail, bool, error) {
	if size == 0 {
		return tail{}, false, nil
	}
	window := int64(8 << 10)
	for {
		off := max(size-window, 0)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return tail{}, false, err
		}
		torn := buf[len(buf)-1] != '\n'
		// A torn last line never parses (it is a JSON object cut short), so it
		// is looked at like the others: a whole record that only lacks its
		// newline is chained from, as Verify counts it.
		lines := bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n"))
		first := 0
		if off > 0 {
			first = 1 // the window's first line may be cut by the window
		}
		for i := len(lines) - 1; i >= first; i-- {
			if r, err := parse(lines[i]); err == nil {
				return tail{line: lines[i], seq: r.Seq, hash: lineHash(lines[i])}, torn, nil
			}
		}
		if off == 0 {
			return tail{}, torn, nil
		}
		window *= 4
	}
}

// lastRotated is the last whole record of the newest rotated file, for a
// current file that has none yet.
func (l *Log) lastRotated() (tail, error) {
	files, err := rotated(l.dir)
	if err != nil || len(files) == 0 {
		return tail{}, err
	}
	f, err := os.Open(files[len(files)-1])
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	t, _, err := lastRecord(f, st.Size())
	return t, err
}

// rotate renames the current file to the next audit.N.jsonl.
func (l *Log) rotate(path string) error {
	files, err := rotated(l.dir)
	if err != nil {
		return err
	}
	n := 1
	if len(files) > 0 {
		n = rotatedNumber(files[len(files)-1]) + 1
	}
	return os.Rename(path, filepath.Join(l.dir, fmt.Sprintf("audit.%d.jsonl", n)))
}

// rotated lists the rotated files of dir, oldest first.
func rotated(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if rotatedNumber(e.Name()) > 0 {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Slice(files, func(i, j int) bool { return rotatedNumber(files[i]) < rotatedNumber(files[j]) })
	return files, nil
}

// rotatedNumber is N of a path audit.N.jsonl, 0 for any other name.
func rotatedNumber(path string) int {
	s, ok := strings.CutPrefix(filepath.Base(path), "audit.")
	if !ok {
		return 0
	}
	s, ok = strings.CutSuffix(s, ".jsonl")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || strconv.Itoa(n) != s {
		return 0
	}
	return n
}

// Files are the log's files in dir, oldest first: the rotated ones, then
// the current one when it exists.
func Files(dir string) ([]string, error) {
	files, err := rotated(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	cur := filepath.Join(dir, currentFile)
	if _, err := os.Stat(cur); err == nil {
		files = append(files, cur)
	}
	return files, nil
}
