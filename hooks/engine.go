package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Engine fires events: it picks the hooks an event matches, runs them in
// parallel and combines their answers. It is safe for concurrent use, and its
// configuration can be swapped while events are running (the next event sees
// the new hooks). Async hooks outlive the event that started them: Wait
// waits for them, and Close kills them.
type Engine struct {
	state   atomic.Pointer[trust.Loaded]
	runner  *proc.Runner
	bg      *background
	onStale atomic.Pointer[func()]
	types   *typeState
}

// NewEngine returns an engine for cfg, as Load returns it, with the
// workspace not trusted (Install another decision); its hooks run in the
// config's project root with the server's environment.
func NewEngine(cfg *settings.Config) *Engine {
	e := &Engine{runner: proc.NewRunner(cfg.Paths.ProjectRoot, proc.Environ()), bg: newBackground(), types: newTypeState()}
	e.state.Store(trust.Resolve(cfg, false))
	return e
}

// Install swaps the configuration and its trust decision in one step;
// events already running keep the old ones.
func (e *Engine) Install(l *trust.Loaded) { e.state.Store(l) }

// Loaded returns the configuration in use with its trust decision.
func (e *Engine) Loaded() *trust.Loaded { return e.state.Load() }

// Config returns the configuration in use.
func (e *Engine) Config() *settings.Config { return e.state.Load().Config }

// WorkspaceTrusted reports whether the workspace's hooks may run.
func (e *Engine) WorkspaceTrusted() bool { return e.state.Load().Trusted }

// OnStale sets the function called (on the event's goroutine) when an
// event finds that a workspace file a trusted hook runs has changed since
// it was trusted: the hooks did not run, and the configuration should be
// loaded again so that the user can be asked.
func (e *Engine) OnStale(f func()) { e.onStale.Store(&f) }

// OnAsyncDone sets the function told about every async hook when it ends,
// with the event's input and a Result of that one hook (its Run, and its
// warnings and errors, which were applied to nothing). It is called on the
// hook's own goroutine.
func (e *Engine) OnAsyncDone(f func(in event.Input, res Result)) {
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	e.bg.report = f
}

// Wait waits until every async hook started so far has ended.
func (e *Engine) Wait() { e.bg.wg.Wait() }

// Close kills the async hooks still running (their process groups, as a
// timeout would), waits for them, and starts no more: the async hooks of
// later events are skipped. Events keep working otherwise.
func (e *Engine) Close() {
	e.bg.mu.Lock()
	e.bg.closed = true
	e.bg.mu.Unlock()
	e.bg.cancel()
	e.bg.wg.Wait()
}

// background tracks the async hooks of an engine.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex // guards closed and report, and orders wg.Add before Close's Wait
	closed bool
	report func(event.Input, Result)
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// start runs f on a goroutine of its own unless the engine is closed.
func (b *background) start(f func(ctx context.Context, report func(event.Input, Result))) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	report := b.report
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx, report)
	}()
	return true
}

// StatusMessages returns the statusMessage of every hook that would run in
// the foreground for an event whose matchers see matchValue, in
// configuration order and without repeats, for a progress title.
func (e *Engine) StatusMessages(ev event.Event, matchValue string) []string {
	l := e.state.Load()
	cfg, trusted := l.Config, l.Trusted
	var out []string
	seen := map[string]bool{}
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != ev || h.Async || h.StatusMessage == "" || seen[h.StatusMessage] ||
			(ev.UsesMatcher() && !h.Matcher.Match(matchValue)) || (h.Source.FromWorkspace() && !trusted) {
			continue
		}
		if ok, _ := cfg.Active(h); ok {
			seen[h.StatusMessage] = true
			out = append(out, h.StatusMessage)
		}
	}
	return out
}

