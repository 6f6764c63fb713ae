package doctor

import (
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// summarise reads the user's settings as `wavehooks lint` does and counts
// what a user checks first: which files hold hooks, how many per event, and
// lint's errors and warnings (a hook that can never run fires nowhere).
func summarise(p settings.Paths) Config {
	cfg := settings.Load(p, nil)
	c := Config{Files: []string{}, Events: map[string]int{}, Diagnostics: []string{}}
	for _, f := range cfg.Files {
		if f.Exists {
			c.Files = append(c.Files, f.Path)
		}
	}
	c.Hooks = len(cfg.Hooks)
	for _, h := range cfg.Hooks {
		c.Events[string(h.Event)]++
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
