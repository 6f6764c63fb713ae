package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/wavehooks/wavehooks/internal/agentexport"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// lint prints every configuration diagnostic and exits 1 if any is an error,
// so it can guard a pre-commit hook or a CI job.
func lint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	format := fs.String("format", "text", "text or json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "wavehooks lint: --format must be text or json, not %q\n", *format)
		return 2
	}
	paths, err := c.paths()
	if err != nil {
		fmt.Fprintln(stderr, "wavehooks lint:", safetext.Line(err.Error(), 0))
		return 2
	}
	cfg := settings.Load(paths, nil)
	diags := sortedByPlace(cfg.Diagnostics())
	diags = append(diags, exportDrift(paths)...)
	errors, warnings := 0, 0
	for _, d := range diags {
		switch d.Severity {
		case settings.SeverityError:
			errors++
		case settings.SeverityWarning:
			warnings++
		}
	}
	if *format == "json" {
		if diags == nil {
			diags = []settings.Diagnostic{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(diags)
	} else {
		for _, d := range diags {
			fmt.Fprintln(stdout, safetext.Line(d.String(), 0)) // messages quote the file's own text
		}
		files := 0
		for _, f := range cfg.Files {
			if f.Exists {
				files++
			}
		}
		managed := 0
		for i := range cfg.Hooks {
			if cfg.Hooks[i].Source == settings.SourceManaged {
				managed++
			}
		}
		ofThem := ""
		if managed > 0 {
			ofThem = fmt.Sprintf(" (%d managed)", managed)
		}
		fmt.Fprintf(stderr, "%d settings file(s), %d hook(s)%s, %d error(s), %d warning(s)\n",
			files, len(cfg.Hooks), ofThem, errors, warnings)
	}
	// The drift just printed is reported: the next look shows it no more.
	if err := cfg.MarkDriftReported(); err != nil {
		fmt.Fprintln(stderr, "wavehooks lint: the drift record could not be written:", safetext.Line(err.Error(), 0))
	}
	if errors > 0 {
		return 1
	}
	return 0
}

// exportDrift reports, as warnings, every agent file `wavehooks hooks
// export` wrote that has drifted from its source since (agentexport.Drift).
func exportDrift(paths settings.Paths) []settings.Diagnostic {
	shim, _ := os.Executable()
	hooks := userHooks(paths)
	drift, err := agentexport.Drift(paths.WaveHome, func(to string) agentexport.Entries {
		e, _ := agentexport.Build(to, hooks, shim)
		return e
	})
	if err != nil {
		return []settings.Diagnostic{{Severity: settings.SeverityWarning, Code: "export-drift", Message: "cannot read the record of exports: " + err.Error()}}
	}
	var out []settings.Diagnostic
	for _, d := range drift {
		file, msg, _ := strings.Cut(d, ": ")
		out = append(out, settings.Diagnostic{File: file, Severity: settings.SeverityWarning, Code: "export-drift", Message: msg})
	}
	return out
}

// sortedByPlace orders diagnostics by file (in the order the files are
// read) and then by line and column, as a compiler prints them: checks that
// see the whole file (a hook shadowed by an identical one) report after the
// others, and would otherwise come out of line order.
func sortedByPlace(diags []settings.Diagnostic) []settings.Diagnostic {
	fileOrder := map[string]int{}
	for _, d := range diags {
		if _, ok := fileOrder[d.File]; !ok {
			fileOrder[d.File] = len(fileOrder)
		}
	}
	slices.SortStableFunc(diags, func(a, b settings.Diagnostic) int {
		return cmp.Or(cmp.Compare(fileOrder[a.File], fileOrder[b.File]),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Column, b.Range.Start.Column))
	})
	return diags
}
