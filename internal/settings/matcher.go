package settings

import (
	"fmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"regexp"
	"strings"
)

// Matcher decides whether a hook group applies to a tool name (or to a
// SessionStart source, SessionEnd reason, ...), with Claude Code's rules: an
// empty matcher or "*" matches everything; a value made only of letters,
// digits, '_', '-', spaces, ',' and '|' is a list of exact names; anything
// else is an unanchored RE2 regular expression, so "mcp__github__.*" works.
type Matcher struct {
	raw   string
	all   bool
	names []string
	re    *regexp.Regexp
}

var exactListRE = regexp.MustCompile(`^[A-Za-z0-9_\- ,|]+$`)

// narrowListRE is the exact-list alphabet of FileChanged and StopFailure
// matchers, which Claude Code keeps narrower: a '-', ' ' or ',' makes the
// matcher a regex, and only '|' separates names.
var narrowListRE = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// CompileMatcher compiles a matcher; the error names what is wrong with a bad regex.
func CompileMatcher(s string) (*Matcher, error) { return compileMatcher(s, exactListRE, "|,") }

// CompileMatcherFor compiles a matcher of event ev: as CompileMatcher, with
// the narrower exact lists of FileChanged and StopFailure.
func CompileMatcherFor(ev event.Event, s string) (*Matcher, error) {
	if ev == event.FileChanged || ev == event.StopFailure {
		return compileMatcher(s, narrowListRE, "|")
	}
	return CompileMatcher(s)
}

func compileMatcher(s string, exact *regexp.Regexp, seps string) (*Matcher, error) {
	m := &Matcher{raw: s}
	switch t := strings.TrimSpace(s); {
	case t == "" || t == "*":
		m.all = true
	case exact.MatchString(t):
		for _, name := range strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if name = strings.TrimSpace(name); name != "" {
				m.names = append(m.names, name)
			}
		}
	default:
		re, err := regexp.Compile(t)
		if err != nil {
			return nil, fmt.Errorf("matcher %q is not a valid regular expression: %v", s, err)
		}
		m.re = re
	}
	return m, nil
}

// Match reports whether the matcher accepts the value.
func (m *Matcher) Match(value string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(value)
	}
	for _, n := range m.names {
		if n == value {
			return true
		}
	}
	return false
}

// Explain says in a sentence why the matcher does or does not accept value,
// for the hook-run history ("why didn't my hook fire?").
func (m *Matcher) Explain(value string) string {
	ok := m.Match(value)
	switch {
	case m.all:
		return "matches everything"
	case m.re != nil && ok:
		return fmt.Sprintf("matcher `%s` is a regex and matches `%s`", m.raw, value)
	case m.re != nil:
		return fmt.Sprintf("matcher `%s` is a regex and does not match `%s`", m.raw, value)
	case ok:
		return fmt.Sprintf("matcher `%s` lists `%s`", m.raw, value)
	default:
		return fmt.Sprintf("matcher `%s` is an exact list and does not include `%s`", m.raw, value)
	}
}

// String returns the matcher as written.
func (m *Matcher) String() string { return m.raw }

func MatcherRaw(m *Matcher) string {
	if m == nil {
		return ""
	}
	return m.raw
}
