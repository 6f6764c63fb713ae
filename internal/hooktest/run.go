package hooktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Host is how a case's event is built and fired: the command line gives
// the functions `wavehooks run` uses, so that a test runs what run runs.
type Host struct {
	// Prepare reads an event's stdin JSON as run does, filling in what is
	// optional; its error is a bad case.
	Prepare func(ev event.Event, data []byte, projectRoot string) (event.Input, error)
	// Fire loads the settings of paths (texts stand in for files'
	// contents), decides trust, and fires in through a new engine, waiting
	// for every hook (async ones included) to end.
	Fire func(ctx context.Context, paths settings.Paths, texts map[string][]byte, trust bool, in event.Input) (hooks.Result, *trust.Loaded)
}

// Options are what every case shares.
type Options struct {
	// Paths are the wave home and the default project root (a case's
	// project takes its place).
	Paths settings.Paths
	// Trust runs the workspace's own hooks (--trust-workspace).
	Trust bool
}

// Outcome is how one case went.
type Outcome struct {
	Case *Case
	// Failures say what was expected and what came instead; none when it passed.
	Failures []string
	Duration time.Duration
	// Got is what the hooks decided.
	Got Got
}

// Passed reports whether every expectation held.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

// Got is what came out of a case's hooks, as the expectations read it.
type Got struct {
	Permission   string          `json:"permission"`
	Blocked      bool            `json:"blocked"`
	Reason       string          `json:"reason"`
	Context      []string        `json:"context"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	// UpdatedPrompt is UserPromptSubmit's rewritten prompt; "" for none.
	UpdatedPrompt string   `json:"updatedPrompt,omitempty"`
	Ran           []string `json:"ran"`
}

// Report is a whole run: each case's outcome and what the run wants said
// once (trust).
type Report struct {
	Outcomes []*Outcome
	// Notes are said once, before the cases: which workspace hooks ran.
	Notes []string
}

// Counts are the passed and failed cases.
func (r *Report) Counts() (passed, failed int) {
	for _, o := range r.Outcomes {
		if o.Passed() {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// Trusted is what the output says when --trust-workspace is given.
const Trusted = "workspace hooks trusted for this run (--trust-workspace)"

type prepared struct {
	c     *Case
	paths settings.Paths
	texts map[string][]byte
	in    event.Input
}

// Run prepares every case before any hook runs (a bad input is a
// *FileError at the case), then fires each in turn.
func Run(ctx context.Context, h Host, opts Options, cases []*Case) (*Report, error) {
	var todo []prepared
	for _, c := range cases {
		p := prepared{c: c, paths: opts.Paths}
		fail := func(format string, args ...any) error {
			return &FileError{File: c.File, Line: c.Line, Col: c.Col, Msg: fmt.Sprintf("case %q: ", c.Name) + fmt.Sprintf(format, args...)}
		}
		if c.Project != "" {
			st, err := os.Stat(c.Project)
			if err != nil || !st.IsDir() {
				return nil, fail("project %s is not a directory", c.Project)
			}
			p.paths.ProjectRoot = c.Project
		}
		if abs, err := filepath.Abs(p.paths.ProjectRoot); err == nil {
			p.paths.ProjectRoot = abs
		}
		if c.Settings != "" {
			text := c.settingsText // the bytes Guard checked against the trust
			if text == nil {
				var err error
				if text, err = os.ReadFile(c.Settings); err != nil {
					return nil, fail("settings: %v", err)
				}
			}
			p.texts = map[string][]byte{filepath.Join(p.paths.WaveHome, "settings.json"): text}
		}
		input := []byte(c.Input)
		if len(bytes.TrimSpace(input)) == 0 {
			input = []byte("{}")
		}
		in, err := h.Prepare(event.Event(c.Event), input, p.paths.ProjectRoot)
		if err != nil {
			return nil, fail("input: %v", err)
		}
		p.in = in
		todo = append(todo, p)
	}
	rep := &Report{}
	noted := map[string]bool{}
	for _, p := range todo {
		start := time.Now()
		res, loaded := h.Fire(ctx, p.paths, p.texts, opts.Trust, p.in)
		o := &Outcome{Case: p.c, Duration: time.Since(start), Got: gotOf(&res)}
		o.Failures = check(p.c, &o.Got)
		if note := trustNote(loaded, opts.Trust, p.paths.ProjectRoot); note != "" && !noted[note] {
			noted[note] = true
			rep.Notes = append(rep.Notes, note)
		}
		rep.Outcomes = append(rep.Outcomes, o)
		if err := ctx.Err(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// trustNote says plainly whether a project's own hooks ran: trusted for
// this run, trusted by the user before, or skipped as untrusted.
func trustNote(l *trust.Loaded, trusted bool, root string) string {
	if trusted {
		return Trusted
	}
	n := len(trust.WorkspaceCommands(l.Full))
	switch {
	case n == 0:
		return ""
	case l.Trusted:
		return fmt.Sprintf("workspace hooks of %s run: you trusted this workspace", safetext.Line(root, 0))
	}
	return fmt.Sprintf("workspace hooks of %s skipped as untrusted: %d hook(s) did not run (--trust-workspace runs them)",
		safetext.Line(root, 0), n)
}

func gotOf(res *hooks.Result) Got {
	g := Got{Permission: string(res.Permission), Blocked: res.Blocked, Reason: res.Reason,
		UpdatedInput: res.UpdatedInput, UpdatedPrompt: res.UpdatedPrompt, Context: []string{}, Ran: []string{}}
	if g.Permission == "" {
		g.Permission = "none"
	}
	g.Context = append(append(g.Context, res.Context...), res.AdditionalContext...)
	for _, r := range res.Runs {
		if r.Ran {
			g.Ran = append(g.Ran, r.Command)
		}
	}
	return g
}

// check lists every expectation of c that got does not meet.
func check(c *Case, got *Got) []string {
	var fails []string
	e := &c.Expect
	if e.Permission != nil && *e.Permission != got.Permission {
		fails = append(fails, fmt.Sprintf("expected permission %s, got %s", *e.Permission, got.Permission))
	}
	if e.Blocked != nil && *e.Blocked != got.Blocked {
		fails = append(fails, fmt.Sprintf("expected blocked %t, got %t", *e.Blocked, got.Blocked))
	}
	if c.reason != nil && !c.reason.match(got.Reason) {
		how := "containing"
		if c.reason.re != nil {
			how = "matching"
		}
		fails = append(fails, fmt.Sprintf("expected a reason %s %q, got %q", how, c.reason.text, got.Reason))
	}
	for _, want := range e.Context {
		if !containsIn(got.Context, want) {
			fails = append(fails, fmt.Sprintf("expected context containing %q, got %q", want, got.Context))
		}
	}
	if e.UpdatedInput != nil && !jsonEqual(e.UpdatedInput, got.UpdatedInput) {
		fails = append(fails, fmt.Sprintf("expected updatedInput %s, got %s", compact(e.UpdatedInput), compact(got.UpdatedInput)))
	}
	if e.UpdatedPrompt != nil {
		var want *string
		_ = json.Unmarshal(e.UpdatedPrompt, &want) // checked when the case was read
		got := quotedOrNone(got.UpdatedPrompt)
		switch {
		case want == nil && got != "none":
			fails = append(fails, "expected no updatedPrompt, got "+got)
		case want != nil && strconv.Quote(*want) != got:
			fails = append(fails, fmt.Sprintf("expected updatedPrompt %q, got %s", *want, got))
		}
	}
	for _, want := range e.Ran {
		if !containsIn(got.Ran, want) {
			fails = append(fails, fmt.Sprintf("expected a hook %q to run, got ran %q", want, got.Ran))
		}
	}
	for _, not := range e.NotRan {
		if containsIn(got.Ran, not) {
			fails = append(fails, fmt.Sprintf("expected no hook %q to run, got ran %q", not, got.Ran))
		}
	}
	return fails
}

func containsIn(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// jsonEqual compares two JSON texts as values (key order and spacing
// aside); an absent value equals null.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if len(a) == 0 {
		a = json.RawMessage("null")
	}
	if len(b) == 0 {
		b = json.RawMessage("null")
	}
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// quotedOrNone is a rewritten prompt as a failure quotes it, or "none".
func quotedOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}
