package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/telemetry"
	"github.com/wavehooks/wavehooks/watcher"
)

// logFilter is what `wavehooks log` keeps of the run log: the runs of one
// session and one event, when the flags name them.
type logFilter struct {
	session string
	event   event.Event
}

func (f logFilter) keep(r hooks.RunRecord) bool {
	return (f.session == "" || r.SessionID == f.session) && (f.event == "" || r.Event == f.event)
}

// logCommand is `wavehooks log`: the run history that serve and the ACP
// proxy keep in $WAVE_HOME/runs (hooks.RunLog), read with the reader
// `wavehooks test --record` uses (hooks.ReadRunLog), printed oldest first
// as a log is, one escaped line per run, or hooks.Explain of each run
// (--explain), or the JSON lines (--format json). --follow keeps printing
// the runs appended after it started until SIGINT or SIGTERM. It answers
// "what did my hooks do?" after the session that ran them has ended.
func logCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	fs.SetOutput(stderr)
	waveHome := fs.String("wave-home", "", "wave home directory (default $WAVE_HOME or ~/.wave)")
	session := fs.String("session", "", "only this session's runs")
	eventName := fs.String("event", "", "only this event's runs (PreToolUse, Stop, …)")
	limit := fs.Int("limit", 50, "at most this many runs, the newest (0: all)")
	follow := fs.Bool("follow", false, "keep printing runs as they are recorded, until interrupted")
	explain := fs.Bool("explain", false, "print what every hook of each run did (as `wavehooks run --explain`)")
	format := fs.String("format", "text", "text or json (one JSON line per run)")
	verify := fs.Bool("verify", false, "prove the audit log's chain ($WAVE_HOME/audit) instead of printing runs")
	keyPath := fs.String("key", "", "with --verify: the audit key (default $WAVE_HOME/audit/key)")
	chainOnly := fs.Bool("chain-only", false, "with --verify: check the chain without the key (a rewrite of the whole log is then not found)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wavehooks log [--session ID] [--event NAME] [--limit N] [--follow] [--explain] [--format text|json] [--wave-home DIR]")
		fmt.Fprintln(stderr, "       wavehooks log --verify [--key FILE | --chain-only] [--wave-home DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wavehooks log: unexpected argument %q\n", safetext.Line(fs.Arg(0), 0))
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "wavehooks log: unknown --format %q (text or json)\n", safetext.Line(*format, 0))
		return 2
	}
	if *explain && *format == "json" {
		fmt.Fprintln(stderr, "wavehooks log: --explain is text: it cannot be used with --format json (the JSON lines hold all it says)")
		return 2
	}
	if *limit < 0 {
		fmt.Fprintf(stderr, "wavehooks log: --limit %d: must be 0 (all) or more\n", *limit)
		return 2
	}
	filter := logFilter{session: *session}
	if *eventName != "" {
		i := slices.IndexFunc(event.Events(), func(e event.Event) bool { return strings.EqualFold(string(e), *eventName) })
		if i < 0 {
			fmt.Fprintf(stderr, "wavehooks log: unknown --event %q\n", safetext.Line(*eventName, 0))
			return 2
		}
		filter.event = event.Events()[i]
	}
	home := *waveHome
	if home == "" {
		home = settings.DefaultWaveHome()
	}
	if *verify {
		other := ""
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "verify" && f.Name != "key" && f.Name != "chain-only" && f.Name != "wave-home" {
				other = f.Name
			}
		})
		if other != "" {
			fmt.Fprintf(stderr, "wavehooks log: --verify proves the whole audit log: it takes --key, --chain-only and --wave-home, not --%s\n", other)
			return 2
		}
		if *chainOnly && *keyPath != "" {
			fmt.Fprintln(stderr, "wavehooks log: --chain-only checks without a key: it cannot be used with --key")
			return 2
		}
		return verifyAudit(audit.Dir(home), *keyPath, *chainOnly, stdout, stderr)
	}
	if *keyPath != "" || *chainOnly {
		fmt.Fprintln(stderr, "wavehooks log: --key and --chain-only are for --verify")
		return 2
	}
	dir := hooks.RunLogDir(home)
	emit := func(r hooks.RunRecord) error { return printRun(stdout, r, *format, *explain) }

	if !*follow {
		runs, err := hooks.ReadRunLog(dir)
		if err != nil {
			fmt.Fprintln(stderr, "wavehooks log:", safetext.Line(err.Error(), 0))
			return 2
		}
		for _, r := range lastRuns(runs, filter, *limit) {
			if err := emit(r); err != nil {
				fmt.Fprintln(stderr, "wavehooks log:", safetext.Line(err.Error(), 0))
				return 2
			}
		}
		// The JSON lines stay one run each: there the count goes to stderr.
		w := stdout
		if *format == "json" {
			w = stderr
		}
		printDrops(w, dir)
		return 0
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	if err := followRunLog(ctx, dir, filter, *limit, emit); err != nil {
		fmt.Fprintln(stderr, "wavehooks log:", safetext.Line(err.Error(), 0))
		return 2
	}
	return 0
}

// lastRuns is the newest limit runs the filter keeps (all of them when
// limit is 0), oldest first.
func lastRuns(runs []hooks.RunRecord, f logFilter, limit int) []hooks.RunRecord {
	var kept []hooks.RunRecord
	for _, r := range runs {
		if f.keep(r) {
			kept = append(kept, r)
		}
	}
	if limit > 0 && len(kept) > limit {
		kept = kept[len(kept)-limit:]
	}
	return kept
}

