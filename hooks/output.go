package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// MaxInjectedText caps text a hook injects into the conversation.
const MaxInjectedText = 10000

// verdict is what one hook said, read from its exit code or its JSON.
type verdict struct {
	stop          bool
	stopReason    string
	systemMessage string
	permission    Permission
	reason        string // deny/ask reason or block reason
	// reasonDefaulted: reason is wavehooks' text for a deny the hook gave
	// no reason for, not the hook's own.
	reasonDefaulted bool
	block           bool
	updatedInput    json.RawMessage
	context         string // exit-0 stdout that becomes context
	addContext      string
	err             string   // a non-blocking error for the user
	problems        []string // why the JSON answer was rejected; the exit code decided
	notes           []string // warnings about an answer that was read anyway (ignored keys, ignored stdout)
	cut             bool     // the JSON answer was cut at MaxOutput and the error says so
	json            bool
	summary         string
	ignored         string      // a part of the answer the event has no use for
	answer          eventAnswer // what the answer says to Claude Code's later events (eventanswer.go)

	// updatedOutput and updatedMCPOutput replace a PostToolUse tool's output.
	updatedOutput, updatedMCPOutput json.RawMessage
}

// warnings are the warn blocks a verdict adds: why its JSON was not read,
// what in it was ignored, and its systemMessage.
func (v *verdict) warnings() []string {
	var out []string
	for _, p := range v.problems {
		out = append(out, "hook output ignored: "+p)
	}
	out = append(out, v.notes...)
	if v.systemMessage != "" {
		out = append(out, v.systemMessage)
	}
	return out
}

// hookJSON is the JSON answer a hook may print (docs/hooks.md, "JSON output", plus the fields
// Claude Code accepts at top level). Pointers tell absent from zero values.
type hookJSON struct {
	Continue           *bool           `json:"continue"`
	StopReason         *string         `json:"stopReason"`
	SuppressOutput     *bool           `json:"suppressOutput"`
	SystemMessage      *string         `json:"systemMessage"`
	Decision           *string         `json:"decision"`
	Reason             *string         `json:"reason"`
	HookSpecificOutput json.RawMessage `json:"hookSpecificOutput"`
	// TerminalSequence is an escape sequence for the agent host's terminal
	// (terminalseq.go).
	TerminalSequence *string `json:"terminalSequence"`
}

type hookSpecificJSON struct {
	HookEventName            *string         `json:"hookEventName"`
	PermissionDecision       *string         `json:"permissionDecision"`
	PermissionDecisionReason *string         `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	// Decision is a string ("block") for most events, and an object for
	// PermissionRequest (permissionRequestDecision).
	Decision          json.RawMessage `json:"decision"`
	Reason            *string         `json:"reason"`
	AdditionalContext *string         `json:"additionalContext"`
	// PostToolUse: what the model sees instead of the tool's output.
	UpdatedToolOutput    json.RawMessage `json:"updatedToolOutput"`
	UpdatedMCPToolOutput json.RawMessage `json:"updatedMCPToolOutput"`
	// The fields of Claude Code's later events; eventanswer.go reads them.
	Retry          *bool           `json:"retry"`
	Action         *string         `json:"action"`
	Content        json.RawMessage `json:"content"`
	DisplayContent *string         `json:"displayContent"`
	WorktreePath   *string         `json:"worktreePath"`
	WatchPaths     json.RawMessage `json:"watchPaths"`
	// SessionStart's requests of the agent host (sessionTitle UserPromptSubmit's too).
	InitialUserMessage *string `json:"initialUserMessage"`
	SessionTitle       *string `json:"sessionTitle"`
	ReloadSkills       *bool   `json:"reloadSkills"`
	// UserPromptSubmit, UserPromptExpansion: leave the prompt out of the
	// block message. PostToolUse: a note for the auto mode classifier.
	// PreToolUse: how the host shows the permission prompt.
	SuppressOriginalPrompt *bool `json:"suppressOriginalPrompt"`
	// UpdatedPrompt: UserPromptSubmit's rewritten prompt (wavehooks' own
	// extension, docs/parity.md).
	UpdatedPrompt     *string         `json:"updatedPrompt"`
	ClassifierContext *string         `json:"classifierContext"`
	PermissionDisplay json.RawMessage `json:"permissionDisplay"`
}

// permissionRequestDecision is PermissionRequest's hookSpecificOutput.decision.
type permissionRequestDecision struct {
	Behavior     *string         `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	// UpdatedPermissions (rules to remember) is accepted and ignored: the
	// editor keeps the user's permission rules, not wavehooks.
	UpdatedPermissions json.RawMessage `json:"updatedPermissions"`
	Message            *string         `json:"message"`
	Interrupt          *bool           `json:"interrupt"`
}