// Fire runs every hook that matches the input's event and returns their
// combined answer. It never fails: hooks that cannot start, time out or print
// garbage become errors and warnings in the Result. Cancelling ctx kills the
// running hooks. Async hooks are started and not waited for: the Result
// lists them (Run.Async) and OnAsyncDone hears how they ended; what they
// said for the model comes with the next event of their session
// (Result.Delivered).
func (e *Engine) Fire(ctx context.Context, in event.Input) Result {
	return e.FireGated(ctx, in, nil)
}

// FireGated is Fire telling gate about the event's hook processes:
// synchronous hooks as one batch, each async hook on its own, since it
// outlives the event. A nil gate is told nothing. The session store passes
// its gate here so that no hook reads half a write of its transcript.
func (e *Engine) FireGated(ctx context.Context, in event.Input, gate ReadGate) Result {
	if gate == nil {
		gate = noGate{}
	}
	l := e.state.Load()
	res := e.fire(ctx, l.Config, l, e.trustOf(l), in, false, gate)
	if in.SessionID != "" {
		res.Delivered = e.types.take(in.SessionID)
		if in.Event == event.SessionEnd {
			e.types.forget(in.SessionID)
		}
	}
	return res
}

// MayRun reports whether any hook of the loaded configuration may run for
// in: one of its event whose matcher matches (its "if" rule, its switch and
// trust are not asked, so it may say yes for an event whose hooks are then
// skipped, never no for one that runs). The session store asks it before an
// event, to write the transcript only when a hook may read it
// (session.Options.SaveBeforeHooks).
func (e *Engine) MayRun(in event.Input) bool {
	cfg := e.state.Load().Config
	usesMatcher := in.Event.UsesMatcher()
	value := ""
	if usesMatcher {
		value = in.MatchValue()
	}
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event == in.Event && (!usesMatcher || h.Matcher.Match(value)) {
			return true
		}
	}
	return false
}

// trustOf returns how an event asks whether the workspace's hooks may run:
// once, when the first of them matches, checking that the files they run
// are unchanged.
func (e *Engine) trustOf(l *trust.Loaded) func() (bool, string) {
	var once sync.Once
	var ok bool
	var why string
	return func() (bool, string) {
		once.Do(func() {
			ok, why = l.Check()
			if l.Stale() {
				if f := e.onStale.Load(); f != nil {
					(*f)()
				}
			}
		})
		return ok, why
	}
}

// trustedForDirect is the trust of FireHook, whose caller decided.
func trustedForDirect() (bool, string) { return true, "" }

// job is one matching hook of an event.
type job struct {
	hook  *settings.Hook
	run   int // index into res.Runs
	first int // index of the job with the same command that really runs
}

// fire runs the hooks of cfg for in, inside gate; direct runs them whatever
// the policy says (for FireHook, where the user asked for that one hook).
func (e *Engine) fire(ctx context.Context, cfg *settings.Config, l *trust.Loaded, trust func() (bool, string), in event.Input, direct bool, gate ReadGate) Result {
	res := Result{Event: in.Event, Continue: true}
	jobs, async := e.plan(&res, cfg, trust, in, direct)
	if len(jobs) == 0 && len(async) == 0 {
		return res
	}
	stdin, err := in.MarshalStdin()
	if err != nil {
		res.Errors = append(res.Errors, "cannot build the hook input: "+err.Error())
		return res
	}
	res.Stdin = stdin
	stdins := &hookStdins{in: &in, claude: stdin}
	env := newHookEnv(&in) // Claude Code's variables, CLAUDE_ENV_FILE: hooks/envfile.go
	for _, j := range async {
		b, err := stdins.of(j.hook)
		if err != nil { // not run: an async hook decides nothing, so nothing to fail closed
			res.Runs[j.run].Skipped = "the hook did not run: " + untranslatable(j.hook, err)
			continue
		}
		e.startAsync(in, gate, l, j.hook, b, env.forAsync(), &res.Runs[j.run])
	}
	if len(jobs) == 0 {
		env.collect(&res, nil, nil)
		return res
	}
	gate.Enter()
	execs := e.runJobs(ctx, cfg, l, in, jobs, stdins, env)
	gate.Leave()

	verdicts := make([]verdict, 0, len(jobs))
	for i, j := range jobs {
		if j.first != i {
			continue
		}
		execs[i].claudeStdin = stdin
		v := record(in.Event, j.hook, execs[i], &res.Runs[j.run])
		if execs[i].NotRun != "" {
			e.noteNotRun(in.SessionID, j.hook, execs[i].NotRun, &res.Runs[j.run], &v)
		}
		verdicts = append(verdicts, v)
	}
	combine(&res, verdicts)
	updatedToolOutput(&res, verdicts, in.ToolName)
	env.collect(&res, jobs, e.runner.Env)
	return res
}

