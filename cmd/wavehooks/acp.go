package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/wavehooks/wavehooks/acp"
	"github.com/wavehooks/wavehooks/internal/pollstdio"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// acpProxy is `wavehooks acp [flags] -- <agent command…>`: the editor starts
// it in place of an ACP agent, and it runs the agent behind it (docs/acp.md).
// It exits with the agent's exit status when the agent ends first.
func acpProxy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	// Editors show the agent's stderr as errors (acp.el) or drop it
	// (CodeCompanion): by default it carries only warnings and errors, and
	// the run history goes to the run log (`wavehooks log`).
	logLevel := fs.String("log-level", "", "the least level logged to stderr: debug, info, warn or error (default warn; info with --verbose)")
	verbose := fs.Bool("verbose", false, "also log each event whose hooks ran to stderr (--log-level info)")
	// Under a conductor of a proxy chain (ACP's proxy-chains RFD) the
	// proxy is a component with no agent of its own: the conductor hands it
	// the agent's messages (acp/chain.go).
	component := fs.Bool("component", false, "run as a proxy component under an ACP conductor (proxy/initialize), with no agent command")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wavehooks acp [--wave-home DIR] [--project DIR] [--trust-workspace] [--verbose] [--log-level LEVEL] -- <agent command…>")
		fmt.Fprintln(stderr, "       wavehooks acp --component [flags]    (a proxy in a chain, started by a conductor)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	agent := fs.Args()
	if *component && len(agent) > 0 {
		fmt.Fprintln(stderr, "wavehooks acp: --component takes no agent command: the conductor starts the agent")
		return 2
	}
	if len(agent) == 0 && !*component {
		fmt.Fprintln(stderr, "wavehooks acp: no agent command: give it after --, e.g. wavehooks acp -- gemini --acp")
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	if *logLevel != "" {
		if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
			fmt.Fprintln(stderr, "wavehooks acp: bad --log-level:", err)
			return 2
		}
	}
	paths, err := c.paths()
	if err == nil {
		paths.ProjectRoot, err = filepath.Abs(paths.ProjectRoot)
	}
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks acp:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("component", "wavehooks-acp")
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	// The editor's stdin and stdout through the runtime's poller, as serve
	// reads its own (pollstdio.Pollable): a read blocked on a piped stdin holds a
	// processor in a system call, and the runtime's monitor polls every
	// 20 µs until it takes it back, 10 ms later, and again after every
	// prompt; that polling was a sixth of the proxy's CPU in
	// BenchmarkForwarding.
	if f, ok := stdin.(*os.File); ok {
		stdin = pollstdio.Pollable(f)
	}
	if f, ok := stdout.(*os.File); ok {
		stdout = pollstdio.Pollable(f)
	}
	return acp.Run(ctx, acp.Options{
		Agent: agent, AgentStderr: stderr,
		WaveHome: paths.WaveHome, ProjectRoot: paths.ProjectRoot, ProjectFixed: c.project != "",
		ClaudeHome: settings.DefaultClaudeHome(), ManagedFile: settings.DefaultManagedFile(), AgentHomes: settings.DefaultAgentHomes(),
		ClaudeManagedDir: settings.DefaultClaudeManagedDir(), TrustWorkspace: c.trust, Logger: logger, Component: *component,
		Version: currentVersion().serverVersion(),
	}, stdin, stdout)
}
