package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// LaterAnswer is what hooks answer to Claude Code's later events beyond the
// fields every event shares (docs/parity.md, "Claude Code's later events"):
// one hook's answer, the combined Result's and the session's Outcome's.
type LaterAnswer struct {
	// Retry: a PermissionDenied hook said the model may retry the call.
	Retry bool
	// Action and Content answer an Elicitation (or override an
	// ElicitationResult): accept (with Content, the form's values), decline
	// or cancel; "" when no hook answered.
	Action  string
	Content json.RawMessage
	// DisplayContent is the text MessageDisplay shows instead of the delta;
	// nil when no hook replaced it.
	DisplayContent *string
	// WorktreePath is where a WorktreeCreate hook created the worktree.
	WorktreePath string
	// WatchPaths are the files a SessionStart, CwdChanged or FileChanged
	// hook asked FileChanged to watch; nil when no hook returned a list.
	WatchPaths []string
	// InitialUserMessage, SessionTitle and ReloadSkills are what SessionStart
	// hooks ask of the agent host (docs/parity.md): a first user turn the
	// host sends as a prompt, the session's title (as /rename sets it), and
	// a re-scan of its skills and commands before the first prompt.
	// UserPromptSubmit hooks may set the SessionTitle too.
	InitialUserMessage string
	SessionTitle       string
	ReloadSkills       bool

	// SuppressOriginalPrompt: a UserPromptSubmit or UserPromptExpansion
	// hook asked that the block message leave the prompt's text out.
	SuppressOriginalPrompt bool
	// UpdatedPrompt is the prompt a UserPromptSubmit hook rewrote
	// (hookSpecificOutput.updatedPrompt, wavehooks' own extension: Claude
	// Code has no such field): what the model sees instead of what the user
	// typed; "" when no hook rewrote it. A block beats it.
	UpdatedPrompt string
	// ClassifierContext is what PostToolUse hooks noted about the call's
	// result for the auto mode classifier, not for the model.
	ClassifierContext string
	// PermissionDisplay is what a PreToolUse hook asked the permission
	// prompt to show (any JSON value, the host's to render); nil when none.
	PermissionDisplay json.RawMessage
	// TerminalSequences are the allowlisted escape sequences hooks asked
	// the host to write to its terminal (terminalseq.go), in order.
	TerminalSequences []string
}

// Parts names what the answer says, for the run history.
func (a *LaterAnswer) Parts() []string {
	var parts []string
	if a.Retry {
		parts = append(parts, "retry")
	}
	if a.Action != "" {
		parts = append(parts, "action: "+a.Action)
	}
	if a.DisplayContent != nil {
		parts = append(parts, "display replaced")
	}
	if a.WorktreePath != "" {
		parts = append(parts, "worktree: "+a.WorktreePath)
	}
	if a.WatchPaths != nil {
		parts = append(parts, fmt.Sprintf("%d watch path(s)", len(a.WatchPaths)))
	}
	if a.InitialUserMessage != "" {
		parts = append(parts, "initial user message")
	}
	if a.SessionTitle != "" {
		parts = append(parts, "title: "+a.SessionTitle)
	}
	if a.ReloadSkills {
		parts = append(parts, "reload skills")
	}
	if a.SuppressOriginalPrompt {
		parts = append(parts, "suppress original prompt")
	}
	if a.UpdatedPrompt != "" {
		parts = append(parts, "updatedPrompt")
	}
	if a.ClassifierContext != "" {
		parts = append(parts, "classifier context")
	}
	if a.PermissionDisplay != nil {
		parts = append(parts, "permission display")
	}
	if len(a.TerminalSequences) > 0 {
		parts = append(parts, "terminal sequence")
	}
	return parts
}

// eventAnswer is one hook's LaterAnswer, with the fields it gave to an
// event that does not read them.
type eventAnswer struct {
	LaterAnswer
	ignored []string
}

