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

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/lsp"
)

// runEvent fires one event from the command line: the hooks configured for
// EVENT run with the JSON on stdin, and the result object of the matching
// wire method is printed. The exit status is 0 whenever the hooks ran,
// whatever they decided.
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
	engine.SetWorkspaceTrusted(c.trust || hooks.NewTrustStore(paths.WaveHome).Trusted(paths.ProjectRoot, hooks.WorkspaceHash(cfg)))
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	res := engine.Fire(ctx, in)
	if *explain {
		fmt.Fprint(stdout, hooks.Explain(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res)))
		return 0
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(lsp.Preview(in, res)); err != nil {
		fmt.Fprintln(stderr, "wavehooks run:", err)
		return 1
	}
	return 0
}
