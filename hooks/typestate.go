package hooks

import (
	"context"
	"fmt"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
	"strings"
	"sync"
	"sync/atomic"
)

// typeState is what an engine keeps for the hook types and options beyond
// plain command hooks: who evaluates delegated hooks, which `once` hooks
// already ran in which session, the async hooks' output waiting for their
// session's next event, and the sessions already warned that their
// delegated hooks cannot run.
type typeState struct {
	delegate atomic.Pointer[Delegate]

	mu     sync.Mutex // guards the maps
	once   map[string]bool
	mail   map[string][]Delivery
	warned map[string]bool
}

func newTypeState() *typeState {
	return &typeState{once: map[string]bool{}, mail: map[string][]Delivery{}, warned: map[string]bool{}}
}

// Bounds of typeState's maps: sessions that never fire again must not make
// the server grow without end. Past them the oldest state is dropped
// (which at worst runs a `once` hook again or loses async output, and the
// history keeps the runs).
const (
	maxOnceEntries    = 100_000
	maxMailSessions   = 1_000
	maxMailPerSession = 100
	maxWarnedSessions = 10_000
)

// hookOutcome is how one hook of any type ended: a command hook's process,
// an http hook's answer (HTTPStatus, the body in Stdout), or a delegated
// hook's answer (in Stdout; Failure when the agent host answered with an
// error). NotRun says why a hook that was started could not run at all.
type hookOutcome struct {
	proc.Exec
	HTTPStatus int
	Failure    string
	NotRun     string
	// claudeStdin is the event's input in Claude Code's shape, which an
	// answer in another agent's shape is read against (agentfmt.Answer).
	claudeStdin []byte
}

// execute runs one hook of any type.
// l, when not nil, is the trusted configuration the event runs: a hook of
// it that runs a workspace script directly runs the bytes that were
// checked against the trust (runCommand).
func (e *Engine) execute(ctx context.Context, cfg *settings.Config, l *trust.Loaded, h *settings.Hook, in event.Input, stdin []byte, eventEnv []string) hookOutcome {
	switch {
	case h.Type == settings.TypeHTTP:
		return e.runHTTP(ctx, cfg, h, stdin)
	case settings.Delegated(h.Type):
		return e.runDelegated(ctx, h, in, stdin)
	}
	return hookOutcome{Exec: e.runCommand(ctx, l, h, stdin, eventEnv)}
}

// runCommand runs a command hook. A trusted workspace hook that runs a
// workspace script directly runs the copy of it that was checked against
// the trust, or, when the script changed since, does not run.
func (e *Engine) runCommand(ctx context.Context, l *trust.Loaded, h *settings.Hook, stdin []byte, eventEnv []string) proc.Exec {
	pin, err := l.Pin(h)
	if err != nil {
		if l.Stale() {
			if f := e.onStale.Load(); f != nil {
				(*f)()
			}
		}
		return proc.Exec{ExitCode: -1, StartErr: "the hook did not run: " + err.Error()}
	}
	if h.Source.Agent() == agentfmt.Gemini {
		// Gemini CLI's hooks find the project by its own variables.
		root := e.Config().Paths.ProjectRoot
		eventEnv = append(eventEnv[:len(eventEnv):len(eventEnv)], "GEMINI_PROJECT_DIR="+root, "GEMINI_CWD="+root)
	}
	return e.runner.RunPinned(ctx, h, stdin, eventEnv, pin)
}

// interpretHook reads the outcome of a hook of any type.
func interpretHook(ev event.Event, h *settings.Hook, o hookOutcome) verdict {
	switch {
	case h.Type == settings.TypeHTTP:
		return interpretHTTP(ev, h, o)
	case !settings.Delegated(h.Type) && h.Source.Agent() != "":
		// Another agent's hook answered in its agent's shape.
		x := o.Exec
		x.Stdout = string(agentfmt.Answer(h.Source.Agent(), h.AgentEvent, []byte(x.Stdout), o.claudeStdin))
		return interpretEvent(ev, h, x)
	case !settings.Delegated(h.Type):
		return interpretEvent(ev, h, o.Exec)
	case o.TimedOut:
		return verdict{err: fmt.Sprintf("hook timed out after %s: `%s`", settings.Seconds(h.Timeout), h.Display()), summary: "timed out"}
	case o.Cancelled:
		return verdict{err: fmt.Sprintf("hook `%s` was cancelled", h.Display()), summary: "cancelled"}
	case o.Failure != "":
		return verdict{err: fmt.Sprintf("%s hook `%s` failed: %s", h.Type, h.Display(), o.Failure), summary: "the agent host answered an error: non-blocking error"}
	case o.StdoutTruncated:
		msg := fmt.Sprintf("the answer to %s hook `%s` exceeded %d bytes; it is ignored", h.Type, h.Display(), proc.MaxOutput)
		if ev.DecidesPermission() {
			return verdict{permission: PermissionDeny, reason: msg, err: msg, summary: "answer cut: deny"}
		}
		return verdict{err: msg, summary: "answer cut: non-blocking error"}
	case h.Type == settings.TypeMCPTool:
		return interpretMCP(ev, h, o.Stdout)
	}
	return interpretModel(ev, h, o.Stdout)
}