// plan decides, for each configured hook of the event, whether it runs:
// its matcher, its "if" rule, whether it is active and trusted, and whether
// an earlier hook runs the same command. Each hook gets a Run in res.Runs
// that says why; the ones that run are returned as foreground jobs (in
// configuration order; a duplicate points at its first) and background ones.
func (e *Engine) plan(res *Result, cfg *settings.Config, trust func() (bool, string), in event.Input, direct bool) (jobs, async []job) {
	value := in.MatchValue()
	usesMatcher := in.Event.UsesMatcher()
	byKey := map[string]int{}
	untrusted, untrustedWhy := 0, ""
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != in.Event {
			continue
		}
		run := Run{Command: h.Display(), Source: h.Source, File: h.File, Matcher: h.Matcher.String(), Matched: true,
			Why: "the event has no matcher", Async: h.Async, StatusMessage: h.StatusMessage, Type: h.Type}
		if usesMatcher {
			run.Matched = h.Matcher.Match(value)
			run.Why = h.Matcher.Explain(value)
		}
		if h.If != nil && run.Matched && !direct {
			ok, why := h.If.Match(&in, cfg.Paths.ProjectRoot)
			run.If, run.IfWhy = h.If.String(), why
			if !ok {
				run.Skipped = `its "if" rule does not match: ` + why
				res.Runs = append(res.Runs, run)
				continue
			}
		}
		if run.Matched {
			ok, why := cfg.Active(h)
			switch first, dup := byKey[h.RunKey()]; {
			case !ok && !direct:
				run.Skipped = why
			case h.Source.FromWorkspace() && !isTrue(trust):
				_, untrustedWhy = trust()
				run.Skipped = untrustedWhy
				untrusted++
			case dup:
				run.Skipped = "same command as an earlier hook; it runs once"
				if !h.Async {
					jobs = append(jobs, job{hook: h, run: len(res.Runs), first: first})
				}
			case e.skipTyped(res, cfg, h, in, direct, &run):
			case h.Async:
				byKey[h.RunKey()] = -1
				async = append(async, job{hook: h, run: len(res.Runs)})
			default:
				byKey[h.RunKey()] = len(jobs)
				jobs = append(jobs, job{hook: h, run: len(res.Runs), first: len(jobs)})
			}
		}
		res.Runs = append(res.Runs, run)
	}
	if untrusted > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d %s hook(s) of this workspace did not run: %s", untrusted, in.Event, untrustedWhy))
	}
	return jobs, async
}

// runJobs runs the foreground jobs, each command once (a duplicate shares
// its first's outcome), in parallel, and waits for all of them.
func (e *Engine) runJobs(ctx context.Context, cfg *settings.Config, l *trust.Loaded, in event.Input, jobs []job, stdins *hookStdins, env *hookEnv) []hookOutcome {
	execs := make([]hookOutcome, len(jobs))
	if len(jobs) == 1 {
		execs[0] = e.executeWithStdin(ctx, cfg, l, jobs[0].hook, in, stdins, env.forJob(0))
		return execs
	}
	for _, j := range jobs {
		_, _ = stdins.of(j.hook) // built before the goroutines share it
	}
	var wg sync.WaitGroup
	for i, j := range jobs {
		if j.first != i {
			continue
		}
		wg.Add(1)
		go func(i int, h *settings.Hook, env []string) {
			defer wg.Done()
			execs[i] = e.executeWithStdin(ctx, cfg, l, h, in, stdins, env)
		}(i, j.hook, env.forJob(i))
	}
	wg.Wait()
	return execs
}