// printRun prints one run in the chosen format. The run log keeps a hook's
// duration as durationNs only (Duration is not on the wire): it is put back
// so that --explain says how long each hook ran.
func printRun(w io.Writer, r hooks.RunRecord, format string, explain bool) error {
	if format == "json" {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if explain {
		for i := range r.Hooks {
			if r.Hooks[i].Duration == 0 {
				r.Hooks[i].Duration = time.Duration(r.Hooks[i].DurationNs)
			}
		}
		_, err := fmt.Fprintf(w, "%s  session %s\n%s\n", r.Time.UTC().Format(time.RFC3339), safetext.Line(r.SessionID, 0),
			hooks.Explain(r.EventRun))
		return err
	}
	_, err := fmt.Fprintln(w, runLine(r))
	return err
}

// runLine is a run as one line: when, which session, which event on what,
// what the hooks decided, and how many of them ran. Every text in it comes
// from an agent, a repository or a hook, so every one is escaped.
func runLine(r hooks.RunRecord) string {
	ran := 0
	for _, h := range r.Hooks {
		if h.Ran || (h.Async && h.Matched && h.Skipped == "") {
			ran++
		}
	}
	what := safetext.Line(string(r.Event), 0)
	if r.MatchValue != "" {
		what += " " + safetext.Line(r.MatchValue, 200)
	}
	return fmt.Sprintf("%s  %s  %s: %s  (hooks: %d ran, %d skipped)", r.Time.UTC().Format(time.RFC3339),
		safetext.Line(r.SessionID, 0), what, safetext.Line(r.Outcome, 300), ran, len(r.Hooks)-ran)
}

// followRunLog prints the newest runs as the log does, then every run
// appended after, until ctx ends. It holds the current file open: when
// the log rotates (runs.jsonl renamed to runs.1.jsonl), it reads the rest
// of the file it holds, then moves to the new runs.jsonl from its start.
// The watch is placed before the log is read, so that an append is seen
// once it has started; the directory may not exist yet (no run recorded).
func followRunLog(ctx context.Context, dir string, filter logFilter, limit int, emit func(hooks.RunRecord) error) error {
	changed := make(chan struct{}, 1)
	w, err := watcher.New(50*time.Millisecond, func([]string) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.WatchFile(filepath.Join(dir, "runs.jsonl")); err != nil {
		return err
	}
	t, runs, err := hooks.FollowRunLog(dir)
	if err != nil {
		return err
	}
	defer t.Close()
	for _, r := range lastRuns(runs, filter, limit) {
		if err := emit(r); err != nil {
			return err
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		recs, err := t.Read()
		if err != nil {
			return err
		}
		for _, r := range recs {
			if filter.keep(r) {
				if err := emit(r); err != nil {
					return err
				}
			}
		}
	}
}

// printDrops is the trailer that says how many runs of this wave home were
// not exported to OpenTelemetry (internal/telemetry's counter file), when
// any were: the log holds them, the team's collector does not.
func printDrops(w io.Writer, dir string) {
	n, last, err := telemetry.Drops(dir)
	if err != nil {
		fmt.Fprintln(w, "telemetry: the count of runs not exported cannot be read:", safetext.Line(err.Error(), 0))
		return
	}
	if n > 0 {
		fmt.Fprintf(w, "telemetry: %d run(s) not exported to OpenTelemetry (queue full or collector unreachable; last %s)\n",
			n, last.UTC().Format(time.RFC3339))
	}
}

// verifyAudit is `wavehooks log --verify`: it proves the audit log's chain
// (audit.Verify) and says so in a line, "N records, chain intact", exit 0;
// or names the first record that was changed, removed, inserted or
// reordered, exit 1. Lines a crash cut short are listed as torn, which is
// not tampering. The MACs are checked with the key (keyPath, or the log's
// own): a key that is missing is exit 2, not a pass, since whoever rewrote
// the log could have removed it; chainOnly checks the chain alone and says
// so. A log that cannot be read is exit 2; no log at all is 0 records.
func verifyAudit(dir, keyPath string, chainOnly bool, stdout, stderr io.Writer) int {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && keyPath == "" {
		fmt.Fprintf(stdout, "0 records, chain intact (no audit log at %s)\n", safetext.Line(dir, 0))
		return 0
	}
	var key []byte
	keyNote := ""
	if chainOnly {
		keyNote = " (--chain-only: the MACs were not checked)"
	} else {
		if keyPath == "" {
			keyPath = audit.KeyPath(dir)
		}
		k, err := audit.ReadKey(keyPath)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("no audit key at %s: the log cannot be proved without it (--key FILE, or --chain-only to check the chain alone)", keyPath)
			}
			fmt.Fprintln(stderr, "wavehooks log --verify:", safetext.Line(err.Error(), 0))
			return 2
		}
		key = k
	}
	rep, err := audit.Verify(dir, key)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks log --verify:", safetext.Line(err.Error(), 0))
		return 2
	}
	for _, p := range rep.Torn {
		fmt.Fprintf(stdout, "%s: a torn line (an append cut short, by a crash say): not a record, and the chain passes over it\n", p)
	}
	if rep.Problem != nil {
		fmt.Fprintln(stdout, safetext.Line(rep.Problem.String(), 0))
		fmt.Fprintf(stdout, "chain broken: %d records intact before it\n", rep.Records)
		return 1
	}
	fmt.Fprintf(stdout, "%d records, chain intact%s\n", rep.Records, keyNote)
	return 0
}
