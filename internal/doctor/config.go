package doctor

import (
	"fmt"

	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// summarise reads the user's settings as `wavehooks lint` does and counts
// what a user checks first: which files hold hooks, how many per event, and
// lint's errors and warnings (a hook that can never run fires nowhere).
func summarise(p settings.Paths) Config {
	cfg := settings.Load(p, nil)
	c := Config{Files: []string{}, Events: map[string]int{}, Inactive: []string{}, Diagnostics: []string{}}
	for _, f := range cfg.Files {
		if f.Exists {
			c.Files = append(c.Files, f.Path)
		}
	}
	c.Hooks = len(cfg.Hooks)
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		c.Events[string(h.Event)]++
		if ok, why := cfg.Active(h); ok {
			c.Active++
		} else {
			what := h.Command
			if what == "" {
				what = h.Type
			}
			c.Inactive = append(c.Inactive, safetext.Line(fmt.Sprintf("%s hook `%s` in %s: %s", h.Event, what, h.File, why), 300))
		}
	}
	for _, d := range cfg.Diagnostics() {
		switch d.Severity {
		case settings.SeverityError:
			c.Errors++
		case settings.SeverityWarning:
			c.Warnings++
		default:
			continue
		}
		c.Diagnostics = append(c.Diagnostics, safetext.Line(d.String(), 0))
	}
	return c
}