// readEventAnswer reads the fields of hookSpecificOutput that only Claude
// Code's later events read. A field another event does not read is noted
// in the run's decision, not rejected: the rest of the answer still counts.
func readEventAnswer(ev event.Event, v *verdict, hs *hookSpecificJSON) []string {
	var probs []string
	a := &v.answer
	ignore := func(field string) { a.ignored = append(a.ignored, field) }
	if hs.Retry != nil {
		if ev.Reads("retry") {
			a.Retry = *hs.Retry
		} else {
			ignore("retry")
		}
	}
	if hs.Action != nil {
		switch act := *hs.Action; {
		case !ev.Reads("action"):
			ignore("action")
		case act == "accept" || act == "decline" || act == "cancel":
			a.Action = act
		default:
			probs = append(probs, fmt.Sprintf(`action must be "accept", "decline" or "cancel", not %q`, act))
		}
	}
	if c := event.BytesTrim(hs.Content); len(c) > 0 && string(c) != "null" {
		switch {
		case !ev.Reads("content"):
			ignore("content")
		case c[0] != '{':
			probs = append(probs, "content must be an object of form field values")
		default:
			a.Content = compactJSON(c)
		}
	}
	if hs.DisplayContent != nil {
		if ev.Reads("displayContent") {
			a.DisplayContent = hs.DisplayContent
		} else {
			ignore("displayContent")
		}
	}
	if hs.WorktreePath != nil {
		if ev.Reads("worktreePath") {
			a.WorktreePath = *hs.WorktreePath
		} else {
			ignore("worktreePath")
		}
	}
	if w := event.BytesTrim(hs.WatchPaths); len(w) > 0 && string(w) != "null" {
		if ev.Reads("watchPaths") {
			paths, problem, note := readWatchPaths(w)
			if problem != "" {
				probs = append(probs, problem)
			}
			if note != "" {
				v.notes = append(v.notes, note)
			}
			a.WatchPaths = paths
		} else {
			ignore("watchPaths")
		}
	}
	readSessionStart(ev, a, hs, ignore)
	readPromptAndToolAnswers(ev, a, hs, ignore)
	if hs.UpdatedPrompt != nil {
		switch {
		case !ev.Reads("updatedPrompt"):
			ignore("updatedPrompt")
		case strings.TrimSpace(*hs.UpdatedPrompt) == "":
			probs = append(probs, `updatedPrompt must not be empty (to stop the prompt, answer decision "block" with a reason)`)
		default:
			a.UpdatedPrompt = *hs.UpdatedPrompt
		}
	}
	return probs
}

// readPromptAndToolAnswers reads suppressOriginalPrompt (UserPromptSubmit,
// UserPromptExpansion), classifierContext (PostToolUse) and
// permissionDisplay (PreToolUse).
func readPromptAndToolAnswers(ev event.Event, a *eventAnswer, hs *hookSpecificJSON, ignore func(string)) {
	if hs.SuppressOriginalPrompt != nil {
		if ev.Reads("suppressOriginalPrompt") {
			a.SuppressOriginalPrompt = *hs.SuppressOriginalPrompt
		} else {
			ignore("suppressOriginalPrompt")
		}
	}
	if hs.ClassifierContext != nil {
		if ev.Reads("classifierContext") {
			a.ClassifierContext = capText(*hs.ClassifierContext)
		} else {
			ignore("classifierContext")
		}
	}
	if d := jsonValue(hs.PermissionDisplay); d != nil {
		if ev.Reads("permissionDisplay") {
			a.PermissionDisplay = d
		} else {
			ignore("permissionDisplay")
		}
	}
}

// readTerminalSequence takes a hook's terminalSequence when it is made of
// allowlisted sequences only; otherwise the field is ignored, as Claude
// Code ignores it, and a note says why.
func readTerminalSequence(v *verdict, seq *string) {
	if seq == nil {
		return
	}
	if why := checkTerminalSequence(*seq); why != "" {
		v.notes = append(v.notes, "terminalSequence ignored: "+why+" (allowed: OSC 0, 1, 2, 9, 99, 777 ended by BEL or ST, and BEL)")
		return
	}
	v.answer.TerminalSequences = []string{*seq}
}

