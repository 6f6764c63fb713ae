// Command wavehooks is the hook engine for AI coding agents that run inside
// an editor. `serve` is the language server editors start; `acp` is the
// proxy ACP editors start in place of an agent; `run` fires one event from
// the command line; `trust` trusts a project's own hooks; `lint` checks the
// hook configuration; `test` runs hook test cases without a model; `log`
// prints the run history; `hooks` lists and turns hooks on and off; `demo`
// plays a
// scripted agent session against example hooks.
//
// This file only wires flags and stdio to the packages that do the work.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/pollstdio"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/lsp"
)

const usage = `wavehooks — hooks for AI coding agents, in your editor

usage:
  wavehooks serve [--stdio] [--wave-home DIR] [--trust-workspace]   language server on stdin/stdout
  wavehooks run EVENT [--project DIR] [--wave-home DIR] [--trust-workspace] [--explain] < input.json
  wavehooks lint [--project DIR] [--wave-home DIR] [--format text|json]
  wavehooks test [PATH…] [--project DIR] [--wave-home DIR] [--trust-workspace] [--format text|json|junit]   hook tests without a model
  wavehooks test --record [--session ID] [--limit N] [-o DIR]         case files from the run history
  wavehooks log [--session ID] [--event NAME] [--limit N] [--follow] [--explain] [--format text|json] [--wave-home DIR]   the run history, oldest first
  wavehooks log --verify [--key FILE | --chain-only] [--wave-home DIR]   prove the audit log's chain (exit 1 names the first broken record)
  wavehooks acp [--project DIR] [--wave-home DIR] [--trust-workspace] -- AGENT [ARGS…]   ACP proxy: hooks for an ACP agent
  wavehooks hooks list [--project DIR] [--wave-home DIR] [--format text|json]   every configured hook, with its ID
  wavehooks hooks disable|enable ID [--project DIR] [--wave-home DIR]          turn one hook off or on in its settings file
  wavehooks hooks export --to claude|codex|gemini|cursor [--wave-home DIR]     your hooks into that agent's own hook file
  wavehooks hooks approve ID [--project DIR] [--wave-home DIR]                 take a hook that drifted into your settings as yours
  wavehooks trust [--project DIR] [--wave-home DIR] [--yes] [--revoke]   trust (or --revoke) the project's own hooks
  wavehooks doctor [--format text|json] [--timeout 90s] [--wave-home DIR]   prove hooks fire with each agent and editor found
  wavehooks demo                                                     play a scripted agent session
  wavehooks version                                                  the version and the commit it was built from
`

func main() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	os.Exit(code)
}

// stopProfile ends a CPU profile started by a build with the
// wavehooks_pprof tag (pprof_tag.go); release builds do nothing here.
var stopProfile = func() {}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdin, stdout, stderr)
	case "run":
		return runEvent(args[1:], stdin, stdout, stderr)
	case "lint":
		return lint(args[1:], stdout, stderr)
	case "test":
		return testHooks(args[1:], stdout, stderr)
	case "acp":
		return acpProxy(args[1:], stdin, stdout, stderr)
	case "demo":
		return demo(args[1:], stdout, stderr)
	case "doctor":
		return doctorCmd(args[1:], stdout, stderr)
	case "log":
		return logCommand(args[1:], stdout, stderr)
	case "hooks":
		return hooksCommand(args[1:], stdin, stdout, stderr)
	case "trust":
		return trustCommand(args[1:], stdin, stdout, stderr)
	case "acp-hook": // hidden: the hook `wavehooks acp` gives claude-agent-acp
		return acpHook(args[1:], stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "wavehooks", currentVersion())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wavehooks: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// commonFlags are the flags every subcommand that reads settings takes.
type commonFlags struct {
	waveHome string
	project  string
	trust    bool
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.waveHome, "wave-home", "", "wave home directory (default $WAVE_HOME or ~/.wave)")
	fs.StringVar(&c.project, "project", "", "project root (default the current directory)")
	fs.BoolVar(&c.trust, "trust-workspace", false, "run the project's own hooks without asking")
}

func (c *commonFlags) paths() (settings.Paths, error) {
	hc, root, err := c.host()
	return hc.Paths(root), err
}

// host is the host configuration and the project root the flags name.
func (c *commonFlags) host() (host.Config, string, error) {
	home := c.waveHome
	if home == "" {
		home = settings.DefaultWaveHome()
	}
	root := c.project
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return host.Config{}, "", err
		}
		root = wd
	}
	return host.Config{WaveHome: home, ClaudeHome: settings.DefaultClaudeHome(), ManagedFile: settings.DefaultManagedFile(),
		AgentHomes: settings.DefaultAgentHomes(), ClaudeManagedDir: settings.DefaultClaudeManagedDir(), TrustWorkspace: c.trust}, root, nil
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default; VS Code adds this flag)")
	logLevel := fs.String("log-level", "info",
		"the least level logged to stderr: debug, info, warn or error (the editor gets info and above as window/logMessage whatever this says)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(stderr, "wavehooks serve: bad --log-level:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// Orphaned hook processes become the server's children, to be reaped
	// here rather than left to an init that may not reap (proc.AdoptOrphans).
	if stopAdopting, err := proc.AdoptOrphans(); err != nil {
		logger.Debug("hook orphans are left to init", "reason", err)
	} else {
		defer stopAdopting()
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	srv := lsp.NewServer(lsp.Options{WaveHome: c.waveHome, ClaudeHome: settings.DefaultClaudeHome(), ManagedFile: settings.DefaultManagedFile(),
		AgentHomes:       settings.DefaultAgentHomes(),
		ClaudeManagedDir: settings.DefaultClaudeManagedDir(), TrustWorkspace: c.trust, Logger: logger, Version: currentVersion().serverVersion()})
	growPipe(stdin)
	growPipe(stdout)
	if f, ok := stdin.(*os.File); ok {
		stdin = pollstdio.Pollable(f)
	}
	if f, ok := stdout.(*os.File); ok {
		stdout = pollstdio.Pollable(f)
	}
	return srv.Serve(ctx, stdioConn{stdin, stdout})
}

// stdioConn joins stdin and stdout into the connection the server speaks on.
type stdioConn struct {
	io.Reader
	io.Writer
}

// Close closes stdin and stdout, which ends the server's read loop where the OS allows it.
func (c stdioConn) Close() error {
	if cl, ok := c.Reader.(io.Closer); ok {
		_ = cl.Close()
	}
	if cl, ok := c.Writer.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}
