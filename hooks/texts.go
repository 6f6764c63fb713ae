package hooks

import "github.com/wavehooks/wavehooks/internal/event"

// denyWithoutReason is the reason of a JSON deny that gives none: Claude
// Code's words for PreToolUse ("Blocked by hook", measured with 2.1.330),
// which the model then reads as the tool's result.
func denyWithoutReason(ev event.Event) string {
	if ev == event.PreToolUse {
		return "Blocked by hook"
	}
	return "denied by a " + string(ev) + " hook"
}
