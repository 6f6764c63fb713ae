package acp

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"

	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// toolState is everything a session learned about one tool call, merged
// from its tool_call, its tool_call_updates and its permission request.
type toolState struct {
	id        string
	metaName  string // _meta.claudeCode.toolName
	title     string
	kind      string
	status    string
	content   []json.RawMessage
	locations []acpmsg.ToolCallLocation
	rawInput  json.RawMessage
	rawOutput json.RawMessage

	// announced: the editor saw a tool_call for it (a permission request
	// alone does not create one in every editor).
	announced bool
	// recorded: its tool block is in the transcript.
	recorded bool
	// checked says where PreToolUse hooks decided on it ("" if nowhere).
	checked string
	// denied: a hook or the user refused it; its Post hooks do not run.
	denied bool
	// denyReason is why the proxy denied it at its permission request:
	// the agent's own later updates keep it on the tool card.
	denyReason string
	// finished: completed or failed was handled.
	finished bool
	// bridged: the agent's own PreToolUse hook handed the call to the hook
	// bridge, which ran the PreToolUse hooks (bridge.go).
	bridged *bridgedRun
	// judged is what the last PreToolUse decision that let the call go on
	// was made for (binding.go); nil before one, or after a deny.
	judged *judgment
	// userAllowed: the user allowed the call at the editor's prompt, a
	// decision no hook made.
	userAllowed bool

	// memo is what describe last decoded and encoded (describeMemo).
	memo describeMemo
}

// describeMemo keeps describe's last decoding of the call's rawInput and
// its last encoding of the tool_input: describe runs at least twice per
// tool call (recorded, finished) and the input is the agent's whole old and
// new file text, which decoding and encoding again made most of a tool
// call's cost (BenchmarkForwarding). Both are keyed on the bytes they came
// from, compared whole, so a changed input is never served from it.
type describeMemo struct {
	decoded bool
	raw     json.RawMessage // the rawInput in is the decoding of
	in      acpmsg.Object   // nil when raw is not an object
	key     acpmsg.Object   // the object out is the encoding of
	out     json.RawMessage
}

// input is rawInput decoded (decodeObject), in a map of the caller's own
// to change.
func (m *describeMemo) input(raw json.RawMessage) acpmsg.Object {
	if !m.decoded || !bytes.Equal(m.raw, raw) {
		m.in, _ = decodeObject(raw)
		m.raw, m.decoded = raw, true
	}
	if m.in == nil {
		return nil
	}
	return maps.Clone(m.in)
}

// encode is encodeObject(in), the last encoding again when in has the same
// members with the same bytes.
func (m *describeMemo) encode(in acpmsg.Object) json.RawMessage {
	if m.key == nil || !sameObject(m.key, in) {
		m.key, m.out = in, encodeObject(in)
	}
	return m.out[:len(m.out):len(m.out)] // an append by a caller copies
}

// sameObject says whether a and b have the same members with the same bytes.
func sameObject(a, b acpmsg.Object) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// merge applies an update; fields it leaves out keep their values.
func (t *toolState) merge(u *acpmsg.ToolCallUpdate) {
	if u.Title != nil {
		t.title = *u.Title
	}
	if u.Kind != nil {
		t.kind = *u.Kind
	}
	if u.Status != nil {
		t.status = *u.Status
	}
	if u.Content != nil {
		t.content = u.Content
	}
	if u.Locations != nil {
		t.locations = u.Locations
	}
	if !isNull(u.RawInput) {
		t.rawInput = u.RawInput
	}
	if !isNull(u.RawOutput) {
		t.rawOutput = u.RawOutput
	}
	if u.Meta != nil && u.Meta.ClaudeCode != nil && u.Meta.ClaudeCode.ToolName != "" {
		t.metaName = u.Meta.ClaudeCode.ToolName
	}
}

// toolDiff is a diff content item of a tool call (acpmsg.Diff) whose texts
// are kept as they came and unquoted only when used: describe needs them
// only for the input members the agent left out, and they are the file's
// whole old and new text, unquoted at every describe otherwise.
type toolDiff struct {
	Type    string          `json:"type"`
	Path    string          `json:"path"`
	OldText json.RawMessage `json:"oldText"`
	NewText json.RawMessage `json:"newText"`
}

// noOldText: the diff has no old text (a new file), as acpmsg.Diff's nil or
// empty OldText.
func (d *toolDiff) noOldText() bool { return isNull(d.OldText) || string(d.OldText) == `""` }

// oldText and newText are the texts, unquoted.
func (d *toolDiff) oldText() string { return unquoted(d.OldText) }
func (d *toolDiff) newText() string { return unquoted(d.NewText) }

