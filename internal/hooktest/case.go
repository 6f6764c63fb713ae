// Package hooktest runs hook tests without a model: a case file names an
// event, the JSON its hooks get on stdin and what must come out of them (a
// permission, a block, a reason, context, a rewritten tool input, which
// hooks ran), and every case runs the real hooks through the same engine
// `wavehooks run` uses, trust rules included. It is what lets a user check
// in CI that a guard hook still blocks what it must.
//
// The package knows case files, expectations and reports; the command line
// gives it the functions that build an input and fire an event (Host), so
// that a test runs exactly what `wavehooks run` runs.
package hooktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Case is one test: an event, its input, and what must come out.
type Case struct {
	// Name is shown in every report; by default the key of the case in an
	// object of cases, or the file's name (with #N in an array).
	Name string `json:"name"`
	// Event is the hook event, as in `wavehooks run EVENT`.
	Event string `json:"event"`
	// Input is the event's stdin JSON, as `wavehooks run` reads it: session
	// id, cwd and the rest are filled in when absent.
	Input json.RawMessage `json:"input"`
	// Settings names a settings file, relative to the case file, that
	// stands in for the user's own settings ($WAVE_HOME/settings.json).
	Settings string `json:"settings"`
	// Project is the project directory, relative to the case file; by
	// default --project or the current directory.
	Project string `json:"project"`
	// Expect is what must come out; at least one thing.
	Expect Expect `json:"expect"`

	// File, Line and Col are where the case is written.
	File      string `json:"-"`
	Line, Col int    `json:"-"`

	reason *matcher
	// text is the case file's contents as parsed: what the trust must
	// cover (Guard), not the file as it is by then.
	text []byte
	// settingsText is the settings file's contents as Guard checked them
	// against the trust; Run uses these bytes when set.
	settingsText []byte
}

// Expect lists what a case checks; what it leaves out is not checked.
type Expect struct {
	// Permission is the PreToolUse decision: allow, deny, ask, or none
	// (no hook decided).
	Permission *string `json:"permission,omitempty"`
	// Blocked: the prompt is blocked, feedback is due, or the agent must go on.
	Blocked *bool `json:"blocked,omitempty"`
	// Reason must contain this text, or match it when written /regex/.
	Reason *string `json:"reason,omitempty"`
	// Context: each text must be contained in the context the hooks added
	// (plain stdout where it is context, and additionalContext).
	Context Texts `json:"context,omitempty"`
	// UpdatedInput must equal, as JSON, the tool input the hooks rewrote;
	// null expects no rewrite.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// UpdatedPrompt must equal the prompt a UserPromptSubmit hook rewrote
	// (a JSON string); null expects no rewrite.
	UpdatedPrompt json.RawMessage `json:"updatedPrompt,omitempty"`
	// Ran and NotRan: a hook whose command contains each text ran, or none did.
	Ran    Texts `json:"ran,omitempty"`
	NotRan Texts `json:"notRan,omitempty"`
}

// Texts is one text or a list of them.
type Texts []string

// UnmarshalJSON takes a string or an array of strings.
func (t *Texts) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return fmt.Errorf("context, ran and notRan take a string or an array of strings, not null")
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = Texts{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("context, ran and notRan take a string or an array of strings")
	}
	*t = many
	return nil
}

func (e *Expect) empty() bool {
	return e.Permission == nil && e.Blocked == nil && e.Reason == nil && e.Context == nil &&
		e.UpdatedInput == nil && e.UpdatedPrompt == nil && e.Ran == nil && e.NotRan == nil
}

// matcher is a reason expectation: a substring, or a regular expression
// when written /…/.
type matcher struct {
	text string
	re   *regexp.Regexp
}

func newMatcher(s string) (*matcher, error) {
	if len(s) >= 2 && strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/") {
		re, err := regexp.Compile(s[1 : len(s)-1])
		if err != nil {
			return nil, err
		}
		return &matcher{text: s, re: re}, nil
	}
	return &matcher{text: s}, nil
}

func (m *matcher) match(s string) bool {
	if m.re != nil {
		return m.re.MatchString(s)
	}
	return strings.Contains(s, m.text)
}

