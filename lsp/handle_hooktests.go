package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tailscale/hujson"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooktest"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// This file is the editors' side of `wavehooks test`: a "▶ Run tests" code
// lens on a hook test case file, and the wave.runTests command that runs
// the file's cases through internal/hooktest, the code the command line
// runs, with the workspace's trust rules, reports "N passed, M failed" and
// puts each failing case's failures on the case as diagnostics.

// commandRunTests runs the cases of one case file (argument: its path).
const commandRunTests = "wave.runTests"

// codeTestFailed is the code of a failing case's diagnostics.
const codeTestFailed = "wave.testFailed"

// maxCaseFileBytes bounds a case file the server reads: as a settings file.
const maxCaseFileBytes = settings.MaxSettingsFileBytes

// RunTestsResult is what wave.runTests did with a case file.
type RunTestsResult struct {
	// File is the case file, as the server read it.
	File string `json:"file"`
	// Passed and Failed count the cases.
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	// Notes are said once for the run: whether the workspace's own hooks
	// ran (trusted) or were skipped (untrusted), in plain words.
	Notes []string `json:"notes"`
	// Cases are the cases in the file's order.
	Cases []TestCaseResult `json:"cases"`
	// Error says why no case ran: the file is not a valid case file. The
	// place is a diagnostic on the file.
	Error string `json:"error,omitempty"`
	// Message is what the user was shown (window/showMessage).
	Message string `json:"message"`
}

// TestCaseResult is how one case went.
type TestCaseResult struct {
	Name string `json:"name"`
	// Line is the 0-based line where the case starts.
	Line   int  `json:"line"`
	Passed bool `json:"passed"`
	// Failures are the expectations that did not hold, each as
	// `wavehooks test` prints it ("expected permission deny, got none").
	Failures   []string `json:"failures"`
	DurationMs int64    `json:"durationMs"`
}

// testDiagnostics are the failing cases' diagnostics per case file, kept
// until the file's next run (which clears the cases that now pass).
type testDiagnostics struct {
	mu    sync.Mutex
	files map[string][]protocol.Diagnostic
}

func newTestDiagnostics() *testDiagnostics {
	return &testDiagnostics{files: map[string][]protocol.Diagnostic{}}
}

func (t *testDiagnostics) set(path string, d []protocol.Diagnostic) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(d) == 0 {
		delete(t.files, path)
		return
	}
	t.files[path] = d
}

func (t *testDiagnostics) forFile(path string) []protocol.Diagnostic {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.files[path]
}

// testCaseDiagnostics are the diagnostics of the hook tests last run on path.
func (s *Server) testCaseDiagnostics(path string) []protocol.Diagnostic {
	return s.testDiags.forFile(path)
}

// isCaseFileName reports whether a file's name is that of a hook test case
// file: it ends in .test.json or .test.jsonc, as `wavehooks test` finds
// them in a directory (hooktest.CaseSuffixes).
func isCaseFileName(path string) bool {
	base := filepath.Base(path)
	for _, suf := range hooktest.CaseSuffixes {
		if strings.HasSuffix(base, suf) && len(base) > len(suf) {
			return true
		}
	}
	return false
}

// inTestsDir reports whether path is in a directory where case files are
// kept: the project's .wave/tests (what `wavehooks test` runs by default)
// or any directory named hooktests (as testdata/hooktests).
func inTestsDir(path string) bool {
	dir := filepath.ToSlash(filepath.Dir(path))
	return strings.HasSuffix(dir, "/.wave/tests") || strings.Contains(dir+"/", "/.wave/tests/") ||
		strings.Contains(dir+"/", "/hooktests/")
}

// testLenses is the "▶ Run tests" lens of a hook test case file: a file
// named *.test.json(c) whose text reads as cases, or any file so named
// under .wave/tests or a hooktests directory (there a broken file gets the
// lens too, and running it shows what is wrong). Another file with such a
// name (a fixture of some other tool) gets none. ok is false for a file
// that is not a case file.
func (s *Server) testLenses(path string) (lenses []protocol.CodeLens, ok bool) {
	if !isCaseFileName(path) {
		return nil, false
	}
	text, err := safefile.ReadFile(path, maxCaseFileBytes)
	if err != nil {
		return nil, false
	}
	if _, err := hooktest.Parse(path, text); err != nil && !inTestsDir(path) {
		return nil, false
	}
	// Above the first line that holds something, where a reader starts.
	line := 0
	for i, l := range bytes.Split(text, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			line = i
			break
		}
	}
	at := protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line)}}
	return []protocol.CodeLens{{Range: at, Command: &protocol.Command{
		Title: "▶ Run tests", Command: commandRunTests, Arguments: []any{path}}}}, true
}