// interpret reads one hook's result: exit 2 blocks and its stdout decides
// nothing else (the reason of a JSON answer that blocks is the feedback);
// otherwise its JSON when stdout is a JSON object that validates, and
// its exit code for what the JSON does not say or when it does not validate.
func interpret(ev event.Event, h *settings.Hook, x proc.Exec) verdict {
	if x.StartErr != "" {
		return verdict{err: fmt.Sprintf("hook `%s` could not start: %s", h.Display(), x.StartErr), summary: "could not start"}
	}
	if x.TimedOut {
		return verdict{err: fmt.Sprintf("hook timed out after %s: `%s`", settings.Seconds(h.Timeout), h.Display()), summary: "timed out"}
	}
	if x.Cancelled {
		return verdict{err: fmt.Sprintf("hook `%s` was cancelled", h.Display()), summary: "cancelled"}
	}
	out := strings.TrimSpace(x.Stdout)
	looksJSON := strings.HasPrefix(out, "{")
	if x.ExitCode == 2 {
		// As Claude Code does: a hook that exits 2 blocks, whatever its
		// stdout says, even "allow" (docs/parity.md, "Reading hook answers").
		// Its stdout decides nothing else, but the reason of a JSON answer
		// that itself blocks is the block's feedback, stderr or not.
		if looksJSON && !x.StdoutTruncated {
			if reason, ok := blockingJSONReason(ev, out); ok {
				v := exit2(ev, h, reason)
				v.summary += "; the feedback is the reason of the blocking JSON on stdout"
				return v
			}
		}
		v := exit2(ev, h, strings.TrimSpace(x.Stderr))
		if looksJSON {
			v = ignoreStdout(v, h)
		}
		return v
	}
	if looksJSON && x.StdoutTruncated {
		return cutAnswer(ev, h, x)
	}
	var problems, notes []string
	if looksJSON {
		v, probs := interpretJSON(ev, []byte(out))
		if probs == nil {
			v.json = true
			return v
		}
		problems, notes = probs, v.notes
	}
	v := interpretExit(ev, h, x, out)
	v.problems, v.notes = problems, notes
	return v
}

// cutAnswer is the verdict on a JSON answer longer than MaxOutput: cut, it
// cannot be read, and guessing would let a hook's deny turn into an allow.
// It is an error the user sees; PreToolUse and PermissionRequest deny (fail
// closed), other events go by the exit code as with any unreadable answer.
func cutAnswer(ev event.Event, h *settings.Hook, x proc.Exec) verdict {
	msg := fmt.Sprintf("the JSON answer of hook `%s` is longer than the %d-byte output cap: it was cut and cannot be read", h.Display(), proc.MaxOutput)
	if ev.DecidesPermission() {
		return verdict{permission: PermissionDeny, reason: msg + "; the tool call is denied",
			err: msg + "; the tool call is denied", cut: true, summary: "json cut at the output cap: deny"}
	}
	v := interpretExit(ev, h, x, "")
	if v.err != "" {
		msg += "\n" + v.err
	}
	v.err, v.cut = msg, true
	v.summary = "json cut at the output cap; " + v.summary
	return v
}

// blockingJSONReason is the reason of a hook's JSON answer that itself
// blocks: decision "block", PreToolUse's permissionDecision "deny" or
// PermissionRequest's behavior "deny", with a reason (or message) the hook
// wrote. Claude Code (2.1.330 and 2.1.332, measured: the conformance
// scenarios *-exit2-json) takes it as the feedback of an exit 2 in place
// of stderr; an answer that does not block (allow, ask, a bare "reason"),
// or that does not validate, leaves stderr the feedback.
func blockingJSONReason(ev event.Event, out string) (string, bool) {
	jv, probs := interpretJSON(ev, []byte(out))
	if probs != nil || jv.reason == "" || jv.reasonDefaulted {
		return "", false
	}
	return jv.reason, jv.block || jv.permission == PermissionDeny
}

