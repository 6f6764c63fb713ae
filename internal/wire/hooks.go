package wire

import "github.com/wavehooks/wavehooks/internal/settings"

// HookListing is one configured hook as wave/listHooks answers it and
// `wavehooks hooks list --format json` prints it: the id wave.toggleHook and
// `wavehooks hooks disable|enable` take. One shape for both, so that an id
// read from one works with the other.
type HookListing struct {
	ID      string `json:"id"`
	Enabled bool   `json:"enabled"`
	Source  string `json:"source"`
	File    string `json:"file"`
	// Line is the 1-based line of the hook in its file.
	Line    int    `json:"line"`
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
	// Why says why a hook is off: its own "enabled": false or its group's.
	Why string `json:"why,omitempty"`
}

// ListHooks lists every hook of cfg's settings files, in their order.
func ListHooks(cfg *settings.Config) []HookListing {
	list := []HookListing{}
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		l := HookListing{ID: settings.HookID(h), Enabled: !h.Disabled, Source: h.Source.String(), File: h.File,
			Line: h.Place.Range.Start.Line + 1, Event: string(h.Event), Matcher: h.Matcher.String(), Command: h.Display()}
		if h.Disabled {
			_, l.Why = cfg.Active(h)
		}
		list = append(list, l)
	}
	return list
}
