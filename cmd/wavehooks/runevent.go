package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/audit"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/telemetry"
	"github.com/wavehooks/wavehooks/internal/trust"
	"github.com/wavehooks/wavehooks/internal/wire"
)

// runEvent fires one event from the command line: the hooks configured for
// EVENT run with the JSON on stdin, and the result object of the matching
// wire method is printed. The exit status is 0 whenever the hooks ran,
// whatever they decided.
//
// Async hooks do not delay the result: it is printed, and stdout closed,
// before they end; the command then waits for them (their timeouts apply)
// so that they are not left running unsupervised. With --explain, what each
// one did is explained after it ends.
func runEvent(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	req, code := decodeRun(args, stdin, stderr)
	if code != 0 {
		return code
	}
	in := req.in
	// The runs of this one event and its async hooks pass through one
	// History's observers, as every host's do: the audit log records each
	// decision (opened, made the first time, only when a hook ran), and
	// OpenTelemetry exports it when export is configured.
	runs := hooks.NewHistory(1)
	x := telemetry.Start(runs, os.Getenv, req.host.WaveHome, currentVersion().serverVersion(),
		slog.New(slog.NewTextHandler(stderr, nil)))
	defer telemetry.Stop(x) // after the answer is printed and stdout closed
	var opened atomic.Pointer[audit.Log]
	auditLog := sync.OnceValue(func() *audit.Log {
		al, err := audit.Open(audit.Dir(req.host.WaveHome), audit.HostCLI, audit.Options{})
		if err != nil {
			fmt.Fprintln(stderr, "wavehooks run: the audit log cannot be kept, this decision is not recorded in it:", safetext.Line(err.Error(), 0))
		}
		opened.Store(al)
		return al
	})
	defer func() { opened.Load().Flush() }() // its records are written behind the answer: before the process ends
	runs.Observe(runObserver(func(r *hooks.EventRun) { auditLog().ObserveRun(r) }))
	var mu sync.Mutex
	var background []hooks.EventRun
	// An async hook's run reaches the host's history when it ends; it is
	// passed on whole (its observers get the unclipped input to hash).
	forward := runObserver(func(r *hooks.EventRun) { runs.Add(*r) })
	ws := openForRun(req.host, req.root, nil, forward, func(run hooks.EventRun) {
		mu.Lock()
		defer mu.Unlock()
		background = append(background, run)
	})
	reportSettings(stderr, "run", ws.Loaded())
	engine := ws.Engine
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	stop := context.AfterFunc(ctx, engine.Close) // ^C kills the async hooks too
	defer stop()
	res := engine.Fire(ctx, in)
	if len(res.Runs) > 0 {
		runs.Add(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res))
	}
	for _, r := range res.Runs {
		if strings.HasPrefix(r.Skipped, hooks.NeedsAgentHost) {
			fmt.Fprintf(stderr, "wavehooks run: %s hook `%s` did not run: it needs an agent host (the editor's agent evaluates it through wave/evaluateHook)\n",
				safetext.Line(r.Type, 0), safetext.Line(r.Command, 0))
		}
	}
	if req.explain {
		fmt.Fprint(stdout, hooks.Explain(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res)))
		engine.Wait()
		for _, r := range background {
			fmt.Fprintf(stdout, "\nin the background: %s", hooks.Explain(r))
		}
		return 0
	}
	result, err := host.Preview(ctx, in, res)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", safetext.Line(err.Error(), 0))
		return 1
	}
	if err := printIndented(stdout, result); err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", safetext.Line(err.Error(), 0))
		return 1
	}
	if c, ok := stdout.(io.Closer); ok {
		_ = c.Close() // the caller has its answer; async hooks must not hold it up
	}
	engine.Wait()
	return 0
}

// openForRun opens the workspace of one event fired from the command line
// (`wavehooks run`, and each case of `wavehooks test`) through the host, as
// every adapter opens one: the trust of the command line (hc's
// --trust-workspace), no session store (one event keeps no session), texts
// standing in for the settings files' contents (a test case's own settings
// file; nil reads the files), observe told of every run the history adds
// (async hooks' runs: `run` records them in the audit log; nil for none),
// and onAsync told of each async hook's run.
func openForRun(hc host.Config, root string, texts map[string][]byte, observe hooks.RunObserver, onAsync func(run hooks.EventRun)) *host.Workspace {
	o := host.Options{NoStore: true, Texts: func() map[string][]byte { return texts }}
	if onAsync != nil {
		o.OnAsyncRun = func(_ event.Input, _ hooks.Result, run hooks.EventRun) { onAsync(run) }
	}
	h := host.New(hc)
	if observe != nil {
		h.History.Observe(observe)
	}
	return h.Open(root, o)
}

// runObserver is a function as a hooks.RunObserver.
type runObserver func(r *hooks.EventRun)