// ignoreStdout records on v that a hook which exited 2 printed JSON that
// was not read, so that its author learns why the JSON had no effect.
func ignoreStdout(v verdict, h *settings.Hook) verdict {
	v.notes = append(v.notes, fmt.Sprintf("stdout ignored: exit 2 blocks, whatever the JSON on stdout says "+
		"(hook `%s`; to answer with JSON, exit 0)", h.Display()))
	v.summary += "; stdout ignored: exit 2 blocks"
	return v
}

func interpretExit(ev event.Event, h *settings.Hook, x proc.Exec, stdout string) verdict {
	stderr := strings.TrimSpace(x.Stderr)
	switch x.ExitCode {
	case 0:
		if stdout != "" && (ev == event.UserPromptSubmit || ev == event.SessionStart) {
			return verdict{context: stdout, summary: "exit 0: stdout becomes context"}
		}
		return verdict{summary: "exit 0: no objection"}
	case 2:
		return exit2(ev, h, stderr)
	case 126, 127:
		what := "command not found"
		if x.ExitCode == 126 {
			what = "not executable"
		}
		msg := fmt.Sprintf("hook `%s` could not start (exit %d: %s)", h.Display(), x.ExitCode, what)
		if stderr != "" {
			msg += ": " + stderr
		}
		return verdict{err: msg, summary: fmt.Sprintf("exit %d: %s", x.ExitCode, what)}
	default:
		msg := stderr
		if msg == "" {
			msg = fmt.Sprintf("hook `%s` failed with exit code %d", h.Display(), x.ExitCode)
		}
		return verdict{err: msg, summary: fmt.Sprintf("exit %d: non-blocking error", x.ExitCode)}
	}
}

func exit2(ev event.Event, h *settings.Hook, stderr string) verdict {
	reason := stderr
	if reason == "" {
		reason = fmt.Sprintf("blocked by %s hook `%s`", ev, h.Display())
	}
	switch {
	case ev.DecidesPermission():
		return verdict{permission: PermissionDeny, reason: reason, summary: "exit 2: deny"}
	case ev.CanBlock():
		return verdict{block: true, reason: reason, summary: "exit 2: block"}
	default:
		return verdict{err: reason, summary: "exit 2: error shown to the user"}
	}
}

// permissionRequest reads PermissionRequest's decision object into v:
// behavior "allow" (with an optional updatedInput) or "deny" (with a
// message for the model, and interrupt to stop the agent).
func permissionRequest(v *verdict, raw json.RawMessage) []string {
	if t := event.BytesTrim(raw); len(t) == 0 || t[0] != '{' {
		return []string{`hookSpecificOutput.decision must be an object like {"behavior": "allow"}`}
	}
	var d permissionRequestDecision
	notes, err := decodeExact(raw, &d, "hookSpecificOutput.decision.")
	v.notes = append(v.notes, notes...)
	if err != nil {
		return []string{err.Error()}
	}
	var probs []string
	switch b := deref(d.Behavior); b {
	case "allow":
		v.permission = PermissionAllow
		probs = append(probs, readUpdatedInput(v, d.UpdatedInput, "decision.updatedInput")...)
	case "deny":
		v.permission, v.reason = PermissionDeny, deref(d.Message)
		if d.Interrupt != nil && *d.Interrupt {
			v.stop, v.stopReason = true, "interrupted by a PermissionRequest hook"
			if v.reason != "" {
				v.stopReason = v.reason
			}
		}
	default:
		probs = append(probs, fmt.Sprintf(`decision.behavior must be "allow" or "deny", not %q`, b))
	}
	return probs
}

// readUpdatedInput takes a hook's rewritten tool input, which must be an
// object; field names it in the problem otherwise.
func readUpdatedInput(v *verdict, raw json.RawMessage, field string) []string {
	raw = event.BytesTrim(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil
	case raw[0] != '{':
		return []string{field + " must be an object"}
	}
	v.updatedInput = compactJSON(raw)
	return nil
}

