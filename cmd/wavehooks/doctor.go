package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/wavehooks/wavehooks/internal/doctor"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// doctorCmd is `wavehooks doctor`: it proves, path by path, whether a hook
// fires where the user runs an agent (internal/doctor), and exits 1 unless
// every path it found fires.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	format := fs.String("format", "text", "text or json")
	timeout := fs.Duration("timeout", 90*time.Second, "how long each probe may take, agent start-up included")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wavehooks doctor [--format text|json] [--timeout 90s] [--wave-home DIR] [--project DIR]")
		fmt.Fprintln(stderr, "Finds each agent and editor that can run your hooks, sends one harmless probe event through each path")
		fmt.Fprintln(stderr, "offline (a fake model on loopback, a temporary HOME and project), and says which fire. Exit 0 when all do.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "wavehooks doctor: --format must be text or json, not %q\n", *format)
		return 2
	}
	if *timeout <= 0 {
		fmt.Fprintln(stderr, "wavehooks doctor: --timeout must be positive")
		return 2
	}
	paths, err := c.paths()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks doctor:", safetext.Line(err.Error(), 0))
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	report := doctor.Run(ctx, doctor.Options{Settings: paths, Timeout: *timeout})
	if *format == "json" {
		if err := doctor.WriteJSON(stdout, report); err != nil {
			fmt.Fprintln(stderr, "wavehooks doctor:", err)
			return 2
		}
	} else {
		doctor.WriteText(stdout, report)
	}
	if !report.OK {
		return 1
	}
	return 0
}
