package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// Status is what the doctor found of one path: whether a hook fired there.
type Status string

// The statuses, as the JSON report spells them; the text report prints
// them upper-case with spaces (Status.Text).
const (
	// Fires: the probe event reached the probe hook, which wrote its marker.
	Fires Status = "fires"
	// DoesNotFire: the path was probed and no hook ran, or the path is known
	// to skip hooks (Claude Code's VS Code extension).
	DoesNotFire Status = "does-not-fire"
	// NotProbed: the path is there but cannot be probed offline; the doctor
	// never claims it fires.
	NotProbed Status = "not-probed"
	// NotFound: nothing of this path is installed or configured.
	NotFound Status = "not-found"
)

// Text is the status as the text report prints it: FIRES, DOES NOT FIRE, …
func (s Status) Text() string {
	return strings.ToUpper(strings.ReplaceAll(string(s), "-", " "))
}

// Path is one place the user runs an agent, and what its probe found.
type Path struct {
	// ID names the path for scripts: claude-cli, claude-vscode, claude-agent-acp,
	// codex-acp, codex, gemini, zed:<entry>, jetbrains:<entry>, wavehooks-vscode,
	// wavehooks-nvim.
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Where is what was found: a binary, an extension directory, a
	// settings file (with ~ for the home directory).
	Where string `json:"where,omitempty"`
	// Detail says what the probe did and saw, or why it did not run.
	Detail string `json:"detail,omitempty"`
	// Fix is what to do when the path does not fire (may span lines).
	Fix string `json:"fix,omitempty"`
}

// Config is the summary of the user's own hook configuration, read by
// lint's engine (settings.Load).
type Config struct {
	Files  []string       `json:"files"` // the settings files that exist, in load order
	Hooks  int            `json:"hooks"`
	Events map[string]int `json:"events"` // hooks per event
	// Active counts the hooks that take part in events; Inactive says of
	// each other one which it is and why it never runs ("enabled": false,
	// disableAllHooks, allowManagedHooksOnly): a probe that fires does not
	// make these run.
	Active      int      `json:"active"`
	Inactive    []string `json:"inactive"`
	Errors      int      `json:"errors"`
	Warnings    int      `json:"warnings"`
	Diagnostics []string `json:"diagnostics"` // errors and warnings, as lint prints them
}

// Report is everything the doctor found; its JSON is `wavehooks doctor
// --format json` (docs/hooks.md, testdata/doctor.golden.json).
type Report struct {
	Paths  []Path `json:"paths"`
	Config Config `json:"config"`
	// OK: every path found fires and the configuration has no error; the
	// command's exit code is 0 exactly then.
	OK bool `json:"ok"`
}

// Options say where to look and what to run. Every field has a default
// from the environment (Defaults); tests set them to a fake home.
type Options struct {
	// Home is the user's home directory: where editors keep their settings
	// and extensions. Never written.
	Home string
	// PATH is the search path agents are looked up in.
	PATH string
	// Self is the wavehooks binary the probes of `wavehooks acp` and
	// `wavehooks serve` run when no other one is configured.
	Self string
	// Settings are the user's settings files, summarised (not probed).
	Settings settings.Paths
	// Timeout bounds each probe, agent start-up included.
	Timeout time.Duration
}

// Defaults fills what o leaves empty from this process's environment.
func (o Options) Defaults() Options {
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.PATH == "" {
		o.PATH = os.Getenv("PATH")
	}
	if o.Self == "" {
		o.Self, _ = os.Executable()
	}
	if o.Timeout == 0 {
		o.Timeout = 90 * time.Second
	}
	return o
}

// Run finds every path, probes each one it can, and summarises the
// configuration. Probes run one after another: each starts an agent, and
// the user's machine is not a test farm.
func Run(ctx context.Context, o Options) Report {
	o = o.Defaults()
	var r Report
	for _, p := range findPaths(o) {
		r.Paths = append(r.Paths, p.probe(ctx, o))
	}
	r.Config = summarise(o.Settings)
	r.OK = r.Config.Errors == 0
	for i := range r.Paths {
		if r.Paths[i].Status != Fires && r.Paths[i].Status != NotFound {
			r.OK = false
		}
		r.Paths[i].Where = tilde(o.Home, r.Paths[i].Where)
	}
	for i, f := range r.Config.Files {
		r.Config.Files[i] = tilde(o.Home, f)
	}
	return r
}

// tilde writes a path under home as ~/…, as the user knows it.
func tilde(home, p string) string {
	if home == "" || p == "" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~/" + filepath.ToSlash(rest)
	}
	return p
}