// hookStdins gives each hook the stdin of its source: Claude Code's JSON,
// for VS Code's hook files VS Code's shape of it, and for another agent's
// hook file that agent's shape of its event (agentfmt.Stdin), built on
// first use.
type hookStdins struct {
	in             *event.Input
	claude, vscode []byte
	mu             sync.Mutex
	agents         map[string][]byte
	agentErrs      map[string]error
}

// An event that cannot be put in another agent's shape is an error, never
// Claude Code's stdin in its place: that hook would read fields it does not
// know and might let through what it exists to stop (executeWithStdin).
func (s *hookStdins) of(h *settings.Hook) ([]byte, error) {
	if a := h.Source.Agent(); a != "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		key := string(a) + "/" + h.AgentEvent
		if b, ok := s.agents[key]; ok {
			return b, s.agentErrs[key]
		}
		b, err := agentfmt.Stdin(a, h.AgentEvent, s.claude)
		if s.agents == nil {
			s.agents, s.agentErrs = map[string][]byte{}, map[string]error{}
		}
		s.agents[key], s.agentErrs[key] = b, err
		return b, err
	}
	if h.Source != settings.SourceVSCode {
		return s.claude, nil
	}
	if s.vscode == nil {
		s.vscode = s.in.VSCodeStdin()
	}
	return s.vscode, nil
}

// executeWithStdin runs h with the stdin of its source, or, when the event
// cannot be given to it in its agent's shape, fails it closed: as a hook
// that exited 2, which blocks where the event can be blocked.
func (e *Engine) executeWithStdin(ctx context.Context, cfg *settings.Config, l *trust.Loaded, h *settings.Hook, in event.Input, stdins *hookStdins, env []string) hookOutcome {
	b, err := stdins.of(h)
	if err != nil {
		return hookOutcome{Exec: proc.Exec{ExitCode: 2, Stderr: untranslatable(h, err) + "; it did not run, and blocks"}}
	}
	return e.execute(ctx, cfg, l, h, in, b, env)
}

// untranslatable says why h did not run: its event could not be put in
// its agent's shape. A foreground hook reads as exit code 2 with this on
// stderr (not as a start failure, which would not block).
func untranslatable(h *settings.Hook, err error) string {
	return fmt.Sprintf("wavehooks could not give this %s hook its event (%s): %v", h.Source.Agent(), h.AgentEvent, err)
}

func isTrue(f func() (bool, string)) bool {
	ok, _ := f()
	return ok
}

// record interprets what a hook did and writes it into its Run.
func record(ev event.Event, h *settings.Hook, o hookOutcome, r *Run) verdict {
	if o.NotRun != "" {
		// A hook that could not run at all (no agent host serves its
		// type) failed too: with onFailure "block" it blocks like any
		// other failure. noteNotRun records the rest of its Run.
		v := applyOnFailure(ev, h, o, verdict{summary: "not run"})
		r.Decision = v.summary
		return v
	}
	x := o.Exec
	v := applyOnFailure(ev, h, o, interpretHook(ev, h, o))
	r.HTTPStatus = o.HTTPStatus
	r.Ran, r.ExitCode, r.Duration, r.DurationNs, r.TimedOut = true, x.ExitCode, x.Duration, x.Duration.Nanoseconds(), x.TimedOut
	r.Stdout, r.Stderr, r.StdoutTruncated, r.StderrTruncated = x.Stdout, x.Stderr, x.StdoutTruncated, x.StderrTruncated
	r.JSON, r.Decision = v.json, v.summary
	r.Problems = append(v.problems[:len(v.problems):len(v.problems)], v.notes...)
	if (x.StdoutTruncated && !v.cut) || x.StderrTruncated {
		v.problems = append(v.problems[:len(v.problems):len(v.problems)],
			fmt.Sprintf("output of `%s` exceeded %d bytes and was truncated", h.Display(), proc.MaxOutput))
	}
	return v
}