// MaxWatchPaths caps the files one event's hooks may ask FileChanged to
// watch (hookSpecificOutput.watchPaths, all hooks together): each is a
// watch the server keeps and an entry the editor is asked to register.
// Past it the first MaxWatchPaths are watched and the run says the rest
// were not (docs/protocol-limits.md, "watchPaths").
const MaxWatchPaths = 10_000

// readWatchPaths reads watchPaths: absolute paths, cleaned, without
// repeats. problem rejects the answer (a relative path); past
// MaxWatchPaths the first are kept and note warns of the rest, the answer
// still counts. One pass with a set: 28,000 paths used to take seconds of
// pairwise compares.
func readWatchPaths(raw json.RawMessage) (paths []string, problem, note string) {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, "watchPaths must be an array of absolute paths", ""
	}
	for _, p := range list {
		if !filepath.IsAbs(p) {
			return nil, fmt.Sprintf("watchPaths must be absolute paths, not %q", p), ""
		}
	}
	out := []string{}
	seen := make(map[string]bool, min(len(list), MaxWatchPaths))
	for _, p := range list {
		if p = filepath.Clean(p); !seen[p] {
			if len(out) == MaxWatchPaths {
				return out, "", fmt.Sprintf("watchPaths lists more than %d paths: only the first %d are watched", MaxWatchPaths, MaxWatchPaths)
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, "", ""
}

// mergeWatchPaths adds the paths of add that dst lacks, keeping order and
// at most MaxWatchPaths; false when some were left out.
func mergeWatchPaths(dst, add []string) ([]string, bool) {
	seen := make(map[string]bool, len(dst))
	for _, p := range dst {
		seen[p] = true
	}
	for _, p := range add {
		if seen[p] {
			continue
		}
		if len(dst) >= MaxWatchPaths {
			return dst, false
		}
		seen[p] = true
		dst = append(dst, p)
	}
	return dst, true
}

// interpretEvent reads one hook's result for its event: interpret's
// reading, then what Claude Code does differently for its later events —
// fields an event discards, failures it does not show, WorktreeCreate's
// path on stdout.
func interpretEvent(ev event.Event, h *settings.Hook, x proc.Exec) verdict {
	if ev == event.WorktreeCreate {
		return worktreeVerdict(h, x)
	}
	v := interpret(ev, h, x)
	if said := v.answer.Parts(); v.json && len(said) > 0 {
		if v.summary == "json: no decision" {
			v.summary = "json: " + strings.Join(said, ", ")
		} else {
			v.summary += ", " + strings.Join(said, ", ")
		}
	}
	if len(v.answer.ignored) > 0 {
		v.summary += fmt.Sprintf("; ignored %s: %s does not read it", strings.Join(v.answer.ignored, ", "), ev)
	}
	ran := x.StartErr == "" && !x.TimedOut && !x.Cancelled
	switch ev {
	case event.UserPromptExpansion:
		// Plain stdout is context, as for UserPromptSubmit.
		if out := strings.TrimSpace(x.Stdout); ran && x.ExitCode == 0 && !v.json && out != "" {
			v.context, v.summary = out, "exit 0: stdout becomes context"
		}
	case event.TaskCompleted, event.TeammateIdle:
		if v.json && v.block {
			v.block, v.reason = false, ""
			v.summary += fmt.Sprintf(`; decision "block" ignored: %s is refused with exit 2`, ev)
		}
	case event.DirectoryAdded:
		// systemMessage is context for the model on the next turn when the
		// user added the directory (source slash_command); the session
		// decides by the source, so it is carried as context here.
		v.addContext, v.systemMessage = v.systemMessage, ""
	}
	if ev.Discards("continue") {
		v = drop(v, ev, "continue", v.stop)
	}
	if ev.Discards("systemMessage") {
		v = drop(v, ev, "systemMessage", v.systemMessage != "")
	}
	spec, _ := event.Spec(ev)
	if spec.Quiet {
		if v.err != "" {
			v.summary += "; not shown (" + string(ev) + " failures are only recorded here): " + v.err
			v.err = ""
		}
		if len(v.problems) > 0 {
			v.summary += "; answer not read: " + strings.Join(v.problems, "; ")
			v.problems = nil
		}
	}
	if spec.DiscardsOutput {
		summary := v.summary
		if x.Stdout != "" {
			summary += fmt.Sprintf("; output discarded: %s ignores what its hooks print", ev)
		}
		// terminalSequence is a side effect Claude Code still performs.
		v = verdict{json: v.json, summary: summary, answer: eventAnswer{LaterAnswer: LaterAnswer{TerminalSequences: v.answer.TerminalSequences}}}
	}
	return v
}

// drop removes a field the event discards from v and says so in its summary.
func drop(v verdict, ev event.Event, field string, present bool) verdict {
	if !present {
		return v
	}
	switch field {
	case "continue":
		v.stop, v.stopReason = false, ""
	case "systemMessage":
		v.systemMessage = ""
	}
	v.summary += fmt.Sprintf("; %s ignored: %s discards it", field, ev)
	return v
}

// ansiRE matches terminal escape sequences (CSI and OSC), which Claude Code
// strips before it reads WorktreeCreate's path.
var ansiRE = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(\x07|\x1b\\\\)")

// worktreeVerdict reads a WorktreeCreate hook: any failure fails the
// creation, and success must name the worktree, as the last non-empty line
// of stdout (or, as an http hook answers, hookSpecificOutput.worktreePath).
// A relative path is relative to the directory the hook ran in; it is made
// absolute, and checked, by ResolveWorktreePath.
func worktreeVerdict(h *settings.Hook, x proc.Exec) verdict {
	fail := func(reason, summary string) verdict {
		return verdict{block: true, reason: reason, summary: summary}
	}
	switch {
	case x.StartErr != "":
		return fail(fmt.Sprintf("WorktreeCreate hook `%s` could not start: %s", h.Display(), x.StartErr), "could not start: creation fails")
	case x.TimedOut:
		return fail(fmt.Sprintf("WorktreeCreate hook `%s` timed out after %s", h.Display(), settings.Seconds(h.Timeout)), "timed out: creation fails")
	case x.Cancelled:
		return fail(fmt.Sprintf("WorktreeCreate hook `%s` was cancelled", h.Display()), "cancelled: creation fails")
	case x.ExitCode != 0:
		reason := strings.TrimSpace(x.Stderr)
		if reason == "" {
			reason = fmt.Sprintf("WorktreeCreate hook `%s` failed with exit code %d", h.Display(), x.ExitCode)
		}
		v := fail(reason, fmt.Sprintf("exit %d: creation fails", x.ExitCode))
		if x.ExitCode == 2 && strings.HasPrefix(strings.TrimSpace(x.Stdout), "{") {
			v = ignoreStdout(v, h)
		}
		return v
	}
	path := ""
	if out := strings.TrimSpace(x.Stdout); strings.HasPrefix(out, "{") {
		if jv, probs := interpretJSON(event.WorktreeCreate, []byte(out)); probs == nil {
			path = jv.answer.WorktreePath
		}
	}
	if path == "" {
		lines := strings.Split(ansiRE.ReplaceAllString(x.Stdout, ""), "\n")
		for i := len(lines) - 1; i >= 0 && path == ""; i-- {
			path = strings.TrimSpace(lines[i])
		}
	}
	switch {
	case path == "":
		return fail(fmt.Sprintf("WorktreeCreate hook `%s` printed no worktree path on stdout", h.Display()), "exit 0 without a path: creation fails")
	case filepath.IsAbs(path) && hasDotSegment(path):
		return fail(fmt.Sprintf("WorktreeCreate hook `%s` printed %q: an absolute path may not contain . or .. segments", h.Display(), path),
			"path refused: creation fails")
	case !filepath.IsAbs(path) && h.Cwd != "":
		path = filepath.Join(h.Cwd, path)
	}
	return verdict{answer: eventAnswer{LaterAnswer: LaterAnswer{WorktreePath: path}}, summary: "worktree path: " + path}
}

func hasDotSegment(p string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// readSessionStart reads what a SessionStart hook asks of the agent host
// (and the sessionTitle a UserPromptSubmit hook may give too).
func readSessionStart(ev event.Event, a *eventAnswer, hs *hookSpecificJSON, ignore func(string)) {
	if hs.InitialUserMessage != nil {
		if ev.Reads("initialUserMessage") {
			a.InitialUserMessage = *hs.InitialUserMessage
		} else {
			ignore("initialUserMessage")
		}
	}
	if hs.SessionTitle != nil {
		if ev.Reads("sessionTitle") {
			a.SessionTitle = *hs.SessionTitle
		} else {
			ignore("sessionTitle")
		}
	}
	if hs.ReloadSkills != nil {
		if ev.Reads("reloadSkills") {
			a.ReloadSkills = *hs.ReloadSkills
		} else {
			ignore("reloadSkills")
		}
	}
}

// combineAnswers merges what the hooks of one of Claude Code's later events
// (and SessionStart's requests of the host) said, in configuration order:
// any retry or reloadSkills counts; for the action and its content, the
// displayed text, the worktree path, the initial user message and the
// session title the last hook that gave one wins (a conflict adds a
// warning); watch paths are joined. A block
// declines an elicitation and fails a worktree creation.
func combineAnswers(res *Result, vs []verdict) {
	conflict := func(what string) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("several %s hooks answered %s differently; the last one in configuration order was used", res.Event, what))
	}
	// lastWins sets *got to a hook's non-empty text, noting a conflict.
	lastWins := func(what string, got *string, give string) {
		if give == "" {
			return
		}
		if *got != "" && *got != give {
			conflict(what)
		}
		*got = give
	}
	for i := range vs {
		a := &vs[i].answer
		res.Retry = res.Retry || a.Retry
		if a.Action != "" {
			if res.Action != "" && (res.Action != a.Action || string(res.Content) != string(a.Content)) {
				conflict("the elicitation")
			}
			res.Action, res.Content = a.Action, a.Content
		}
		if a.DisplayContent != nil {
			if res.DisplayContent != nil && *res.DisplayContent != *a.DisplayContent {
				conflict("the text to display")
			}
			res.DisplayContent = a.DisplayContent
		}
		lastWins("the worktree path", &res.WorktreePath, a.WorktreePath)
		lastWins("the initial user message", &res.InitialUserMessage, a.InitialUserMessage)
		lastWins("the session title", &res.SessionTitle, a.SessionTitle)
		lastWins("the rewritten prompt", &res.UpdatedPrompt, a.UpdatedPrompt)
		res.ReloadSkills = res.ReloadSkills || a.ReloadSkills
		res.SuppressOriginalPrompt = res.SuppressOriginalPrompt || a.SuppressOriginalPrompt
		if a.ClassifierContext != "" {
			// Notes about one call: every hook's counts, as additionalContext.
			if res.ClassifierContext != "" {
				res.ClassifierContext += "\n"
			}
			res.ClassifierContext += a.ClassifierContext
		}
		if a.PermissionDisplay != nil {
			if res.PermissionDisplay != nil && !bytes.Equal(res.PermissionDisplay, a.PermissionDisplay) {
				conflict("the permission display")
			}
			res.PermissionDisplay = a.PermissionDisplay
		}
		for _, seq := range a.TerminalSequences {
			if !slices.Contains(res.TerminalSequences, seq) {
				res.TerminalSequences = append(res.TerminalSequences, seq)
			}
		}
		if a.WatchPaths != nil {
			if res.WatchPaths == nil {
				res.WatchPaths = []string{}
			}
			var all bool
			if res.WatchPaths, all = mergeWatchPaths(res.WatchPaths, a.WatchPaths); !all {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the hooks' watchPaths list more than %d paths together: only the first %d are watched", MaxWatchPaths, MaxWatchPaths))
			}
		}
	}
	if res.Action != "accept" {
		res.Content = nil
	}
	if !res.Blocked {
		return
	}
	switch res.Event {
	case event.UserPromptExpansion:
		// A blocked expansion never reaches the model, nor context for it.
		res.Context, res.AdditionalContext = nil, nil
	case event.Elicitation, event.ElicitationResult:
		res.Action, res.Content = "decline", nil
	case event.WorktreeCreate:
		res.WorktreePath = ""
	}
}
