package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// trustCommand is `wavehooks trust`: trust a project's own hooks and
// settings from a terminal, for users whose editor has no wavehooks plugin
// to show the trust prompt (ACP editors, `wavehooks run` in scripts). It
// shows the same listing as the editor's prompt (host.TrustListing) and
// records the answer in the store the server reads, with the same hash
// (trust.TrustStore.Decide and Trust), so that what is trusted is exactly
// what was shown. Exit 0 trusted, revoked or nothing to trust; 1 declined
// or not recorded; 2 bad usage.
func trustCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	fs.StringVar(&c.waveHome, "wave-home", "", "wave home directory (default $WAVE_HOME or ~/.wave)")
	fs.StringVar(&c.project, "project", "", "project root (default the current directory)")
	yes := fs.Bool("yes", false, "trust without asking (for scripts)")
	revoke := fs.Bool("revoke", false, "forget the trust given to the project")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wavehooks trust: unexpected argument %q (name the project with --project DIR)\n", safetext.Line(fs.Arg(0), 0))
		return 2
	}
	if *yes && *revoke {
		fmt.Fprintln(stderr, "wavehooks trust: --yes and --revoke cannot be used together")
		return 2
	}
	hc, root, err := c.host()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks trust:", safetext.Line(err.Error(), 0))
		return 2
	}
	store := trust.NewTrustStore(hc.WaveHome)
	shown := safetext.Line(root, 0)
	if *revoke {
		had, err := store.Revoke(root)
		if err != nil {
			fmt.Fprintln(stderr, "wavehooks trust: trust not revoked:", safetext.Line(err.Error(), 0))
			return 1
		}
		if had {
			fmt.Fprintf(stdout, "%s is no longer trusted: its own hooks and settings wait for trust again\n", shown)
		} else {
			fmt.Fprintf(stdout, "%s was not trusted\n", shown)
		}
		return 0
	}
	l := store.Decide(root, settings.Load(hc.Paths(root), nil), false)
	if !l.NeedsTrust() && !l.HasTests() {
		fmt.Fprintf(stdout, "%s has no hooks or settings of its own that need trust\n", shown)
		return 0
	}
	if l.UserTrusted { // not Trusted: a workspace with hook tests and no hooks is "trusted" for its events
		fmt.Fprintf(stdout, "%s is already trusted as it is now\n", shown)
		return 0
	}
	fmt.Fprint(stdout, host.TrustListing(root, l))
	if !*yes {
		fmt.Fprintf(stderr, "Trust these hooks for %s? [y/N] ", shown)
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
		default:
			if answer == "" {
				fmt.Fprintln(stderr, "\nwavehooks trust: no answer on stdin; not trusted (pass --yes to trust from a script)")
			} else {
				fmt.Fprintln(stderr, "not trusted")
			}
			return 1
		}
	}
	if err := store.Trust(root, l.Hash); err != nil {
		fmt.Fprintln(stderr, "wavehooks trust: trust not recorded:", safetext.Line(err.Error(), 0))
		return 1
	}
	// The trust holds only if the files are still what was shown: decide
	// again, as the next event will.
	if again := store.Decide(root, settings.Load(hc.Paths(root), nil), false); !again.UserTrusted {
		fmt.Fprintln(stderr, "wavehooks trust: the project's hooks, settings or scripts changed while you were asked; run `wavehooks trust` again")
		return 1
	}
	fmt.Fprintf(stdout, "trusted %s: its hooks run as listed until they or the scripts change\n", shown)
	return 0
}