// runTestsCommand is wave.runTests: the cases of one case file run as
// `wavehooks test FILE` runs them (hooktest.Run, with the input built and
// the settings loaded as `wavehooks run` does), and trust decided as the
// server decides it for its events: an untrusted workspace's hooks do not
// run, and the result says so. It tells the user "N passed, M failed" and
// publishes each failing case's failures on the case's range; a run clears
// the diagnostics of the cases that now pass.
func (s *Server) runTestsCommand(ctx context.Context, args []any) (*RunTestsResult, error) {
	if len(args) != 1 {
		return nil, badParam("arguments", "%s takes [caseFile]", commandRunTests)
	}
	file, _ := args[0].(string)
	if file == "" || !filepath.IsAbs(file) {
		return nil, badParam("arguments[0]", "must be the absolute path of a case file")
	}
	file = filepath.Clean(file)
	if !isCaseFileName(file) {
		return nil, badParam("arguments[0]", "%q is not a hook test case file (a name ending in %s)",
			file, strings.Join(hooktest.CaseSuffixes, " or "))
	}
	res := &RunTestsResult{File: file, Notes: []string{}, Cases: []TestCaseResult{}}
	text, err := safefile.ReadFile(file, maxCaseFileBytes)
	if err != nil {
		return nil, badParam("arguments[0]", "%v", err)
	}
	u := uri.File(file)
	cases, err := hooktest.Parse(file, text)
	if err == nil {
		err = s.refuseUntrustedSettings(cases)
	}
	var rep *hooktest.Report
	if err == nil {
		rep, err = hooktest.Run(ctx, s.testHost(), hooktest.Options{Paths: s.paths}, cases)
	}
	var fe *hooktest.FileError
	if errors.As(err, &fe) {
		// A bad case file runs nothing, as on the command line: say where.
		res.Error = fe.Msg
		s.testDiags.set(file, []protocol.Diagnostic{fileErrorDiagnostic(text, fe)})
		s.publishDiagnostics(u)
		res.Message = fmt.Sprintf("Hook tests of %s did not run: %s", filepath.Base(file), safetext.Line(fe.Error(), promptReasonRune))
		s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: res.Message})
		return res, nil
	}
	if rep == nil {
		return nil, err // cancelled before any case ran
	}
	spans := caseSpans(text)
	idx := settings.NewLineIndex(text)
	var diags []protocol.Diagnostic
	for _, o := range rep.Outcomes {
		start := offsetOf(text, o.Case.Line, o.Case.Col)
		end, ok := spans[start]
		if !ok {
			end = start + 1
		}
		r := toRange(idx.Span(start, min(end, len(text))))
		c := TestCaseResult{Name: o.Case.Name, Line: int(r.Start.Line), Passed: o.Passed(),
			Failures: append([]string{}, o.Failures...), DurationMs: o.Duration.Milliseconds()}
		res.Cases = append(res.Cases, c)
		for _, f := range o.Failures {
			diags = append(diags, protocol.Diagnostic{Range: r, Severity: protocol.DiagnosticSeverityError,
				// The editors show a diagnostic's text as it is: a case name or a hook's text is escaped here.
				Code: codeTestFailed, Source: "wavehooks", Message: safetext.Line(fmt.Sprintf("case %q: %s", o.Case.Name, f), 0)})
		}
	}
	res.Passed, res.Failed = rep.Counts()
	for _, n := range rep.Notes {
		res.Notes = append(res.Notes, editorNote(n))
	}
	s.testDiags.set(file, diags)
	s.publishDiagnostics(u)
	msg := fmt.Sprintf("Hook tests of %s: %d passed, %d failed", filepath.Base(file), res.Passed, res.Failed)
	if err != nil { // cancelled midway: what ran is reported
		msg += fmt.Sprintf(" (stopped: %v)", err)
	}
	for _, n := range res.Notes {
		msg += "; " + n
	}
	res.Message = safetext.Line(msg, 0)
	typ := protocol.MessageTypeInfo
	if res.Failed > 0 || err != nil {
		typ = protocol.MessageTypeError
	}
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: res.Message})
	return res, nil
}

