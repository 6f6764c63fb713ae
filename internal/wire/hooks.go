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
	// Why says why a hook is off: its own "enabled": false or its group's,
	// or a drift that waits for approval.
	Why string `json:"why,omitempty"`
	// Managed: the hook comes from a managed (policy) settings file. It
	// always runs, and neither toggle nor `hooks disable` changes it.
	Managed bool `json:"managed,omitempty"`
	// Drift is "added" or "changed" when something other than wavehooks or
	// the user's editor added or changed the hook in the user's own
	// settings and the user has not approved it (settings.Drift).
	Drift string `json:"drift,omitempty"`
}

// ListHooks lists every hook of cfg's settings files, in their order.
func ListHooks(cfg *settings.Config) []HookListing {
	list := []HookListing{}
	drifted := map[string]settings.Drift{}
	for _, d := range cfg.Drift {
		drifted[settings.HookID(&d.Hook)] = d
	}
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		l := HookListing{ID: settings.HookID(h), Enabled: !h.Disabled, Source: h.Source.String(), File: h.File,
			Line: h.Place.Range.Start.Line + 1, Event: string(h.Event), Matcher: h.Matcher.String(), Command: h.Display()}
		l.Managed = h.Source == settings.SourceManaged
		if d, ok := drifted[l.ID]; ok {
			l.Drift = d.Change
		}
		if ok, why := cfg.Active(h); h.Disabled || (!ok && l.Drift != "") {
			l.Why = why
		}
		list = append(list, l)
	}
	return list
}
