package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wavehooks/wavehooks/internal/agentexport"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/wire"
)

// hooksCommand is `wavehooks hooks list|disable|enable|approve`: per-hook switches
// for users whose editor has no wavehooks plugin (ACP editors). The edit
// keeps the settings file's comments and layout and replaces it atomically.
func hooksCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "shim" {
		return shimCommand(args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" {
		return exportCommand(args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "list" && args[0] != "disable" && args[0] != "enable" && args[0] != "approve") {
		fmt.Fprint(stderr, hooksUsage)
		return 2
	}
	verb := args[0]
	fs := flag.NewFlagSet("hooks "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	format := fs.String("format", "text", "text or json (list)")
	// The ID may come before or after the flags.
	var id string
	rest := args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		id, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	}
	paths, err := c.paths()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks hooks:", safetext.Line(err.Error(), 0))
		return 2
	}
	cfg := settings.Load(paths, nil)
	if verb == "list" {
		return listHooks(cfg, *format, stdout, stderr)
	}
	if id == "" {
		fmt.Fprintf(stderr, "wavehooks hooks %s: name the hook's ID (`wavehooks hooks list` shows them)\n", verb)
		return 2
	}
	h, err := settings.FindHook(cfg, id)
	if err == nil && verb == "approve" {
		return approveHook(h, paths.WaveHome, stdout, stderr)
	}
	if err == nil {
		_, err = host.SetHookEnabled(h, verb == "enable", paths.WaveHome)
	}
	if err != nil {
		fmt.Fprintf(stderr, "wavehooks hooks %s: %s\n", verb, safetext.Line(err.Error(), 0))
		return 1
	}
	state := "off: it no longer runs"
	if verb == "enable" {
		state = "on"
		if h.Source.FromWorkspace() {
			state += " (a workspace hook: it runs once the workspace is trusted with it on)"
		}
	}
	fmt.Fprintf(stdout, "%s %s: %s is %s\n", settings.HookID(h), h.Event, safetext.Line(h.Display(), 200), state)
	return 0
}

const hooksUsage = "usage: wavehooks hooks list [--format text|json] | wavehooks hooks disable|enable|approve ID | " +
	"wavehooks hooks export --to claude|codex|gemini|cursor  [--project DIR] [--wave-home DIR]\n"

// exportCommand is `wavehooks hooks export --to AGENT`: the user's own
// wavehooks hooks (~/.wave/settings.json) written into that agent's user
// hook file, the file's other content and comments kept (agentexport).
func exportCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hooks export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: wavehooks hooks export --to claude|codex|gemini|cursor [--wave-home DIR]\n\n"+
			"Writes your wavehooks hooks (~/.wave/settings.json) into the agent's own user hook file, keeping its other\n"+
			"content and comments; the hooks it wrote before are replaced. `wavehooks lint` says when that file drifts.\n\n")
		fs.PrintDefaults()
	}
	var c commonFlags
	c.register(fs)
	to := fs.String("to", "", "the agent: claude, codex, gemini or cursor")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	paths, err := c.paths()
	if err == nil && *to == "" {
		err = fmt.Errorf("name the agent with --to (%s)", strings.Join(agentexport.Targets, ", "))
	}
	var target agentexport.Target
	if err == nil {
		target, err = agentexport.TargetFor(*to, paths)
	}
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks hooks export:", safetext.Line(err.Error(), 0))
		return 2
	}
	shim, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks hooks export: cannot find this binary for the shim:", safetext.Line(err.Error(), 0))
		return 1
	}
	entries, notes := agentexport.Build(*to, userHooks(paths), shim)
	for _, n := range notes {
		fmt.Fprintln(stderr, safetext.Line(n, 0))
	}
	if err := agentexport.Write(paths.WaveHome, target, entries); err != nil {
		fmt.Fprintln(stderr, "wavehooks hooks export:", safetext.Line(err.Error(), 0))
		return 1
	}
	n := 0
	for _, e := range entries {
		n += len(e)
	}
	fmt.Fprintf(stdout, "exported %d hook(s) to %s (%s)\n", n, *to, target.Path)
	return 0
}

// userHooks are the hooks of the user's own wavehooks settings file, the
// ones an export writes.
func userHooks(paths settings.Paths) []settings.Hook {
	var out []settings.Hook
	for _, h := range settings.Load(paths, nil).Hooks {
		if h.Source == settings.SourceUser {
			out = append(out, h)
		}
	}
	return out
}

// shimCommand is `wavehooks hooks shim --agent A --event E -- COMMAND`, the
// command an export writes into Gemini CLI's and Cursor's files.
func shimCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hooks shim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: wavehooks hooks shim --agent gemini|cursor --event EVENT -- COMMAND\n\n"+
			"Runs a wavehooks hook inside another agent: its stdin translated into Claude Code's, its answer back.\n\n")
		fs.PrintDefaults()
	}
	agentName := fs.String("agent", "", "the agent that runs the hook: gemini or cursor")
	ev := fs.String("event", "", "the agent's event name")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	a, err := agentfmt.Parse(*agentName)
	if err == nil && (fs.NArg() != 1 || *ev == "") {
		err = fmt.Errorf("give --event and one COMMAND after --")
	}
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks hooks shim:", safetext.Line(err.Error(), 0))
		return 2 // fails closed
	}
	return agentexport.Shim(context.Background(), a, *ev, fs.Arg(0), stdin, stdout, stderr)
}

// approveHook is `wavehooks hooks approve ID`: the user says a hook that
// drifted into their own settings is theirs (settings.ApproveHooks). It is
// reported no more, and with driftRequiresApproval it runs from now on.
func approveHook(h *settings.Hook, waveHome string, stdout, stderr io.Writer) int {
	if !settings.DriftWatched(h.Source) {
		fmt.Fprintf(stderr, "wavehooks hooks approve: %s is a %s hook; only the hooks of your own settings (%s) are approved here\n",
			settings.HookID(h), h.Source, "~/.wave/settings.json, ~/.claude/settings.json")
		return 1
	}
	if err := settings.ApproveHooks(waveHome, []*settings.Hook{h}); err != nil {
		fmt.Fprintf(stderr, "wavehooks hooks approve: %s\n", safetext.Line(err.Error(), 0))
		return 1
	}
	fmt.Fprintf(stdout, "%s %s: %s in %s is approved as yours\n", settings.HookID(h), h.Event, safetext.Line(h.Display(), 200),
		safetext.Line(h.File, 0))
	return 0
}

func listHooks(cfg *settings.Config, format string, stdout, stderr io.Writer) int {
	if format != "text" && format != "json" {
		fmt.Fprintf(stderr, "wavehooks hooks list: --format must be text or json, not %q\n", format)
		return 2
	}
	list := wire.ListHooks(cfg)
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(list)
		return 0
	}
	for _, l := range list {
		state := "on "
		if !l.Enabled {
			state = "off"
		}
		matcher := l.Matcher
		if matcher == "" {
			matcher = "*"
		}
		var marks string
		if l.Managed {
			marks += "  [managed: always runs]"
		}
		if l.Drift != "" {
			marks += "  [" + l.Drift + " outside wavehooks: `wavehooks hooks approve " + l.ID + "`]"
		}
		// Everything a repository wrote is escaped: one hook, one line.
		fmt.Fprintf(stdout, "%s  %s  %-7s %-18s %-12s %s  (%s:%d)%s\n", l.ID, state, l.Source, l.Event,
			safetext.Line(matcher, 40), safetext.Line(l.Command, 120), safetext.Line(l.File, 0), l.Line, marks)
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "no hooks configured")
	}
	return 0
}
