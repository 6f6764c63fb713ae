package hooks

import (
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"strings"
)

// onFailure is Claude Code's fail-closed option ("onFailure": "block", for
// command, http and mcp_tool hooks): a hook that could not start, could not
// run because no agent host serves its type (an mcp_tool hook under
// `wavehooks run`, the ACP proxy, or an editor that cannot evaluate
// hooks), timed out, exited with a code other than 0 or 2, or printed JSON
// that is invalid or fails validation counts as if it had exited 2, so
// that the action its event guards (a tool call, a permission request, a
// prompt) is blocked rather than let through by a broken guard.

// OnFailureBlocked is what the run history and --explain say of a hook
// that failed with onFailure "block".
const OnFailureBlocked = "blocked because the hook failed (onFailure: block)"

// hookFailure says how a hook failed, in the sense of onFailure, or "" when
// it did not: a cancelled hook (the event was cancelled) and a hook that
// exited 2 did not fail. A hook that no agent host could run failed: a
// guard that cannot run must not let the action through.
func hookFailure(h *settings.Hook, o hookOutcome, v *verdict) string {
	switch {
	case o.Cancelled:
		return ""
	case o.NotRun != "":
		return "it could not run: " + o.NotRun
	case o.StartErr != "":
		return "it could not start: " + o.StartErr
	case o.TimedOut:
		return fmt.Sprintf("it timed out after %s", settings.Seconds(h.Timeout))
	case h.Type == settings.TypeHTTP && (o.HTTPStatus < 200 || o.HTTPStatus > 299):
		return fmt.Sprintf("it answered HTTP %d", o.HTTPStatus)
	case h.Type == settings.TypeHTTP || h.Type == settings.TypeMCPTool:
		// Their answers have no exit code: any error is a failed call
		// or an answer that does not validate.
		if v.err != "" {
			return v.err
		}
	case o.ExitCode != 0 && o.ExitCode != 2:
		return fmt.Sprintf("it exited %d", o.ExitCode)
	}
	switch {
	case v.cut:
		return "its JSON answer was cut at the output cap"
	case len(v.problems) > 0:
		return "its JSON answer does not validate: " + strings.Join(v.problems, "; ")
	}
	return ""
}

// applyOnFailure turns the verdict of a hook with onFailure "block" that
// failed into exit 2's for its event, with the failure as the reason, and
// says so in its summary. Other verdicts are returned as they are.
func applyOnFailure(ev event.Event, h *settings.Hook, o hookOutcome, v verdict) verdict {
	if h.OnFailure != settings.OnFailureBlock || settings.OnFailureNote(ev, h) != "" || ev == event.WorktreeCreate {
		return v // WorktreeCreate: every failure already fails the creation
	}
	how := hookFailure(h, o, &v)
	if how == "" {
		return v
	}
	reason := fmt.Sprintf("%s: hook `%s`: %s", OnFailureBlocked, h.Display(), how)
	b := exit2(ev, h, reason)
	b.summary = v.summary + "; " + OnFailureBlocked
	b.notes, b.problems = v.notes, v.problems
	return b
}
