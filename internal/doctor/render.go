package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wavehooks/wavehooks/internal/safetext"
)

// WriteText prints the report for a person: one line per path (its status,
// name and where it was found), what the probe saw and the fix indented
// below, then the configuration's summary.
func WriteText(w io.Writer, r Report) {
	for _, p := range r.Paths {
		line := fmt.Sprintf("%-14s %s", p.Status.Text(), p.Name)
		if p.Where != "" {
			line += " (" + p.Where + ")"
		}
		fmt.Fprintln(w, safetext.Line(line, 0))
		if p.Detail != "" {
			fmt.Fprintln(w, "               "+safetext.Line(p.Detail, 0))
		}
		if p.Fix != "" {
			for i, l := range strings.Split(p.Fix, "\n") {
				lead := "    fix: "
				if i > 0 {
					lead = "         "
				}
				fmt.Fprintln(w, lead+safetext.Line(l, 0))
			}
		}
	}
	c := r.Config
	events := make([]string, 0, len(c.Events))
	for e, n := range c.Events {
		events = append(events, fmt.Sprintf("%s %d", e, n))
	}
	sort.Strings(events)
	fmt.Fprintf(w, "\nyour hooks: %d in %d settings file(s)", c.Hooks, len(c.Files))
	if len(events) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(events, ", "))
	}
	fmt.Fprintf(w, ", %d active; lint: %d error(s), %d warning(s)\n", c.Active, c.Errors, c.Warnings)
	for _, f := range c.Files {
		fmt.Fprintln(w, "  "+safetext.Line(f, 0))
	}
	for _, h := range c.Inactive {
		fmt.Fprintln(w, "  never runs: "+h)
	}
	for _, d := range c.Diagnostics {
		fmt.Fprintln(w, "  "+d)
	}
	if r.OK {
		fmt.Fprintln(w, "every path found fires")
	} else {
		fmt.Fprintln(w, "not every path found fires (or lint found errors): see above")
	}
}

// WriteJSON prints the report as `--format json` does: the Report type's
// shape, indented (docs/hooks.md documents it; testdata/doctor.golden.json
// holds it).
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