// skipTyped decides what only the newer hook types and options decide
// about a hook that would otherwise run now: whether Claude Code runs its
// type on this event, whether the policy lets an http hook post to its
// URL, and whether a `once` hook already ran in this session (which it
// records here: the hook runs). It sets run.Skipped and returns true when
// the hook must not run. direct is a run the user asked for by hand, where
// `once` does not count.
func (e *Engine) skipTyped(res *Result, cfg *settings.Config, h *settings.Hook, in event.Input, direct bool, run *Run) bool {
	if ok, why := settings.TypeRunsOn(h.Type, in.Event); !ok {
		run.Skipped = why
		return true
	}
	if h.Type == settings.TypeHTTP {
		if ok, why := cfg.HTTPPolicy.AllowsURL(h.URL); !ok {
			run.Skipped = why
			res.Warnings = append(res.Warnings, fmt.Sprintf("http hook `%s` did not run: %s", h.Display(), why))
			return true
		}
	}
	if h.Once && !direct && in.SessionID != "" && !h.Source.IsClaude() {
		key := in.SessionID + "\x00" + h.File + "\x00" + string(h.Event) + "\x00" + h.Matcher.String() + "\x00" + h.RunKey()
		t := e.types
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.once[key] {
			run.Skipped = "once: it already ran in this session"
			return true
		}
		if len(t.once) >= maxOnceEntries {
			clear(t.once)
		}
		t.once[key] = true
	}
	return false
}

// NeedsAgentHost begins the Skipped reason of a delegated hook that the
// agent host could not evaluate.
const NeedsAgentHost = "needs an agent host: "

// noteNotRun records a delegated hook that the agent host could not
// evaluate: it did not run (and, with onFailure "block", blocked: record
// set its Decision), and the first time in a session, a warning says so
// and why.
func (e *Engine) noteNotRun(sessionID string, h *settings.Hook, why string, r *Run, v *verdict) {
	r.Ran, r.Skipped = false, NeedsAgentHost+why
	if strings.HasSuffix(r.Decision, OnFailureBlocked) {
		r.Skipped += "; " + OnFailureBlocked
	}
	t := e.types
	t.mu.Lock()
	defer t.mu.Unlock()
	if sessionID != "" && t.warned[sessionID] {
		return
	}
	if len(t.warned) >= maxWarnedSessions {
		clear(t.warned)
	}
	t.warned[sessionID] = true
	v.systemMessage = fmt.Sprintf("%s hook `%s` did not run: it needs an agent host, and %s. "+
		"Hooks of this kind do not run in this session until one can (this is said once per session).", h.Type, h.Display(), why)
}

// Delivery is what an async hook said for the model (additionalContext, or
// its systemMessage, which Claude Code also gives the model rather than the
// user), held until the next event of its session carries it.
type Delivery struct {
	// Event is the event that started the async hook.
	Event event.Event
	// Hook is the hook as Display shows it.
	Hook string
	// Content is the text for the model.
	Content string
}

// post keeps an async hook's output for its session's next event.
func (t *typeState) post(sessionID string, d Delivery) {
	if sessionID == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.mail[sessionID]
	if q == nil && len(t.mail) >= maxMailSessions {
		for k := range t.mail { // an arbitrary session's: the bound is for sessions that never come back
			delete(t.mail, k)
			break
		}
	}
	if len(q) >= maxMailPerSession {
		q = q[1:]
	}
	t.mail[sessionID] = append(q, d)
}

// take returns and forgets what is waiting for a session.
func (t *typeState) take(sessionID string) []Delivery {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.mail[sessionID]
	delete(t.mail, sessionID)
	return q
}

// forget drops what is kept for a session that ended.
func (t *typeState) forget(sessionID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.once {
		if strings.HasPrefix(k, sessionID+"\x00") {
			delete(t.once, k)
		}
	}
	delete(t.warned, sessionID)
}

// asyncOutput keeps what an ended async hook said for the model, and says
// whether an asyncRewake hook wakes the agent (with what text).
func (e *Engine) asyncOutput(in event.Input, h *settings.Hook, x proc.Exec, v *verdict, res *Result) {
	for _, text := range []string{v.addContext, v.systemMessage} {
		if text != "" {
			e.types.post(in.SessionID, Delivery{Event: in.Event, Hook: h.Display(), Content: capText(text)})
		}
	}
	if h.AsyncRewake && x.ExitCode == 2 && !x.TimedOut && !x.Cancelled {
		text := strings.TrimSpace(x.Stderr)
		if text == "" {
			text = strings.TrimSpace(x.Stdout)
		}
		if text == "" {
			text = fmt.Sprintf("the background hook `%s` exited with code 2", h.Display())
		}
		res.Rewake = capText(text)
	}
}
