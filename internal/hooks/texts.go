package hooks

// denyWithoutReason is the reason of a JSON deny that gives none: Claude
// Code's words for PreToolUse ("Blocked by hook", measured with 2.1.330),
// which the model then reads as the tool's result.
func denyWithoutReason(ev Event) string {
	if ev == PreToolUse {
		return "Blocked by hook"
	}
	return "denied by a " + string(ev) + " hook"
}
