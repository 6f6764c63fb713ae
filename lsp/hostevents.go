package lsp

import (
	"fmt"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// serverFired reports whether the server fires ev itself, whatever the
// host sends: settings changes, watched files and workspace folders
// (event.EventSpec.ServerFired).
func serverFired(ev event.Event) bool {
	s, _ := event.Spec(ev)
	return s.ServerFired
}

// hostEventSet reads initializationOptions.hostEvents, the events the
// agent host says it fires: nil when the host does not say (then no hook
// is flagged), else the set of known events it names. A name this server
// does not know (a newer host's event) is left out, not refused.
func hostEventSet(names []string) map[event.Event]bool {
	if names == nil {
		return nil
	}
	set := map[event.Event]bool{}
	for _, n := range names {
		if _, ok := event.Spec(event.Event(n)); ok {
			set[event.Event(n)] = true
		}
	}
	return set
}

// CodeEventNotSent is a hook on an event the agent host said (in
// initializationOptions.hostEvents) it never fires: it never runs there.
const CodeEventNotSent = "event-not-sent"

// explainHostEvents adds a warning to each hook of cfg whose event the
// host never fires and the server does not fire itself, so that a hook
// written for another agent does not wait in vain (UserPromptSubmit in a
// host that does not report prompts).
func (s *Server) explainHostEvents(cfg *settings.Config) {
	if s.hostEvents == nil {
		return
	}
	for i := range cfg.Files {
		f := &cfg.Files[i]
		for j := range f.Hooks {
			h := &f.Hooks[j]
			if s.hostEvents[h.Event] || serverFired(h.Event) {
				continue
			}
			f.Diagnostics = append(f.Diagnostics, settings.Diagnostic{File: f.Path, Range: h.Place.Range, Severity: settings.SeverityWarning,
				Code: CodeEventNotSent, Message: fmt.Sprintf("the agent host never sends %s (it said which events it fires when it started the server): this hook never runs here", h.Event)})
		}
	}
}