// refuseUntrustedSettings fails closed on a case that names a settings
// file of its own unless the user trusts the workspace: trusted its hooks
// in the trust store, or said to trust its hooks always. On the command
// line the user who types `wavehooks test` chooses to run such a file's
// hooks; in the editor one click on a lens of a repository's case file
// would run commands the repository wrote, without trust. A workspace with
// no hooks of its own counts as trusted for its events (there is nothing
// to trust) but was never trusted by anyone: it is refused too
// (trust.Loaded.UserTrusted, the condition `wavehooks test` checks too:
// trusted in the store for exactly its hash, hook tests included). The error
// is the case's, with its place, and no case runs.
func (s *Server) refuseUntrustedSettings(cases []*hooktest.Case) error {
	if l := s.engine.Loaded(); s.ws.AlwaysTrusted() || l.UserTrusted {
		return nil
	}
	for _, c := range cases {
		if c.Settings != "" {
			return &hooktest.FileError{File: c.File, Line: c.Line, Col: c.Col, Msg: fmt.Sprintf(
				"case %q names its own settings file (%s): the editor runs such a case only in a trusted workspace, "+
					"since its hooks are the repository's commands (trust the workspace, or run `wavehooks test` yourself)",
				c.Name, safetext.Line(c.Settings, 0))}
		}
	}
	return nil
}

// editorNote is a note of hooktest.Run in the editor's words: the command
// line's flag is no way to trust there.
func editorNote(n string) string {
	return strings.Replace(n, "(--trust-workspace runs them)", "(trust the workspace to run them)", 1)
}

// testHost fires a case's event as `wavehooks run` fires it (its input
// read and checked the same way, the workspace opened through the host
// with no session store and the case's settings texts), with trust decided
// as the server decides it: the trust store, or always when the editor said
// to trust this workspace's hooks. Each case gets a host and workspace of
// its own, so that its runs stay out of the server's history, closed once
// its hooks (async ones too) have ended.
func (s *Server) testHost() hooktest.Host {
	always := s.ws.AlwaysTrusted()
	return hooktest.Host{
		Prepare: host.PrepareInput,
		Fire: func(ctx context.Context, paths settings.Paths, texts map[string][]byte, _ bool, in event.Input) (hooks.Result, *trust.Loaded) {
			hc := host.Config{WaveHome: paths.WaveHome, ClaudeHome: paths.ClaudeHome, ManagedFile: paths.ManagedFile, ClaudeManagedDir: paths.ClaudeManagedDir}
			ws := host.New(hc).Open(paths.ProjectRoot, host.Options{
				NoStore:        true,
				Texts:          func() map[string][]byte { return texts },
				TrustWorkspace: always && filepath.Clean(paths.ProjectRoot) == s.root,
			})
			defer ws.Close()
			stop := context.AfterFunc(ctx, ws.Engine.Close)
			defer stop()
			res := ws.Engine.Fire(ctx, in)
			ws.Engine.Wait()
			return res, ws.Loaded()
		},
	}
}

// caseSpans maps the start offset of each case of a case file (as
// hooktest.Parse finds them: the file's one case, each element of an
// array, each member value of an object of cases) to its end offset.
func caseSpans(text []byte) map[int]int {
	out := map[int]int{}
	v, err := hujson.Parse(text)
	if err != nil {
		return out
	}
	add := func(x *hujson.Value) { out[x.StartOffset] = x.EndOffset }
	switch t := v.Value.(type) {
	case *hujson.Array:
		for i := range t.Elements {
			add(&t.Elements[i])
		}
	case *hujson.Object:
		add(&v)
		for i := range t.Members {
			add(&t.Members[i].Value)
		}
	}
	return out
}

// offsetOf is the byte offset of a 1-based line and byte column.
func offsetOf(text []byte, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return min(off+max(col-1, 0), len(text))
}

// fileErrorDiagnostic puts a bad case file's error where it is, or on the
// first line when the place is unknown.
func fileErrorDiagnostic(text []byte, fe *hooktest.FileError) protocol.Diagnostic {
	start := 0
	if fe.Line > 0 {
		start = offsetOf(text, fe.Line, fe.Col)
	}
	end := start
	if spans := caseSpans(text); spans[start] > start {
		end = spans[start]
	} else if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	} else {
		end = len(text)
	}
	return protocol.Diagnostic{Range: toRange(settings.NewLineIndex(text).Span(start, end)), Severity: protocol.DiagnosticSeverityError,
		Code: codeTestFailed, Source: "wavehooks", Message: safetext.Line(fe.Msg, 0)}
}
