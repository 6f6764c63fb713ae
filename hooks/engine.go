package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Engine fires events: it picks the hooks an event matches, runs them in
// parallel and combines their answers. It is safe for concurrent use, and its
// configuration can be swapped while events are running (the next event sees
// the new hooks).
type Engine struct {
	cfg    atomic.Pointer[Config]
	runner *Runner
	trust  atomic.Pointer[TrustState]
}

// TrustState says whether the workspace's own hooks may run.
type TrustState struct {
	// Trusted is true when the user trusted exactly the current workspace commands.
	Trusted bool
}

// NewEngine returns an engine for cfg whose hooks run in the config's project
// root with the server's environment.
func NewEngine(cfg *Config) *Engine {
	e := &Engine{runner: NewRunner(cfg.Paths.ProjectRoot, environ())}
	e.cfg.Store(cfg)
	e.trust.Store(&TrustState{})
	return e
}

// Config returns the configuration in use.
func (e *Engine) Config() *Config { return e.cfg.Load() }

// SetConfig swaps the configuration; events already running keep the old one.
func (e *Engine) SetConfig(cfg *Config) { e.cfg.Store(cfg) }

// SetWorkspaceTrusted says whether the workspace's hooks may run.
func (e *Engine) SetWorkspaceTrusted(trusted bool) { e.trust.Store(&TrustState{Trusted: trusted}) }

// WorkspaceTrusted reports whether the workspace's hooks may run.
func (e *Engine) WorkspaceTrusted() bool { return e.trust.Load().Trusted }

// Fire runs every hook that matches the input's event and returns their
// combined answer. It never fails: hooks that cannot start, time out or print
// garbage become errors and warnings in the Result. Cancelling ctx kills the
// running hooks.
func (e *Engine) Fire(ctx context.Context, in Input) Result {
	cfg := e.cfg.Load()
	trusted := e.trust.Load().Trusted
	res := Result{Event: in.Event, Continue: true}
	value := in.MatchValue()
	usesMatcher := in.Event.UsesMatcher()

	type job struct {
		hook  *Hook
		run   int // index into res.Runs
		first int // index of the job with the same command that really runs
	}
	var jobs []job
	byCommand := map[string]int{}
	untrusted := 0
	for i := range cfg.Hooks {
		h := &cfg.Hooks[i]
		if h.Event != in.Event {
			continue
		}
		run := Run{Command: h.Command, Source: h.Source, File: h.File, Matcher: h.Matcher.String(), Matched: true, Why: "the event has no matcher"}
		if usesMatcher {
			run.Matched = h.Matcher.Match(value)
			run.Why = h.Matcher.Explain(value)
		}
		if run.Matched {
			if ok, why := cfg.Active(h); !ok {
				run.Skipped = why
			} else if h.Source.FromWorkspace() && !trusted {
				run.Skipped = "the workspace's hooks are not trusted yet"
				untrusted++
			} else if first, dup := byCommand[h.Command]; dup {
				run.Skipped = "same command as an earlier hook; it runs once"
				jobs = append(jobs, job{hook: h, run: len(res.Runs), first: first})
			} else {
				byCommand[h.Command] = len(jobs)
				jobs = append(jobs, job{hook: h, run: len(res.Runs), first: len(jobs)})
			}
		}
		res.Runs = append(res.Runs, run)
	}
	if untrusted > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d %s hook(s) of this workspace did not run: the workspace's hooks are not trusted yet", untrusted, in.Event))
	}
	if len(jobs) == 0 {
		return res
	}

	stdin, err := in.MarshalStdin()
	if err != nil {
		res.Errors = append(res.Errors, "cannot build the hook input: "+err.Error())
		return res
	}
	res.Stdin = stdin
	execs := make([]Exec, len(jobs))
	if len(jobs) == 1 {
		execs[0] = e.runner.Run(ctx, jobs[0].hook.Command, stdin, jobs[0].hook.Timeout)
	} else {
		var wg sync.WaitGroup
		for i, j := range jobs {
			if j.first != i {
				continue
			}
			wg.Add(1)
			go func(i int, h *Hook) {
				defer wg.Done()
				execs[i] = e.runner.Run(ctx, h.Command, stdin, h.Timeout)
			}(i, j.hook)
		}
		wg.Wait()
	}

	verdicts := make([]verdict, 0, len(jobs))
	for i, j := range jobs {
		if j.first != i {
			continue
		}
		x := execs[i]
		v := interpret(in.Event, j.hook, x)
		r := &res.Runs[j.run]
		r.Ran, r.ExitCode, r.Duration, r.DurationNs, r.TimedOut = true, x.ExitCode, x.Duration, x.Duration.Nanoseconds(), x.TimedOut
		r.Stdout, r.Stderr, r.StdoutTruncated, r.StderrTruncated = x.Stdout, x.Stderr, x.StdoutTruncated, x.StderrTruncated
		r.JSON, r.Problems, r.Decision = v.json, v.problems, v.summary
		if x.StdoutTruncated || x.StderrTruncated {
			v.problems = append(v.problems[:len(v.problems):len(v.problems)],
				fmt.Sprintf("output of `%s` exceeded %d bytes and was truncated", j.hook.Command, MaxOutput))
		}
		verdicts = append(verdicts, v)
	}
	combine(&res, verdicts)
	return res
}

// combine merges the verdicts, which are in configuration order, into res.
func combine(res *Result, vs []verdict) {
	var stopReasons, reasons []string
	var inputs []json.RawMessage
	for i := range vs {
		v := &vs[i]
		for _, p := range v.problems {
			res.Warnings = append(res.Warnings, "hook output ignored: "+p)
		}
		if v.stop {
			res.Continue = false
			stopReasons = append(stopReasons, v.stopReason)
		}
		if v.systemMessage != "" {
			res.Warnings = append(res.Warnings, v.systemMessage)
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
		case res.Event == PreToolUse || res.Event == PermissionRequest:
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
	if res.Blocked && res.Event == UserPromptSubmit {
		// A blocked prompt never reaches the model, and neither does context for it.
		res.Context, res.AdditionalContext = nil, nil
	}
}