// interpretJSON validates a JSON answer. A nil problem list means the JSON
// decides; otherwise the problems say why it was rejected. Keys match
// exactly, as in Claude Code: v.notes names a key that differs from a known
// one only in case, which is ignored.
func interpretJSON(ev event.Event, out []byte) (verdict, []string) {
	top, probs := oneJSONObject(out)
	if probs != nil {
		return verdict{}, probs
	}
	var v verdict
	var j hookJSON
	notes, err := decodeExact(top, &j, "")
	if err != nil {
		return verdict{notes: notes}, []string{err.Error()}
	}
	v.notes = notes
	if j.Continue != nil && !*j.Continue {
		v.stop = true
		v.stopReason = "stopped by a " + string(ev) + " hook"
		if j.StopReason != nil && *j.StopReason != "" {
			v.stopReason = *j.StopReason
		}
	}
	if j.SystemMessage != nil {
		v.systemMessage = *j.SystemMessage
	}
	readTerminalSequence(&v, j.TerminalSequence)
	decision, reason := j.Decision, j.Reason
	if len(j.HookSpecificOutput) > 0 && string(j.HookSpecificOutput) != "null" {
		var hs hookSpecificJSON
		notes, err := decodeExact(j.HookSpecificOutput, &hs, "hookSpecificOutput.")
		v.notes = append(v.notes, notes...)
		if err != nil {
			return verdict{notes: v.notes}, []string{err.Error()}
		}
		var hsProbs []string
		if decision, reason, hsProbs = readHookSpecific(ev, &v, &hs); decision == nil {
			decision, reason = j.Decision, j.Reason
		}
		probs = append(probs, hsProbs...)
	}
	if decision != nil {
		probs = append(probs, readDecision(ev, &v, *decision, deref(reason))...)
	}
	if v.permission == PermissionDeny && v.reason == "" {
		v.reason, v.reasonDefaulted = denyWithoutReason(ev), true
	}
	if probs != nil {
		return verdict{notes: v.notes}, probs
	}
	v.summary = jsonSummary(&v)
	return v, nil
}

// oneJSONObject reads stdout as exactly one JSON value, with nothing after it.
func oneJSONObject(out []byte) (json.RawMessage, []string) {
	dec := json.NewDecoder(bytes.NewReader(out))
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, []string{"stdout looks like JSON but is not a valid JSON object: " + jsonError(err)}
	}
	// Not dec.More(): it reports false for a stray '}' or ']', so "{}}"
	// would pass as one object.
	if len(bytes.TrimSpace(out[dec.InputOffset():])) > 0 {
		return nil, []string{"stdout has more after its JSON object"}
	}
	return top, nil
}

// readHookSpecific reads hookSpecificOutput into v. Its decision and reason,
// when it has a string decision (a later event's), take the place of the
// top-level ones; decision is nil otherwise.
func readHookSpecific(ev event.Event, v *verdict, hs *hookSpecificJSON) (decision, reason *string, probs []string) {
	switch {
	case hs.HookEventName == nil:
		probs = append(probs, "hookSpecificOutput.hookEventName is missing")
	case event.Event(*hs.HookEventName) != ev:
		probs = append(probs, fmt.Sprintf("hookSpecificOutput.hookEventName is %q but this is a %s hook", *hs.HookEventName, ev))
	}
	if hs.PermissionDecision != nil {
		allowed := permissionDecisions[ev]
		if allowed == nil {
			probs = append(probs, fmt.Sprintf("permissionDecision only applies to %s, not %s", permissionDecisionEvents, ev))
		}
		if p := Permission(*hs.PermissionDecision); slices.Contains(allowed, p) {
			v.permission = p
		} else if allowed != nil {
			probs = append(probs, fmt.Sprintf("permissionDecision must be %s, not %q", quotedOr(allowed), *hs.PermissionDecision))
		}
		if hs.PermissionDecisionReason != nil {
			v.reason = *hs.PermissionDecisionReason
		}
	}
	probs = append(probs, readUpdatedInput(v, hs.UpdatedInput, "updatedInput")...)
	readUpdatedOutput(v, ev, hs)
	probs = append(probs, readEventAnswer(ev, v, hs)...)
	if hs.AdditionalContext != nil {
		v.addContext = *hs.AdditionalContext
	}
	if len(hs.Decision) > 0 && string(hs.Decision) != "null" {
		if ev == event.PermissionRequest {
			probs = append(probs, permissionRequest(v, hs.Decision)...)
		} else {
			var d string
			if err := json.Unmarshal(hs.Decision, &d); err != nil {
				probs = append(probs, "hookSpecificOutput.decision must be a string")
			}
			decision, reason = &d, hs.Reason
		}
	}
	return decision, reason, probs
}