func unquoted(raw json.RawMessage) string {
	var s string
	_ = decode(raw, &s)
	return s
}

// stringOrNull: raw is absent, null or a JSON string, as a string field of
// acpmsg.Diff must be for the item to decode.
func stringOrNull(raw json.RawMessage) bool { return isNull(raw) || raw[0] == '"' }

func (t *toolState) diff() (toolDiff, bool) {
	for _, c := range t.content {
		var d toolDiff
		if decode(c, &d) == nil && d.Type == "diff" && stringOrNull(d.OldText) && stringOrNull(d.NewText) {
			return d, true
		}
	}
	return toolDiff{}, false
}

// texts joins the text of the tool call's "content" items.
func (t *toolState) texts() string {
	var parts []string
	for _, c := range t.content {
		var tc acpmsg.ToolCallContent
		if decode(c, &tc) == nil && tc.Type == "content" && tc.Content.Type == "text" {
			parts = append(parts, tc.Content.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Tool names for ACP tool kinds, for agents that do not say which tool they
// run (docs/acp.md has the table). They are Claude Code's names where Claude
// Code has such a tool, so that matchers written for it apply.
var kindTools = map[string]string{
	"execute":     "Bash",
	"read":        "Read",
	"delete":      "Delete",
	"move":        "Move",
	"search":      "Grep",
	"fetch":       "WebFetch",
	"think":       "Think",
	"switch_mode": "SwitchMode",
	"other":       "Other",
}

// describe names the tool and builds the tool_input hooks read. The name is
// _meta.claudeCode.toolName when the agent gives it (claude-agent-acp does),
// else it follows from the kind and, for edits, the diff. The input is the
// agent's rawInput when it has one, with the fields Claude Code's tools
// have (command, file_path, content, …) filled in from the title, the
// locations and the diff when rawInput lacks them.
func (t *toolState) describe() (string, json.RawMessage) {
	d, hasDiff := t.diff()
	name := t.metaName
	if name == "" {
		switch t.kind {
		case "edit":
			if hasDiff && d.noOldText() {
				name = "Write"
			} else {
				name = "Edit"
			}
		default:
			name = kindTools[t.kind]
			if name == "" {
				name = "Other"
			}
		}
	}
	in := t.memo.input(t.rawInput)
	if in == nil {
		in = acpmsg.Object{}
		if !isNull(t.rawInput) {
			in["raw_input"] = t.rawInput // not an object: kept whole
		}
	}
	if len(t.rawInput) > 0 && t.metaName != "" && len(in) > 0 {
		return name, t.rawInput // the agent's own tool and input: nothing to add
	}
	path := firstString(in, "file_path", "path", "abs_path", "absolute_path")
	if path == "" && len(t.locations) > 0 {
		path = t.locations[0].Path
	}
	if path == "" && hasDiff {
		path = d.Path
	}
	set := func(key, value string) {
		if _, ok := in[key]; !ok && value != "" {
			in[key] = mustRaw(value)
		}
	}
	switch name {
	case "Bash":
		if s := firstString(in, "command"); s == "" {
			var argv []string
			if decode(in["command"], &argv) == nil && len(argv) > 0 {
				in["command"] = mustRaw(shellJoin(argv))
			} else {
				delete(in, "command")
				set("command", t.title)
			}
		}
	case "Write":
		set("file_path", path)
		if _, ok := in["content"]; !ok && hasDiff {
			set("content", d.newText())
		}
	case "Edit":
		set("file_path", path)
		if hasDiff {
			if _, ok := in["old_string"]; !ok && !isNull(d.OldText) {
				set("old_string", d.oldText())
			}
			if _, ok := in["new_string"]; !ok {
				set("new_string", d.newText())
			}
		}
	case "Read", "Delete":
		set("file_path", path)
	case "Move":
		set("file_path", path)
		if len(t.locations) > 1 {
			set("destination", t.locations[1].Path)
		}
	case "Grep":
		set("pattern", t.title)
	case "WebFetch":
		if strings.Contains(t.title, "://") {
			set("url", t.title)
		}
	}
	set("title", t.title)
	return name, t.memo.encode(in)
}

func firstString(obj acpmsg.Object, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := obj[k]; ok && decode(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// shellJoin joins a command and its arguments into one shell command line,
// quoting what a shell would otherwise split or expand.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// toolResponse is a finished tool's tool_response for PostToolUse hooks:
// its rawOutput when it has one, else the text of its content.
func (t *toolState) toolResponse() json.RawMessage {
	if !isNull(t.rawOutput) {
		return t.rawOutput
	}
	return mustRaw(t.texts())
}
