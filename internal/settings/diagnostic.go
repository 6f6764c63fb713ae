package settings

import (
	"fmt"
	"unicode/utf8"
)

// Severity ranks a configuration problem. Errors mean a hook (or a whole
// file) cannot run as written; warnings mean it runs but probably not as meant.
type Severity int

// Severities, numbered as LSP numbers them so the lsp package can pass them on.
const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
)

// String is the severity as compilers print it.
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	default:
		return "info"
	}
}

// MarshalText writes the severity as its name, for `wavehooks lint --format json`.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Position is a zero-based line and a zero-based column counted in UTF-16
// code units, the way LSP counts, so diagnostics land on the right character
// in every editor.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Range is a half-open span of a settings file.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Diagnostic codes: stable identifiers that code actions key their quick fixes on.
const (
	CodeSyntax          = "syntax"
	CodeNotObject       = "not-object"
	CodeUnknownEvent    = "unknown-event"
	CodeMatcherIgnored  = "matcher-ignored"
	CodeBadMatcher      = "bad-matcher"
	CodeUnknownHookType = "unknown-hook-type"
	CodeMissingType     = "missing-type"
	CodeEmptyCommand    = "empty-command"
	CodeBadTimeout      = "bad-timeout"
	CodeScriptMissing   = "script-missing"
	CodeNotExecutable   = "script-not-executable"
	CodeWrongType       = "wrong-type"
	CodeUnreadable      = "unreadable"
	// CodeUnknownKey is a key the settings format does not have (a typo,
	// mostly); Data is the suggested key, if any.
	CodeUnknownKey = "unknown-key"
	// CodeBadIf is an "if" rule that is malformed or can never match. Data
	// is the rule with its tool name corrected, when it names no tool and
	// one is likely meant ("write_file(*.env)" → "Write(*.env)").
	CodeBadIf = "bad-if"
	// Per-hook options.
	CodeBadCwd         = "bad-cwd"
	CodeBadEnv         = "bad-env"
	CodeBadArgs        = "bad-args"
	CodeExecCommand    = "exec-command"
	CodeNoCommandForOS = "no-command-for-os"
	// CodePluginPlaceholder is a ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PLUGIN_DATA}
	// outside a plugin, which Claude Code refuses to run.
	CodePluginPlaceholder = "plugin-placeholder"
	// Policy.
	CodeManagedOnly  = "managed-only-key"
	CodeHooksIgnored = "hooks-ignored"
	// CodeManagedHook marks each hook of a managed settings file (information).
	CodeManagedHook = "managed-hook"
	// CodeManagedEnabled is "enabled": false in a managed file, which is
	// ignored: managed hooks always run.
	CodeManagedEnabled = "managed-enabled-ignored"
	// CodeHookDrift is a hook of the user's own settings that something
	// other than wavehooks or the user's editor added or changed (drift.go).
	CodeHookDrift = "hook-drift"
)

// Diagnostic is one problem in one settings file, with the place it is at.
// Data carries what a quick fix needs (for example the suggested event name or
// the script path to make executable).
type Diagnostic struct {
	File     string   `json:"file"`
	Range    Range    `json:"range"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Data     string   `json:"data,omitempty"`
}

// String formats the diagnostic the way compilers do (1-based line:column),
// which terminals and editors turn into links.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", d.File, d.Range.Start.Line+1, d.Range.Start.Column+1, d.Severity, d.Message, d.Code)
}

// LineIndex converts between byte offsets of a settings file and
// positions (lines and UTF-16 columns, LSP's units): diagnostics are placed
// with it, and the server maps the editor's cursor and hover ranges with it.
type LineIndex struct {
	text   []byte
	starts []int  // byte offset of each line's first byte
	ascii  []bool // whether each line is all ASCII, where a column is a byte count

	// The last position computed on a line that is not all ASCII, where
	// columns must be counted rune by rune: a later position on that line
	// counts on from there, so that a long one-line file costs the distance
	// between its diagnostics, not the line's length for each of them.
	curLine, curOff, curCol int
}

// NewLineIndex indexes the lines of text.
func NewLineIndex(text []byte) *LineIndex {
	idx := &LineIndex{text: text, starts: []int{0}, curLine: -1}
	ascii := true
	for i, c := range text {
		switch {
		case c == '\n':
			idx.starts = append(idx.starts, i+1)
			idx.ascii = append(idx.ascii, ascii)
			ascii = true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	idx.ascii = append(idx.ascii, ascii)
	return idx
}

// Position is the position of a byte offset (clamped to the text).
func (x *LineIndex) Position(offset int) Position {
	if offset > len(x.text) {
		offset = len(x.text)
	}
	if offset < 0 {
		offset = 0
	}
	lo, hi := 0, len(x.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if x.starts[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if x.ascii[lo] {
		return Position{Line: lo, Column: offset - x.starts[lo]}
	}
	from, col := x.starts[lo], 0
	if x.curLine == lo && x.curOff <= offset {
		from, col = x.curOff, x.curCol
	}
	for b := x.text[from:offset]; len(b) > 0; {
		r, n := utf8.DecodeRune(b)
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		b = b[n:]
	}
	// Only a rune's first byte is a place to count on from: decoding stops
	// at every such byte whether or not the text is cut there.
	if offset == len(x.text) || utf8.RuneStart(x.text[offset]) {
		x.curLine, x.curOff, x.curCol = lo, offset, col
	}
	return Position{Line: lo, Column: col}
}

// Span is the range between two byte offsets.
func (x *LineIndex) Span(start, end int) Range {
	return Range{Start: x.Position(start), End: x.Position(end)}
}

// Offset is the byte offset of a position; a column past the end of its
// line, or a line past the end of the text, is clamped there.
func (x *LineIndex) Offset(p Position) int {
	if p.Line >= len(x.starts) {
		return len(x.text)
	}
	i, col := x.starts[max(p.Line, 0)], 0
	for i < len(x.text) && x.text[i] != '\n' && col < p.Column {
		r, n := utf8.DecodeRune(x.text[i:])
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		i += n
	}
	return i
}