// permissionDecisions are the values of hookSpecificOutput.permissionDecision
// each event reads: the table's PermissionDecisions
// (event.EventSpec.PermissionDecisions).
var permissionDecisions = func() map[event.Event][]Permission {
	m := map[event.Event][]Permission{}
	for _, s := range event.Table() {
		for _, d := range s.PermissionDecisions {
			m[s.Event] = append(m[s.Event], Permission(d))
		}
	}
	return m
}()

// permissionDecisionEvents names the events that read permissionDecision,
// in the table's order: "PreToolUse, PreModelSwitch and PreSkillShellCommand".
var permissionDecisionEvents = func() string {
	var names []string
	for _, s := range event.Table() {
		if s.PermissionDecisions != nil {
			names = append(names, string(s.Event))
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}()

// quotedOr lists values as `"a", "b" or "c"`.
func quotedOr(values []Permission) string {
	q := make([]string, len(values))
	for i, p := range values {
		q[i] = fmt.Sprintf("%q", p)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// readDecision applies a "decision" field: allow or deny for the events
// that decide a permission (unless permissionDecision already did), block
// for the events that can be blocked.
func readDecision(ev event.Event, v *verdict, d, reason string) (probs []string) {
	switch {
	case ev.DecidesPermission() && (d == "approve" || d == "allow"):
		if v.permission == PermissionNone {
			v.permission = PermissionAllow
			v.reason = reason
		}
	case ev.DecidesPermission() && (d == "block" || d == "deny"):
		if v.permission == PermissionNone {
			v.permission = PermissionDeny
			v.reason = reason
		}
	case d == "block":
		if reason == "" {
			probs = append(probs, `decision "block" needs a non-empty "reason"`)
		}
		if ev.CanBlock() {
			v.block, v.reason = true, reason
		} else {
			v.ignored = fmt.Sprintf("decision \"block\" ignored: %s cannot be blocked", ev)
		}
	case d == "" || d == "undefined":
	default:
		probs = append(probs, fmt.Sprintf("decision must be \"block\", not %q", d))
	}
	return probs
}

func jsonSummary(v *verdict) string {
	var parts []string
	if v.stop {
		parts = append(parts, "continue:false")
	}
	if v.permission != PermissionNone {
		parts = append(parts, string(v.permission))
	}
	if v.block {
		parts = append(parts, "block")
	}
	if v.updatedInput != nil {
		parts = append(parts, "updatedInput")
	}
	if v.updatedOutput != nil || v.updatedMCPOutput != nil {
		parts = append(parts, "updatedToolOutput")
	}
	if v.addContext != "" {
		parts = append(parts, "additionalContext")
	}
	if v.systemMessage != "" {
		parts = append(parts, "systemMessage")
	}
	if v.ignored != "" {
		parts = append(parts, v.ignored)
	}
	if len(parts) == 0 {
		return "json: no decision"
	}
	return "json: " + strings.Join(parts, ", ")
}

// jsonError turns encoding/json's type errors into words a hook author knows.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the answer"
		}
		return fmt.Sprintf("%s must be %s, not %s", field, rawjson.KindOf(te.Type), te.Value)
	}
	return err.Error()
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// capText keeps injected text under MaxInjectedText characters and says so when it cuts.
func capText(s string) string {
	if utf8.RuneCountInString(s) <= MaxInjectedText {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxInjectedText {
			return s[:i] + fmt.Sprintf("\n[truncated: hook output exceeded %d characters]", MaxInjectedText)
		}
		n++
	}
	return s
}
