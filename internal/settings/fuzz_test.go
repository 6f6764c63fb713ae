package settings_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// FuzzParseFile feeds arbitrary text to the settings parser. ParseFile must
// never panic; every diagnostic must point inside the text; every hook it
// keeps must be runnable (what its type needs, a positive timeout);
// and a file without syntax errors must parse the same way twice, with
// comments and trailing commas removed, and when its hooks are written back
// as plain settings: the same hooks, in the same order.
//
// The seed corpus is testdata/fuzz/FuzzParseFile plus every settings file of
// ../testdata/config; run it with
//
//	go test -run '^$' -fuzz '^FuzzParseFile$' -fuzztime 30s ./hooks
func FuzzParseFile(f *testing.F) {
	root, err := filepath.Abs("../../testdata/config/project")
	if err != nil {
		f.Fatal(err)
	}
	files, _ := filepath.Glob("../../testdata/config/*.json")
	for _, p := range files {
		if text, err := os.ReadFile(p); err == nil {
			f.Add(text)
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		file := settings.ParseFile("settings.json", settings.SourceProject, text, root)
		checkRanges(t, text, file.Diagnostics)
		for i, h := range file.Hooks {
			if !runnable(h) || h.Timeout <= 0 || h.Matcher == nil {
				t.Fatalf("hook %d is kept but cannot run as configured: %+v", i, h)
			}
			if _, known := event.Spec(h.Event); !known {
				t.Fatalf("hook %d has an unknown event %q", i, h.Event)
			}
			checkRange(t, text, fmt.Sprintf("hook %d's command", i), h.CommandRange)
		}
		if len(strings.TrimSpace(string(text))) == 0 {
			if len(file.Hooks)+len(file.Diagnostics) != 0 {
				t.Fatalf("an empty file is an empty configuration, not %+v", file)
			}
			return
		}
		if hasSyntaxError(file) {
			if len(file.Hooks) != 0 {
				t.Fatalf("a file with a syntax error kept %d hooks", len(file.Hooks))
			}
			return
		}

		// Deterministic: the same text parses to the same hooks and diagnostics.
		again := settings.ParseFile("settings.json", settings.SourceProject, text, root)
		if a, b := hookList(file.Hooks), hookList(again.Hooks); a != b {
			t.Fatalf("two parses of one text differ:\n%s\n---\n%s", a, b)
		}
		if a, b := diagList(file.Diagnostics), diagList(again.Diagnostics); a != b {
			t.Fatalf("two parses of one text give different diagnostics:\n%s\n---\n%s", a, b)
		}

		// Comments and trailing commas change nothing.
		std, err := hujson.Standardize(append([]byte(nil), text...))
		if err != nil {
			t.Fatalf("ParseFile accepted text that hujson cannot standardize: %v", err)
		}
		plain := settings.ParseFile("settings.json", settings.SourceProject, std, root)
		if hasSyntaxError(plain) {
			t.Fatalf("the standardized text has a syntax error: %v", plain.Diagnostics)
		}
		if a, b := hookList(file.Hooks), hookList(plain.Hooks); a != b {
			t.Fatalf("removing comments and trailing commas changed the hooks:\n%s\n---\n%s", a, b)
		}

		// Round trip: the hooks written back as settings parse to the same hooks.
		back := settings.ParseFile("settings.json", settings.SourceProject, writeSettings(t, file.Hooks), root)
		if hasSyntaxError(back) {
			t.Fatalf("the written-back settings do not parse: %v", back.Diagnostics)
		}
		if a, b := hookList(file.Hooks), hookList(back.Hooks); a != b {
			t.Fatalf("hooks written back and parsed again differ:\n%s\n---\n%s", a, b)
		}
	})
}

func hasSyntaxError(f settings.File) bool {
	for _, d := range f.Diagnostics {
		if d.Code == settings.CodeSyntax {
			return true
		}
	}
	return false
}

