package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooktest"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// testHooks is `wavehooks test [PATH…]`: the case files of the paths (by
// default .wave/tests in the project) run against the real hooks, built
// and fired as `wavehooks run` builds and fires them (host.PrepareInput,
// openForRun). Exit 0 when every case passed, 1 when one failed, 2 when a
// case file or a flag is bad, or when the run is refused because a case
// uses workspace content (a case file, settings file or script in the
// project) the user has not trusted (hooktest.Guard): in each of those no
// hook ran. With --record it writes case files from the run history
// instead (recordTests).
func testHooks(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	format := fs.String("format", "text", "text, json, or junit (JUnit XML)")
	record := fs.Bool("record", false, "write case files from the run history instead of running tests")
	session := fs.String("session", "", "with --record: only this session's runs")
	limit := fs.Int("limit", 20, "with --record: at most this many runs, newest first")
	outDir := fs.String("o", ".", "with --record: the directory the case files are written to")
	var targets []string
	for { // flags may come after the paths too: `wavehooks test tests/ --trust-workspace`
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		targets, args = append(targets, fs.Arg(0)), fs.Args()[1:]
	}
	paths, err := c.paths()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks test:", err)
		return 2
	}
	if *record {
		return recordTests(paths.WaveHome, *session, *limit, *outDir, stdout, stderr)
	}
	write := map[string]func(io.Writer, *hooktest.Report) error{
		"text": hooktest.WriteText, "json": hooktest.WriteJSON, "junit": hooktest.WriteJUnit}[*format]
	if write == nil {
		fmt.Fprintf(stderr, "wavehooks test: unknown --format %q (text, json or junit)\n", *format)
		return 2
	}
	if len(targets) == 0 {
		dflt := filepath.Join(paths.ProjectRoot, ".wave", "tests")
		if _, err := os.Stat(dflt); err != nil {
			fmt.Fprintf(stderr, "wavehooks test: no case files given, and %s does not exist (wavehooks test PATH…; docs/hooks.md \"Testing your hooks\")\n",
				safetext.Line(dflt, 0))
			return 2
		}
		targets = []string{dflt}
	}
	files, err := hooktest.Find(targets)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks test:", safetext.Line(err.Error(), 0))
		return 2
	}
	var cases []*hooktest.Case
	for _, f := range files {
		cs, err := hooktest.Load(f)
		if err != nil {
			fmt.Fprintln(stderr, "wavehooks test:", safetext.Line(err.Error(), 0))
			return 2
		}
		cases = append(cases, cs...)
	}
	// A case file, settings file or script of the workspace is the
	// repository's content, under the workspace's trust: refused, before any
	// hook runs, unless the user trusted exactly what it is now or passed
	// --trust-workspace (hooktest.Guard, issue #35). Exit 2, as a bad case
	// file: nothing ran, and what is to be fixed is the trust, not a hook.
	decide := func(root string) *trust.Loaded {
		p := paths
		p.ProjectRoot = root
		return trust.NewTrustStore(paths.WaveHome).Decide(root, settings.Load(p, nil), false)
	}
	if err := hooktest.Guard(cases, paths.ProjectRoot, c.trust, decide); err != nil {
		fmt.Fprintln(stderr, "wavehooks test: refused:", safetext.Line(err.Error(), 0))
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	rep, err := hooktest.Run(ctx, testHost(stderr), hooktest.Options{Paths: paths, Trust: c.trust}, cases)
	var fe *hooktest.FileError
	if errors.As(err, &fe) {
		fmt.Fprintln(stderr, "wavehooks test:", safetext.Line(err.Error(), 0))
		return 2
	}
	if rep != nil {
		if werr := write(stdout, rep); werr != nil {
			fmt.Fprintln(stderr, "wavehooks test:", safetext.Line(werr.Error(), 0))
			return 2
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks test:", safetext.Line(err.Error(), 0))
		return 1
	}
	if _, failed := rep.Counts(); failed > 0 {
		return 1
	}
	return 0
}

// testHost fires a case's event as `wavehooks run` does, in a workspace the
// host opens per case (openForRun); each configuration's diagnostics are
// printed once.
func testHost(stderr io.Writer) hooktest.Host {
	reported := map[string]bool{}
	return hooktest.Host{
		Prepare: host.PrepareInput,
		Fire: func(ctx context.Context, paths settings.Paths, texts map[string][]byte, trust bool, in event.Input) (hooks.Result, *trust.Loaded) {
			hc := host.Config{WaveHome: paths.WaveHome, ClaudeHome: paths.ClaudeHome, ManagedFile: paths.ManagedFile, ClaudeManagedDir: paths.ClaudeManagedDir, TrustWorkspace: trust}
			ws := openForRun(hc, paths.ProjectRoot, texts, nil, nil)
			loaded := ws.Loaded()
			if key := fmt.Sprint(paths.ProjectRoot, "\x00", texts); !reported[key] {
				reported[key] = true
				reportSettings(stderr, "test", loaded)
			}
			engine := ws.Engine
			stop := context.AfterFunc(ctx, engine.Close) // ^C kills the async hooks too
			defer stop()
			res := engine.Fire(ctx, in)
			engine.Wait()
			for _, r := range res.Runs {
				if strings.HasPrefix(r.Skipped, hooks.NeedsAgentHost) {
					fmt.Fprintf(stderr, "wavehooks test: %s hook `%s` did not run: it needs an agent host\n",
						safetext.Line(r.Type, 0), safetext.Line(r.Command, 0))
				}
			}
			return res, loaded
		},
	}
}

// recordTests is --record: the newest runs of the run log under the wave
// home (serve's and the ACP proxy's) become case files in dir, one each,
// never over an existing file.
func recordTests(home, session string, limit int, dir string, stdout, stderr io.Writer) int {
	runs, err := hooks.ReadRunLog(hooks.RunLogDir(home))
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks test --record:", safetext.Line(err.Error(), 0))
		return 2
	}
	recorded, skipped := hooktest.Record(runs, session, limit)
	for _, s := range skipped {
		fmt.Fprintf(stderr, "wavehooks test --record: skipped %s %s (run %d): %s\n",
			safetext.Line(string(s.Run.Event), 0), safetext.Line(s.Run.MatchValue, 0), s.Run.ID, s.Why)
	}
	if len(recorded) == 0 {
		fmt.Fprintf(stderr, "wavehooks test --record: no runs to record in %s\n", safetext.Line(hooks.RunLogDir(home), 0))
		return 1
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "wavehooks test --record:", safetext.Line(err.Error(), 0))
		return 2
	}
	for _, r := range recorded {
		path := filepath.Join(dir, r.FileName)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.Write(r.Text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "wavehooks test --record:", safetext.Line(err.Error(), 0))
			return 2
		}
		fmt.Fprintf(stdout, "wrote %s: %s\n", safetext.Line(path, 0), safetext.Line(r.Summary, 0))
	}
	return 0
}