// ObserveRun calls f.
func (f runObserver) ObserveRun(r *hooks.EventRun) { f(r) }

// reportSettings prints the diagnostics of the configuration that runs
// (an untrusted workspace's settings explain nothing: they do not apply, as
// the editor shows it), and, for an untrusted workspace, each of its
// settings that waits for trust: an untrusted project's disableAllHooks
// leaves the user's own hooks running, and saying that they "do not run"
// would be false.
func reportSettings(stderr io.Writer, command string, l *trust.Loaded) {
	for _, d := range l.Config.Diagnostics() {
		fmt.Fprintln(stderr, safetext.Line(d.String(), 0))
	}
	if l.Trusted {
		return
	}
	for _, s := range trust.WorkspaceSettings(l.Full) {
		fmt.Fprintf(stderr, "wavehooks %s: the workspace is not trusted, so its setting %s does not apply: "+
			"your own hooks run as if it were not set (--trust-workspace, or Trust in the editor, applies it)\n", command, safetext.Line(s, 0))
	}
}

// readAll reads r to its end like io.ReadAll, in far fewer copies for a
// large input: a regular file is read into a buffer of its size, anything
// else into chunks that double in size, joined once at the end. io.ReadAll
// grows its buffer by a quarter at a time, copying it each time.
func readAll(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			buf := make([]byte, 0, st.Size()+1)
			for {
				n, err := f.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					return buf, nil
				}
				if err != nil {
					return buf, err
				}
				if len(buf) == cap(buf) {
					return readRest(buf, r)
				}
			}
		}
	}
	return readRest(nil, r)
}

// readRest reads r to its end after head, into chunks of doubling size.
func readRest(head []byte, r io.Reader) ([]byte, error) {
	chunks := [][]byte{head}
	total, size := len(head), 64<<10
	for {
		chunk := make([]byte, size)
		n, err := io.ReadFull(r, chunk)
		chunks, total = append(chunks, chunk[:n]), total+n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 64<<20)
	}
	if len(chunks) == 2 && head == nil {
		return chunks[1], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

// printIndented writes v as JSON indented by two spaces, as a json.Encoder
// with SetIndent would, and a newline. It encodes v once and indents it on
// the way out (writeIndented), where the Encoder would build the whole text
// in a buffer grown a quarter at a time: a result can hold a 100 MB tool
// input twice.
func printIndented(w io.Writer, v any) error {
	compact, err := wire.Marshal(v)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := writeIndented(bw, compact); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// writeIndented writes compact JSON (no whitespace outside strings) with
// json.Indent's layout and an indent of two spaces. Strings are copied whole.
func writeIndented(w *bufio.Writer, b []byte) error {
	depth := 0
	newline := func() {
		w.WriteByte('\n')
		for range depth {
			w.WriteString("  ")
		}
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			end := i + 1
			for {
				q := bytes.IndexByte(b[end:], '"')
				if q < 0 {
					return fmt.Errorf("unterminated string in JSON")
				}
				end += q
				slashes := 0
				for j := end - 1; j > i && b[j] == '\\'; j-- {
					slashes++
				}
				if slashes%2 == 0 {
					break
				}
				end++
			}
			w.Write(b[i : end+1])
			i = end
		case '{', '[':
			w.WriteByte(c)
			if i+1 < len(b) && (b[i+1] == '}' || b[i+1] == ']') {
				w.WriteByte(b[i+1]) // json.Indent keeps {} and [] on one line
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			newline()
		case ':':
			w.WriteString(": ")
		default:
			w.WriteByte(c)
		}
	}
	return nil
}

// runRequest is what `wavehooks run` was asked: the host, the project and
// the event's input, read and checked before any hook runs.
type runRequest struct {
	host    host.Config
	root    string
	in      event.Input
	explain bool
}

// decodeRun reads the command line and stdin of `wavehooks run`; a code
// other than 0 is the exit status of a request refused (its reason is on
// stderr).
func decodeRun(args []string, stdin io.Reader, stderr io.Writer) (runRequest, int) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	explain := fs.Bool("explain", false, "explain, for a person, which hooks matched, ran, and what each decided")
	name, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return runRequest{}, 2
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	ev := event.Event(name)
	if _, ok := event.Spec(ev); !ok {
		fmt.Fprintf(stderr, "wavehooks run: unknown event %q (known: %v)\n", name, event.Events())
		return runRequest{}, 2
	}
	hc, root, err := c.host()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return runRequest{}, 2
	}
	growPipe(stdin)
	data, err := readAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run: reading stdin:", err)
		return runRequest{}, 2
	}
	in, err := host.PrepareInput(ev, data, root)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", safetext.Line(err.Error(), 0))
		return runRequest{}, 2
	}
	return runRequest{host: hc, root: root, in: in, explain: *explain}, 0
}