// hookList describes hooks by what makes them run, one per line. Timeouts
// are compared to the millisecond: they go through a float of seconds.
func hookList(hs []settings.Hook) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d hooks\n", len(hs))
	for _, h := range hs {
		fmt.Fprintf(&b, "%s %q %q %q %dms", h.Event, h.Matcher.String(), h.Type, h.Command, h.Timeout.Round(time.Millisecond).Milliseconds())
		if h.Type != settings.TypeCommand || h.Shell != "" || h.Once {
			fmt.Fprintf(&b, " url=%q prompt=%q server=%q tool=%q shell=%q once=%v", h.URL, h.Prompt, h.Server, h.Tool, h.Shell, h.Once)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func diagList(ds []settings.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// writeSettings writes hooks back as a plain settings file, one matcher
// group per hook, in the order of the hooks: an event's key is written
// again where a file named it twice with another event between.
func writeSettings(t *testing.T, hs []settings.Hook) []byte {
	type entry struct {
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Timeout float64 `json:"timeout"`
		URL     string  `json:"url,omitempty"`
		Prompt  string  `json:"prompt,omitempty"`
		Server  string  `json:"server,omitempty"`
		Tool    string  `json:"tool,omitempty"`
		Shell   string  `json:"shell,omitempty"`
		Once    bool    `json:"once,omitempty"`
	}
	type group struct {
		Matcher string  `json:"matcher"`
		Hooks   []entry `json:"hooks"`
	}
	type run struct {
		event  event.Event
		groups []group
	}
	var runs []run
	for _, h := range hs {
		if len(runs) == 0 || runs[len(runs)-1].event != h.Event {
			runs = append(runs, run{event: h.Event})
		}
		r := &runs[len(runs)-1]
		r.groups = append(r.groups, group{h.Matcher.String(), []entry{{h.Type, h.Command, h.Timeout.Seconds(),
			h.URL, h.Prompt, h.Server, h.Tool, h.Shell, h.Once}}})
	}
	var b strings.Builder
	b.WriteString(`{"hooks": {`)
	for i, r := range runs {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(string(r.event))
		groups, err := json.Marshal(r.groups)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n%s: %s", name, groups)
	}
	b.WriteString("}}\n")
	return []byte(b.String())
}

func checkRanges(t *testing.T, text []byte, ds []settings.Diagnostic) {
	t.Helper()
	for _, d := range ds {
		if d.Message == "" || d.Code == "" {
			t.Fatalf("diagnostic without a message or code: %+v", d)
		}
		checkRange(t, text, "diagnostic "+d.String(), d.Range)
	}
}

// checkRange fails unless r is a well-ordered range whose ends are real
// positions of text: an existing line, and a column (in UTF-16 code units,
// as LSP counts) no further than that line's end.
func checkRange(t *testing.T, text []byte, what string, r settings.Range) {
	t.Helper()
	lines := strings.Split(string(text), "\n")
	for _, p := range []settings.Position{r.Start, r.End} {
		if p.Line < 0 || p.Line >= len(lines) || p.Column < 0 || p.Column > utf16Len(lines[p.Line]) {
			t.Fatalf("%s: position %+v is outside the text (%d lines)", what, p, len(lines))
		}
	}
	if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Column < r.Start.Column {
		t.Fatalf("%s: range ends before it starts: %+v", what, r)
	}
}

// utf16Len counts a line's UTF-16 code units; an invalid byte counts as
// one, as it does when an editor shows it as U+FFFD.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 && r != utf8.RuneError {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// runnable reports whether a kept hook has what its type needs to run.
func runnable(h settings.Hook) bool {
	switch h.Type {
	case settings.TypeCommand:
		return strings.TrimSpace(h.Command) != ""
	case settings.TypeHTTP:
		return strings.HasPrefix(h.URL, "http://") || strings.HasPrefix(h.URL, "https://")
	case settings.TypePrompt, settings.TypeAgent:
		return strings.TrimSpace(h.Prompt) != ""
	case settings.TypeMCPTool:
		return strings.TrimSpace(h.Server) != "" && strings.TrimSpace(h.Tool) != ""
	}
	return false
}