// startAsync starts an async hook in the background. Its timeout still
// applies and Close kills it; the event's ctx does not, since the event does
// not wait for it. When it ends, the engine's OnAsyncDone function gets a
// Result of that hook alone: what it said is reported, never applied.
func (e *Engine) startAsync(in event.Input, gate ReadGate, l *trust.Loaded, h *settings.Hook, stdin []byte, env []string, run *Run) {
	r := *run
	gate.Enter()
	started := e.bg.start(func(ctx context.Context, report func(event.Input, Result)) {
		x := e.runCommand(ctx, l, h, stdin, env)
		gate.Leave()
		v := record(in.Event, h, hookOutcome{Exec: x}, &r)
		res := Result{Event: in.Event, Continue: true, Stdin: stdin, Runs: []Run{r}}
		e.asyncOutput(in, h, x, &v, &res)
		res.Warnings = append(res.Warnings, v.warnings()...)
		if v.err != "" {
			res.Errors = append(res.Errors, v.err)
		}
		if report != nil {
			report(in, res)
		}
	})
	if started {
		run.Decision = "started in the background (async); its outcome is reported when it ends, and its additionalContext " +
			"and systemMessage reach the model with the session's next event"
	} else {
		gate.Leave()
		run.Skipped = "async hooks are not started while the engine shuts down"
	}
}

// combine merges the verdicts, which are in configuration order, into res.
func combine(res *Result, vs []verdict) {
	var stopReasons, reasons []string
	var inputs []json.RawMessage
	for i := range vs {
		v := &vs[i]
		res.Warnings = append(res.Warnings, v.warnings()...)
		if v.stop {
			res.Continue = false
			stopReasons = append(stopReasons, v.stopReason)
		}
		if v.err != "" {
			res.Errors = append(res.Errors, v.err)
		}
		if v.context != "" {
			res.Context = append(res.Context, capText(v.context))
		}
		if v.addContext != "" {
			res.AdditionalContext = append(res.AdditionalContext, capText(v.addContext))
		}
		if v.block {
			res.Blocked = true
		}
		if v.permission.rank() > res.Permission.rank() {
			res.Permission = v.permission
		}
		if v.updatedInput != nil {
			inputs = append(inputs, v.updatedInput)
		}
	}
	// Reasons of the decision that won, in configuration order.
	for i := range vs {
		v := &vs[i]
		switch {
		case res.Event.DecidesPermission():
			if v.permission == res.Permission && v.permission != PermissionNone && v.reason != "" {
				reasons = append(reasons, capText(v.reason))
			}
		case v.block:
			reasons = append(reasons, capText(v.reason))
		}
	}
	res.Reason = strings.Join(reasons, "\n")
	res.StopReason = strings.Join(stopReasons, "\n")
	if len(inputs) > 0 && res.Permission != PermissionDeny {
		res.UpdatedInput = inputs[len(inputs)-1]
		for _, in := range inputs[:len(inputs)-1] {
			if !bytes.Equal(in, res.UpdatedInput) {
				res.Warnings = append(res.Warnings,
					"several hooks rewrote the tool input differently; the last one in configuration order was used")
				break
			}
		}
	}
	if res.Blocked && res.Event == event.UserPromptSubmit {
		// A blocked prompt never reaches the model, and neither does context for it.
		res.Context, res.AdditionalContext = nil, nil
	}
	combineAnswers(res, vs)
	if res.Blocked && res.Event == event.UserPromptSubmit && res.UpdatedPrompt != "" {
		// A block beats a rewrite: the prompt goes nowhere.
		res.UpdatedPrompt = ""
		res.Warnings = append(res.Warnings, "updatedPrompt ignored: a hook blocked the prompt")
	}
}
