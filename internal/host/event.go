package host

import (
	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/session"
)

// Report is what an event leaves once its hooks ran, the rules applied
// their answer and the adapter acted on it: the run recorded in the
// history (Recorded is false when no hook was configured for the event)
// and what the user must be shown.
type Report struct {
	Run      hooks.EventRun
	Recorded bool
	Notices  []Notice
}

// Notice is something hooks said that the user must see, whatever the
// adapter's channel to the user's eyes (an LSP message, an ACP message chunk).
type Notice struct {
	Level Level
	Text  string
}

// Level is how serious a notice is.
type Level string

// The levels of a notice: a hook's warn block and its error block.
const (
	Warning Level = "warning"
	Error   Level = "error"
)

// Finish ends one event in every host the same way: the run is recorded
// with note (what the adapter did with the answer; "" for nothing more than
// the hooks said) and the blocks the user must see are picked out.
func (h *Host) Finish(sessionID, matchValue string, out *session.Outcome, note string) Report {
	run, ok := h.Record(sessionID, matchValue, &out.Result, note)
	return Report{Run: run, Recorded: ok, Notices: Notices(out.Blocks)}
}

// Notices are the warn and error blocks among blocks, in order: what hooks
// said for the user (a warn exit, a systemMessage, a failed hook).
func Notices(blocks []session.Block) []Notice {
	var out []Notice
	for _, b := range blocks {
		switch b.Type {
		case session.BlockWarn:
			out = append(out, Notice{Level: Warning, Text: b.Content})
		case session.BlockError:
			out = append(out, Notice{Level: Error, Text: b.Content})
		}
	}
	return out
}

// AskedNote is how an ask ended, for the run history: the hooks said "ask",
// and "why did my tool not run?" is answered by what came of it.
func AskedNote(out session.Outcome) string {
	if !out.Asked {
		return ""
	}
	if out.Permission == string(hooks.PermissionAllow) {
		return "asked: allowed"
	}
	return "asked: denied (by the user, or no answer in time)"
}
