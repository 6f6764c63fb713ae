package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/lsp"
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
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	explain := fs.Bool("explain", false, "explain, for a person, which hooks matched, ran, and what each decided")
	event, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		event, rest = args[0], args[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if event == "" && fs.NArg() > 0 {
		event = fs.Arg(0)
	}
	ev := hooks.Event(event)
	if _, ok := hooks.Spec(ev); !ok {
		fmt.Fprintf(stderr, "wavehooks run: unknown event %q (known: %v)\n", event, hooks.Events())
		return 2
	}
	paths, err := c.paths()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return 2
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run: reading stdin:", err)
		return 2
	}
	in, err := hooks.ParseInput(ev, data)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return 2
	}
	if in.Cwd == "" {
		in.Cwd = paths.ProjectRoot
	}
	cfg := hooks.Load(paths, nil)
	for _, d := range cfg.Diagnostics() {
		fmt.Fprintln(stderr, d)
	}
	engine := hooks.NewEngine(cfg)
	engine.Install(hooks.NewTrustStore(paths.WaveHome).Decide(paths.ProjectRoot, cfg, c.trust))
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	var mu sync.Mutex
	var background []hooks.EventRun
	engine.OnAsyncDone(func(in hooks.Input, res hooks.Result) {
		mu.Lock()
		defer mu.Unlock()
		background = append(background, hooks.NewEventRun(in.SessionID, in.MatchValue(), &res))
	})
	stop := context.AfterFunc(ctx, engine.Close) // ^C kills the async hooks too
	defer stop()
	res := engine.Fire(ctx, in)
	for _, r := range res.Runs {
		if strings.HasPrefix(r.Skipped, hooks.NeedsAgentHost) {
			fmt.Fprintf(stderr, "wavehooks run: %s hook `%s` did not run: it needs an agent host (the editor's agent evaluates it through wave/evaluateHook)\n",
				r.Type, r.Command)
		}
	}
	if *explain {
		fmt.Fprint(stdout, hooks.Explain(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res)))
		engine.Wait()
		for _, r := range background {
			fmt.Fprintf(stdout, "\nin the background: %s", hooks.Explain(r))
		}
		return 0
	}
	result, err := lsp.Preview(ctx, in, res)
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(result); err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return 1
	}
	if c, ok := stdout.(io.Closer); ok {
		_ = c.Close() // the caller has its answer; async hooks must not hold it up
	}
	engine.Wait()
	return 0
}