// FileError is a case file that cannot be read as cases: where, and why.
type FileError struct {
	File      string
	Line, Col int // 0 when unknown
	Msg       string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// CaseSuffixes are how the names of case files end, when a directory is
// searched: the trust hash finds the workspace's case files by the same
// names (trust.CaseFileSuffixes).
var CaseSuffixes = trust.CaseFileSuffixes

// Find lists the case files of the paths: a file as named, a directory's
// files whose names end in .test.json or .test.jsonc, at any depth, sorted.
func Find(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isCaseFile(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no case files in it (names ending in %s)", p, strings.Join(CaseSuffixes, " or "))
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

func isCaseFile(name string) bool { return trust.IsCaseFileName(name) }

// Load reads every case of a case file: one case (an object with "event"),
// an array of cases, or an object whose members are cases named by their
// keys. JSONC comments and trailing commas are allowed. Any problem is a
// *FileError with the line and column of the case at fault.
func Load(file string) ([]*Case, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, &FileError{File: file, Msg: err.Error()}
	}
	return Parse(file, text)
}

var posRE = regexp.MustCompile(`line (\d+), column (\d+): (.*)$`)

// Parse is Load for the text of a case file.
func Parse(file string, text []byte) ([]*Case, error) {
	v, err := hujson.Parse(text)
	if err != nil {
		fe := &FileError{File: file, Msg: "invalid JSON: " + err.Error()}
		if m := posRE.FindStringSubmatch(err.Error()); m != nil {
			fe.Line, _ = strconv.Atoi(m[1])
			fe.Col, _ = strconv.Atoi(m[2])
			fe.Msg = "invalid JSON: " + m[3]
		}
		return nil, fe
	}
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".jsonc"), ".json")
	base = strings.TrimSuffix(base, ".test")
	type item struct {
		v    *hujson.Value
		name string
	}
	var items []item
	switch t := v.Value.(type) {
	case *hujson.Array:
		for i := range t.Elements {
			items = append(items, item{&t.Elements[i], fmt.Sprintf("%s#%d", base, i+1)})
		}
	case *hujson.Object:
		single := false
		for _, m := range t.Members {
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "event" {
				single = true
			}
		}
		if single {
			items = append(items, item{&v, base})
			break
		}
		for i := range t.Members {
			items = append(items, item{&t.Members[i].Value, t.Members[i].Name.Value.(hujson.Literal).String()})
		}
	default:
		return nil, &FileError{File: file, Line: 1, Col: 1, Msg: "a case file is a case, an array of cases, or an object of named cases"}
	}
	if len(items) == 0 {
		return nil, &FileError{File: file, Msg: "no cases in the file"}
	}
	cases := make([]*Case, 0, len(items))
	for _, it := range items {
		c, err := parseCase(file, text, it.v, it.name)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func parseCase(file string, text []byte, v *hujson.Value, name string) (*Case, error) {
	line, col := position(text, v.StartOffset)
	fail := func(format string, args ...any) error {
		return &FileError{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	// failAt is fail at the value of the member path names (event, expect.reason…), where there is one.
	failAt := func(path string, format string, args ...any) error {
		at := v
		for _, name := range strings.Split(path, ".") {
			if at = member(at, name); at == nil {
				return fail(format, args...)
			}
		}
		l, c := position(text, at.StartOffset)
		return &FileError{File: file, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fail("a case must be a JSON object")
	}
	std := v.Clone()
	std.Standardize()
	dec := json.NewDecoder(bytes.NewReader(std.Pack()))
	dec.DisallowUnknownFields()
	c := &Case{File: file, Line: line, Col: col, text: text}
	if err := dec.Decode(c); err != nil {
		return nil, fail("case %q: %s", name, strings.TrimPrefix(err.Error(), "json: "))
	}
	if c.Name == "" {
		c.Name = name
	}
	if c.Event == "" {
		return nil, fail("case %q: no event (known: %v)", c.Name, event.Events())
	}
	if _, ok := event.Spec(event.Event(c.Event)); !ok {
		return nil, failAt("event", "case %q: unknown event %q (known: %v)", c.Name, c.Event, event.Events())
	}
	if c.Expect.empty() {
		return nil, failAt("expect", "case %q: expect checks nothing (permission, blocked, reason, context, updatedInput, ran, notRan)", c.Name)
	}
	if p := c.Expect.Permission; p != nil {
		switch *p {
		case "allow", "deny", "ask", "none":
		default:
			return nil, failAt("expect.permission", "case %q: expect.permission is %q (want allow, deny, ask or none)", c.Name, *p)
		}
	}
	if r := c.Expect.Reason; r != nil {
		m, err := newMatcher(*r)
		if err != nil {
			return nil, failAt("expect.reason", "case %q: expect.reason: bad regular expression: %v", c.Name, err)
		}
		c.reason = m
	}
	if u := c.Expect.UpdatedInput; u != nil && !json.Valid(u) {
		return nil, fail("case %q: expect.updatedInput is not JSON", c.Name)
	}
	if u := c.Expect.UpdatedPrompt; u != nil {
		var s *string
		if err := json.Unmarshal(u, &s); err != nil {
			return nil, failAt("expect.updatedPrompt", "case %q: expect.updatedPrompt is %s (want the prompt as a string, or null for no rewrite)", c.Name, u)
		}
	}
	dir := filepath.Dir(file)
	if c.Settings != "" && !filepath.IsAbs(c.Settings) {
		c.Settings = filepath.Join(dir, c.Settings)
	}
	if c.Project != "" && !filepath.IsAbs(c.Project) {
		c.Project = filepath.Join(dir, c.Project)
	}
	return c, nil
}

// member is the value of the object member named name, or nil.
func member(v *hujson.Value, name string) *hujson.Value {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// position is the 1-based line and column (in bytes) of offset in text.
func position(text []byte, offset int) (int, int) {
	offset = min(offset, len(text))
	line := 1 + bytes.Count(text[:offset], []byte("\n"))
	col := offset - bytes.LastIndexByte(text[:offset], '\n')
	return line, col
}
