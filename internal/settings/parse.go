package settings

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tailscale/hujson"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/rawjson"
	"github.com/wavehooks/wavehooks/internal/safefile"
	"github.com/wavehooks/wavehooks/internal/shellread"
)

// MaxSettingsFileBytes caps a settings file (wave's, Claude Code's, the
// managed file, one of VS Code's hook files), read from disk or sent as an
// editor's buffer: far above any real one (the largest example here is a few
// KiB), far below what would hurt the server. A larger file is not parsed;
// it gets one diagnostic (docs/protocol-limits.md, "Files the server reads").
const MaxSettingsFileBytes = 4 << 20

// MaxSettingsDepth is how deeply arrays and objects may nest in a settings
// file: the wire's limit (rawjson.MaxDepth). hujson's parser recurses once per
// level, and a few megabytes of "[[[[" overflowed the stack, which no recover
// catches, before the workspace was even trusted.
const MaxSettingsDepth = rawjson.MaxDepth

// ReadSettingsText reads a settings file from disk through the bounded
// reader: without blocking (a FIFO), only a regular file (a symlink to
// /dev/zero or /dev/stdin is refused), at most MaxSettingsFileBytes.
func ReadSettingsText(path string) ([]byte, error) {
	return safefile.ReadFile(path, MaxSettingsFileBytes)
}

// ReadFile reads and parses one settings file from disk (ReadSettingsText).
// A file that cannot be read safely gets one diagnostic and no hooks; the
// other files' hooks are not affected.
func ReadFile(path string, src Source, projectRoot string) File {
	text, err := ReadSettingsText(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{Path: path, Source: src}
	case err != nil:
		return File{Path: path, Source: src, Exists: true, Diagnostics: []Diagnostic{{
			File: path, Severity: SeverityError, Code: CodeUnreadable, Message: "cannot read settings file: " + UnreadableReason(path, err)}}}
	}
	return ParseFile(path, src, text, projectRoot)
}

// UnreadableReason says why a settings file was not read, without repeating
// its path (the diagnostic is already about that file).
func UnreadableReason(path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err.Error()
	}
	return err.Error()
}

var hujsonPosRE = regexp.MustCompile(`line (\d+), column (\d+): (.*)$`)

// ParseFile parses the text of one settings file. Comments and trailing
// commas are allowed. Every problem becomes a positioned Diagnostic; hooks
// that are still usable are kept.
func ParseFile(path string, src Source, text []byte, projectRoot string) File {
	f := File{Path: path, Source: src, Exists: true}
	if len(text) > MaxSettingsFileBytes {
		f.Diagnostics = append(f.Diagnostics, Diagnostic{File: path, Severity: SeverityError, Code: CodeUnreadable,
			Message: "cannot read settings file: " + (&safefile.TooLargeError{Size: int64(len(text)), Limit: MaxSettingsFileBytes}).Error()})
		return f
	}
	idx := NewLineIndex(text)
	p := &fileParser{file: &f, idx: idx, root: projectRoot}
	if len(strings.TrimSpace(string(text))) == 0 {
		return f // an empty file is an empty configuration
	}
	if at := rawjson.TooDeepAt(text, MaxSettingsDepth); at >= 0 {
		f.Diagnostics = append(f.Diagnostics, Diagnostic{File: path, Range: idx.Span(at, at+1), Severity: SeverityError, Code: CodeSyntax,
			Message: fmt.Sprintf("invalid JSON: arrays and objects nest deeper than %d levels", MaxSettingsDepth)})
		return f
	}
	v, err := hujson.Parse(text)
	if err != nil {
		d := Diagnostic{File: path, Severity: SeverityError, Code: CodeSyntax, Message: "invalid JSON: " + err.Error()}
		if m := hujsonPosRE.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			off := idx.starts[min(line-1, len(idx.starts)-1)] + col - 1
			d.Range = idx.Span(off, min(off+1, len(text)))
			d.Message = "invalid JSON: " + m[3]
		}
		f.Diagnostics = append(f.Diagnostics, d)
		return f
	}
	p.parseRoot(&v)
	p.checkShadowed()
	p.noteManaged()
	return f
}

// noteManaged adds to each hook of a managed settings file an information
// diagnostic saying so, which lint prints and the editors show on the hook:
// the user sees which hooks no setting of theirs turns off, and where they
// come from.
func (p *fileParser) noteManaged() {
	if p.file.Source != SourceManaged {
		return
	}
	for i := range p.file.Hooks {
		h := &p.file.Hooks[i]
		p.file.Diagnostics = append(p.file.Diagnostics, Diagnostic{File: p.file.Path, Range: h.Place.Range, Severity: SeverityInfo,
			Code: CodeManagedHook, Message: fmt.Sprintf("managed %s hook from the managed settings %s: it always runs; "+
				"disableAllHooks in user or project settings, \"enabled\": false and the toggles do not turn it off", h.Event, p.file.Path)})
	}
}

type fileParser struct {
	file *File
	idx  *LineIndex
	root string
	// agentEvent and agentTools are, in another agent's file, the event
	// being read as its file names it and the tools that name implies.
	agentEvent, agentTools string
}

// agentMatcher is a matcher of the file's agent over Claude Code's tool
// names; in a file of ours, the matcher itself. A matcher of an event that
// implies its tools (Cursor's beforeShellExecution) keeps those.
func (p *fileParser) agentMatcher(s string) string {
	a := p.file.Source.Agent()
	if a == "" {
		return s
	}
	if p.agentTools != "" {
		return p.agentTools
	}
	return agentfmt.MatcherToClaude(a, s)
}

// parseAgentList reads importAgentHooks: a list of agent names.
func (p *fileParser) parseAgentList(v *hujson.Value, key string) []agentfmt.Agent {
	if !p.fits(v, SettingsKeyShapes[key], key+` must be a list of agent names, like ["gemini", "codex", "cursor"]`) {
		return nil
	}
	out := []agentfmt.Agent{}
	for i := range v.Value.(*hujson.Array).Elements {
		el := &v.Value.(*hujson.Array).Elements[i]
		a, err := agentfmt.Parse(el.Value.(hujson.Literal).String())
		if err != nil {
			p.report(el, SeverityError, CodeWrongType, err.Error(), "")
			continue
		}
		out = append(out, a)
	}
	return out
}

// stat is os.Stat for the checks that look at the files a hook names (its
// cwd, its script): the path is recorded in the file's probed, since what
// the check finds is part of what the file loads as (Config.Inputs).
func (p *fileParser) stat(path string) (os.FileInfo, error) {
	p.file.probed = append(p.file.probed, path)
	return os.Stat(path)
}

func (p *fileParser) report(v *hujson.Value, sev Severity, code, msg, data string) {
	p.file.Diagnostics = append(p.file.Diagnostics, Diagnostic{
		File: p.file.Path, Range: p.idx.Span(v.StartOffset, v.EndOffset), Severity: sev, Code: code, Message: msg, Data: data})
}

func (p *fileParser) parseRoot(v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeNotObject, "a settings file must be a JSON object", "")
		return
	}
	if p.file.Source.Agent() != "" {
		// Another agent's file: only its hooks are ours to read; its
		// other keys are its agent's settings.
		for i := range obj.Members {
			if m := &obj.Members[i]; memberName(m) == "hooks" {
				r := p.idx.Span(m.Name.StartOffset, m.Name.EndOffset)
				p.file.hooksKey = &r
				p.parseHooks(&m.Value)
			}
		}
		return
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		switch name := memberName(m); name {
		case "hooks":
			r := p.idx.Span(m.Name.StartOffset, m.Name.EndOffset)
			p.file.hooksKey = &r
			p.parseHooks(&m.Value)
		case "disableAllHooks":
			r := p.idx.Span(m.Name.StartOffset, m.Name.EndOffset)
			p.file.disableKey = &r
			p.file.Settings.DisableAllHooks = p.boolValue(&m.Value, name)
		case "importClaudeHooks":
			p.file.Settings.ImportClaudeHooks = p.boolValue(&m.Value, name)
		case "importVSCodeHooks":
			p.file.Settings.ImportVSCodeHooks = p.boolValue(&m.Value, name)
		case "importAgentHooks":
			p.file.Settings.ImportAgentHooks = p.parseAgentList(&m.Value, name)
		case "allowManagedHooksOnly":
			b := p.boolValue(&m.Value, name)
			if b != nil && p.file.Source != SourceManaged {
				p.report(&m.Name, SeverityWarning, CodeManagedOnly,
					"allowManagedHooksOnly only takes effect in the managed settings file; it is ignored here", "")
				b = nil
			}
			p.file.Settings.AllowManagedHooksOnly = b
		case "driftRequiresApproval":
			b := p.boolValue(&m.Value, name)
			if b != nil && p.file.Source != SourceUser && p.file.Source != SourceManaged {
				p.report(&m.Name, SeverityWarning, CodeManagedOnly,
					"driftRequiresApproval only takes effect in the user's or the managed settings file; it is ignored here", "")
				b = nil
			}
			p.file.Settings.DriftRequiresApproval = b
		case "allowedHttpHookUrls":
			p.file.Settings.AllowedHTTPHookURLs = p.parsePolicyList(&m.Value, name)
		case "httpHookAllowedEnvVars":
			p.file.Settings.HTTPHookAllowedEnvVars = p.parsePolicyList(&m.Value, name)
		case "transcriptFormat":
			shape := SettingsKeyShapes[name]
			if s, ok := p.stringValue(&m.Value, name, shape); ok {
				if !shape.allows(s) {
					p.report(&m.Value, SeverityError, CodeWrongType, name+" must be "+quotedList(shape.Enum, "or"), "")
				} else {
					p.file.Settings.TranscriptFormat = s
				}
			}
		default:
			// Settings files hold other programs' settings too (Claude Code's
			// permissions, model, …): only a near miss of ours is worth a word.
			p.unknownKey(m, "setting", RootKeys, true)
		}
	}
}

func memberName(m *hujson.ObjectMember) string {
	lit, _ := m.Name.Value.(hujson.Literal)
	return lit.String()
}

// boolValue reads a settings file's true/false key (SettingsKeyShapes).
func (p *fileParser) boolValue(v *hujson.Value, key string) *bool {
	if !SettingsKeyShapes[key].fits(v) {
		p.report(v, SeverityError, CodeWrongType, key+" must be true or false", "")
		return nil
	}
	b := v.Value.(hujson.Literal).Bool()
	return &b
}

// stringValue reads a key whose shape is a string.
func (p *fileParser) stringValue(v *hujson.Value, key string, shape KeyShape) (string, bool) {
	if !shape.is(v) {
		p.report(v, SeverityError, CodeWrongType, key+" must be a string", "")
		return "", false
	}
	return v.Value.(hujson.Literal).String(), true
}

// fits reports whether v fits shape, and reports msg if it does not.
func (p *fileParser) fits(v *hujson.Value, shape KeyShape, msg string) bool {
	if shape.fits(v) {
		return true
	}
	p.report(v, SeverityError, CodeWrongType, msg, "")
	return false
}

// quotedList writes values as "a", "b" and "c" (conj "and") or "a" or "b".
func quotedList(values []string, conj string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

func (p *fileParser) parseHooks(v *hujson.Value) {
	if !SettingsKeyShapes["hooks"].is(v) {
		p.report(v, SeverityError, CodeWrongType, `"hooks" must be an object of event names`, "")
		return
	}
	obj := v.Value.(*hujson.Object)
	agent := p.file.Source.Agent()
	for i := range obj.Members {
		m := &obj.Members[i]
		ev := event.Event(memberName(m))
		var mapping agentfmt.Mapping
		if agent != "" {
			var ok bool
			if mapping, ok = agentfmt.EventFor(agent, string(ev)); !ok {
				p.report(&m.Name, SeverityInfo, CodeUnknownEvent, fmt.Sprintf(
					"%s's event %q has no wavehooks event: its hooks run only in %s itself", agent, ev, agent), "")
				continue
			}
			p.agentEvent, p.agentTools = string(ev), mapping.Tools
			ev = mapping.Event
		} else if _, known := event.Spec(ev); !known {
			sugg := closestEvent(string(ev))
			msg := fmt.Sprintf("unknown hook event %q", ev)
			if sugg != "" {
				msg += fmt.Sprintf("; did you mean %q?", sugg)
			}
			p.report(&m.Name, SeverityError, CodeUnknownEvent, msg, string(sugg))
			continue
		}
		groups, ok := m.Value.Value.(*hujson.Array)
		if !ok {
			p.report(&m.Value, SeverityError, CodeWrongType, fmt.Sprintf("%s must be an array of matcher groups", ev), "")
			continue
		}
		for j := range groups.Elements {
			el := &groups.Elements[j]
			if (p.file.Source == SourceVSCode || agent == agentfmt.Cursor) && !isGroup(el) {
				// VS Code's and Cursor's formats list hook commands directly under the event.
				all, _ := CompileMatcherFor(ev, p.agentTools)
				if h, ok := p.parseHook(ev, all, el, HookPlace{Group: j, Index: -1}); ok {
					p.file.Hooks = append(p.file.Hooks, h)
				}
				continue
			}
			p.parseGroup(ev, el, j)
		}
	}
}

func (p *fileParser) parseGroup(ev event.Event, v *hujson.Value, group int) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeWrongType, `a matcher group must be an object with "matcher" and "hooks"`, "")
		return
	}
	matcher, _ := CompileMatcherFor(ev, p.agentTools)
	var hooksVal *hujson.Value
	off := false
	for i := range obj.Members {
		m := &obj.Members[i]
		switch memberName(m) {
		case "matcher":
			s, ok := p.stringValue(&m.Value, "matcher", stringShape)
			if !ok {
				return
			}
			s = p.agentMatcher(s)
			compiled, err := CompileMatcherFor(ev, s)
			if err != nil {
				p.report(&m.Value, SeverityError, CodeBadMatcher, err.Error()+"; this group's hooks will not run", "")
				return
			}
			matcher = compiled
			p.checkMatcherNames(ev, &m.Value, compiled)
			if !ev.UsesMatcher() && strings.TrimSpace(s) != "" && strings.TrimSpace(s) != "*" {
				p.report(&m.Value, SeverityWarning, CodeMatcherIgnored,
					fmt.Sprintf("%s ignores matchers: these hooks run on every %s", ev, ev), "")
			}
		case "hooks":
			hooksVal = &m.Value
		case "enabled":
			off = p.enabledOff(&m.Value, "matcher group")
		case "sequential":
			if p.file.Source.Agent() == "" {
				p.unknownKey(m, "matcher group", GroupKeys, false)
			}
		default:
			p.unknownKey(m, "matcher group", GroupKeys, false)
		}
	}
	if hooksVal == nil {
		p.report(v, SeverityError, CodeWrongType, `a matcher group needs a "hooks" array`, "")
		return
	}
	arr, ok := hooksVal.Value.(*hujson.Array)
	if !ok {
		p.report(hooksVal, SeverityError, CodeWrongType, `"hooks" must be an array of hook objects`, "")
		return
	}
	for i := range arr.Elements {
		if h, ok := p.parseHook(ev, matcher, &arr.Elements[i], HookPlace{Group: group, Index: i, GroupDisabled: off}); ok {
			p.file.Hooks = append(p.file.Hooks, h)
		}
	}
}

// enabledOff reads "enabled" on a hook or matcher group: true when it is
// false. A value that is not a boolean is an error and leaves the hook on
// (as if the key were absent: Claude Code ignores the key).
func (p *fileParser) enabledOff(v *hujson.Value, what string) bool {
	if !p.fits(v, HookKeyShapes["enabled"], fmt.Sprintf("enabled must be true or false; the %s stays on", what)) {
		return false
	}
	off := !v.Value.(hujson.Literal).Bool()
	if off && p.file.Source == SourceManaged {
		p.report(v, SeverityWarning, CodeManagedEnabled, fmt.Sprintf(`managed hooks always run: "enabled": false is ignored in the managed settings %s; remove the %s to stop it`,
			p.file.Path, what), "")
		return false
	}
	return off
}

// isGroup reports whether v is a matcher group (an object with "hooks")
// rather than a hook command.
func isGroup(v *hujson.Value) bool {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return false
	}
	for i := range obj.Members {
		if memberName(&obj.Members[i]) == "hooks" {
			return true
		}
	}
	return false
}

// osKey is the key of VS Code's per-OS command override for this OS.
var osKey = map[string]string{"linux": "linux", "darwin": "osx", "windows": "windows"}[runtime.GOOS]

func (p *fileParser) parseHook(ev event.Event, matcher *Matcher, v *hujson.Value, place HookPlace) (Hook, bool) {
	place.Range = p.idx.Span(v.StartOffset, v.EndOffset)
	h := Hook{Event: ev, Matcher: matcher, Timeout: defaultTimeout(ev, p.file.Source), Source: p.file.Source, File: p.file.Path,
		Place: place, Disabled: place.GroupDisabled, AgentEvent: p.agentEvent}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.report(v, SeverityError, CodeWrongType, `a hook must be an object like {"type": "command", "command": "..."}`, "")
		return h, false
	}
	var cmdVal, overrideVal *hujson.Value
	var overrides []string
	valid := true
	for i := range obj.Members {
		m := &obj.Members[i]
		switch name := memberName(m); name {
		case "type":
			s, ok := p.stringValue(&m.Value, name, HookKeyShapes[name])
			if !ok {
				return h, false
			}
			h.Type = s
			if !HookKeyShapes[name].allows(s) {
				p.report(&m.Value, SeverityError, CodeUnknownHookType, fmt.Sprintf(
					"unknown hook type %q: the types are %s; this hook will not run", s, quotedList(HookKeyShapes[name].Enum, "and")), closestType(s))
				valid = false
			}
		case "command":
			s, ok := p.stringValue(&m.Value, name, HookKeyShapes[name])
			if !ok {
				return h, false
			}
			h.Command, cmdVal = s, &m.Value
		case "linux", "osx", "windows":
			if !p.fits(&m.Value, HookKeyShapes[name], name+" must be a string; this hook will not run") {
				valid = false
				continue
			}
			overrides = append(overrides, name)
			if name == osKey {
				overrideVal = &m.Value // replaces command, wherever either is written
			}
		case "timeout":
			if !HookKeyShapes[name].fits(&m.Value) {
				p.report(&m.Value, SeverityError, CodeBadTimeout,
					fmt.Sprintf("timeout must be a positive number of seconds; the default %s applies", Seconds(h.Timeout)), "")
				continue
			}
			h.Timeout = secondsToDuration(m.Value.Value.(hujson.Literal).Float())
			if p.file.Source.Agent() == agentfmt.Gemini {
				h.Timeout = secondsToDuration(m.Value.Value.(hujson.Literal).Float() / 1000) // Gemini CLI's are milliseconds
			}
		case "matcher", "name", "description", "failClosed", "loop_limit":
			// Cursor's per-hook matcher; Gemini CLI's name and description;
			// Cursor's failClosed and loop_limit (docs/parity.md: unmapped).
			switch {
			case name == "matcher" && p.file.Source.Agent() == agentfmt.Cursor:
				if s, ok := p.stringValue(&m.Value, name, stringShape); ok {
					if c, err := CompileMatcherFor(ev, p.agentMatcher(s)); err != nil {
						p.report(&m.Value, SeverityError, CodeBadMatcher, err.Error()+"; this hook will not run", "")
						valid = false
					} else {
						h.Matcher = c
					}
				}
			case p.file.Source.Agent() == "":
				p.unknownKey(m, "hook", HookKeys, false)
			}
		case "args":
			valid = p.parseArgs(&m.Value, &h) && valid
		case "cwd":
			valid = p.parseCwd(&m.Value, &h) && valid
		case "env":
			valid = p.parseEnv(&m.Value, &h) && valid
		case "statusMessage":
			if s, ok := p.stringValue(&m.Value, name, HookKeyShapes[name]); ok {
				h.StatusMessage = s
			}
		case "if":
			valid = p.parseIf(ev, &m.Value, &h) && valid
			if h.If != nil {
				if _, never := h.If.Problems(ev); !never {
					p.checkIfMatcher(ev, matcher, &m.Value, &h)
				}
			}
		case "async":
			if !HookKeyShapes[name].fits(&m.Value) {
				p.report(&m.Value, SeverityError, CodeWrongType, "async must be true or false; the hook runs in the foreground", "")
				continue
			}
			h.Async = m.Value.Value.(hujson.Literal).Bool()
		case "enabled":
			h.Disabled = p.enabledOff(&m.Value, "hook") || place.GroupDisabled
		case "url", "headers", "allowedEnvVars", "prompt", "model", "continueOnBlock", "server", "tool", "input",
			"once", "shell", "asyncRewake", "onFailure":
			// read by applyTyped, once the type is known
		default:
			if !otherHookTypeKeys[name] {
				p.unknownKey(m, "hook", HookKeys, false)
			}
		}
	}
	h, ok = p.finishHook(h, v, cmdVal, overrideVal, overrides, valid)
	return h, ok
}

// finishHook applies the OS override and checks what needs the whole hook:
// its type, that it has a command for this OS, and the script or program it runs.
func (p *fileParser) finishHook(h Hook, v, cmdVal, overrideVal *hujson.Value, overrides []string, valid bool) (Hook, bool) {
	if overrideVal != nil {
		lit, _ := overrideVal.Value.(hujson.Literal)
		h.Command, cmdVal = lit.String(), overrideVal
	}
	if cmdVal != nil {
		h.CommandRange = p.idx.Span(cmdVal.StartOffset, cmdVal.EndOffset)
	}
	if h.Type == "" {
		p.report(v, SeverityWarning, CodeMissingType, `hook has no "type"; it runs as a "command" hook`, "command")
		h.Type = "command"
	}
	if h, valid = p.applyTyped(h, v, valid); h.Type != TypeCommand {
		return h, valid
	}
	if !valid {
		return h, false
	}
	if !HookKeyShapes["command"].allows(h.Command) {
		if cmdVal == nil && len(overrides) > 0 {
			p.report(v, SeverityWarning, CodeNoCommandForOS, fmt.Sprintf(
				"hook has a command for %s but none for this system (%s) and no \"command\"; it will not run here",
				strings.Join(overrides, ", "), osKey), osKey)
			return h, false
		}
		target := v
		if cmdVal != nil {
			target = cmdVal
		}
		p.report(target, SeverityError, CodeEmptyCommand, "hook command is empty; this hook will not run", "")
		return h, false
	}
	switch {
	case PluginPlaceholder(&h) != "":
		p.report(cmdVal, SeverityError, CodePluginPlaceholder, ErrPluginPlaceholder(PluginPlaceholder(&h)).Error()+
			"; this hook will not run", "")
	case h.Args != nil:
		p.checkProgram(cmdVal, &h)
	default:
		p.checkScript(cmdVal, h.Command, h.Cwd)
	}
	return h, true
}

// secondsToDuration converts a configured timeout and keeps it positive:
// seconds beyond what a Duration holds (about 292 years) would overflow to a
// negative Duration, and a fraction of a nanosecond would round to zero;
// either would time the hook out before it started.
func secondsToDuration(secs float64) time.Duration {
	ns := secs * float64(time.Second)
	if ns >= float64(math.MaxInt64) {
		return math.MaxInt64
	}
	return max(time.Duration(ns), 1)
}

// parseIf reads the hook's "if" rule (Claude Code's permission-rule syntax).
// A rule that can never match keeps the hook, with an error saying so: the
// run history then says why it never runs.
func (p *fileParser) parseIf(ev event.Event, v *hujson.Value, h *Hook) bool {
	if !p.fits(v, HookKeyShapes["if"], `"if" must be a string holding one permission rule, like "Bash(git *)"; this hook will not run`) {
		return false
	}
	h.If = ParseIfRule(v.Value.(hujson.Literal).String())
	problems, never := h.If.Problems(ev)
	for _, msg := range problems {
		sev := SeverityWarning
		if never {
			sev = SeverityError
		}
		p.report(v, sev, CodeBadIf, msg, h.If.Correction())
	}
	return true
}

// parseArgs reads the exec form's argument list: strings only.
func (p *fileParser) parseArgs(v *hujson.Value, h *Hook) bool {
	shape := HookKeyShapes["args"]
	if !shape.is(v) {
		p.report(v, SeverityError, CodeBadArgs, `args must be an array of strings, e.g. ["--fix", "src"]; this hook will not run`, "")
		return false
	}
	arr := v.Value.(*hujson.Array)
	args, valid := []string{}, true
	for i := range arr.Elements {
		el := &arr.Elements[i]
		if !shape.Elem.fits(el) {
			p.report(el, SeverityError, CodeBadArgs, fmt.Sprintf("args[%d] must be a string; this hook will not run", i), "")
			valid = false
			continue
		}
		args = append(args, el.Value.(hujson.Literal).String())
	}
	h.Args = args
	return valid
}

// parseCwd reads the hook's working directory: relative to the project root
// and inside it. A cwd that leads out of the project is refused, not fixed:
// the hook would run somewhere its author did not mean.
func (p *fileParser) parseCwd(v *hujson.Value, h *Hook) bool {
	if !p.fits(v, HookKeyShapes["cwd"], "cwd must be a string; this hook will not run") {
		return false
	}
	s := v.Value.(hujson.Literal).String()
	clean := filepath.Clean(s)
	switch {
	case filepath.IsAbs(s):
		p.report(v, SeverityError, CodeBadCwd, fmt.Sprintf("cwd must be relative to the project root, not the absolute path %q; this hook will not run", s), "")
		return false
	case clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)):
		p.report(v, SeverityError, CodeBadCwd, fmt.Sprintf("cwd %q leads outside the project root; this hook will not run", s), "")
		return false
	case clean == ".":
		clean = ""
	}
	h.Cwd = clean
	if p.root != "" && clean != "" {
		if st, err := p.stat(filepath.Join(p.root, clean)); err != nil || !st.IsDir() {
			p.report(v, SeverityWarning, CodeBadCwd, fmt.Sprintf("cwd %s is not a directory of the project; the hook will fail to start", clean), "")
		}
	}
	return true
}

// parseEnv reads the hook's extra environment: an object of strings. A
// value of another type is refused rather than converted or dropped: a hook
// run without the variable its author set could do what the variable was
// there to prevent.
func (p *fileParser) parseEnv(v *hujson.Value, h *Hook) bool {
	shape := HookKeyShapes["env"]
	if !shape.is(v) {
		p.report(v, SeverityError, CodeBadEnv, `env must be an object of "NAME": "value" strings; this hook will not run`, "")
		return false
	}
	obj, valid := v.Value.(*hujson.Object), true
	for i := range obj.Members {
		m := &obj.Members[i]
		name := memberName(m)
		if name == "" || strings.ContainsAny(name, "=\x00") {
			p.report(&m.Name, SeverityError, CodeBadEnv, fmt.Sprintf("%q is not a valid environment variable name; this hook will not run", name), "")
			valid = false
			continue
		}
		if !shape.Elem.fits(&m.Value) || strings.ContainsRune(m.Value.Value.(hujson.Literal).String(), 0) {
			p.report(&m.Value, SeverityError, CodeBadEnv, fmt.Sprintf("env.%s must be a string (quote numbers and booleans); this hook will not run", name), "")
			valid = false
			continue
		}
		h.Env = append(h.Env, name+"="+m.Value.Value.(hujson.Literal).String())
	}
	return valid
}

// checkScript flags a command whose first word is a script path that does not
// exist or is not executable: the hook would fail with exit 127 or 126. A
// command that hands a script to an interpreter ("python3 check.py") is
// checked too: the script must exist.
func (p *fileParser) checkScript(v *hujson.Value, command, cwd string) {
	dir := filepath.Join(p.root, cwd)
	if script := scriptPath(command, p.root, dir); script != "" {
		p.checkFile(v, script, false)
		return
	}
	interp, word := scriptGivenToInterpreter(command)
	if word == "" || p.root == "" && !filepath.IsAbs(word) {
		return
	}
	script := resolveScript(word, p.root, dir)
	if script == "" {
		return
	}
	if _, err := p.stat(script); err != nil {
		outcome := "the hook fails with an error every time"
		if missingScriptExit2[interp] {
			outcome = fmt.Sprintf("%s exits with code 2, a blocking error: every PreToolUse call is denied", interp)
		}
		p.report(v, SeverityError, CodeScriptMissing, fmt.Sprintf("script %s does not exist; %s", script, outcome), script)
	}
}

// missingScriptExit2 are the interpreters that exit with code 2 when their
// script is missing (measured with Debian's dash, python3 and perl).
var missingScriptExit2 = map[string]bool{"sh": true, "dash": true, "python": true, "python3": true, "perl": true}

// scriptGivenToInterpreter returns the interpreter and the script of a
// command of the form "INTERPRETER [options] SCRIPT …", read as trust reads
// it (InterpreterScript in trustfiles.go), so lint and trust agree on what
// a hook runs. Only a word that looks like a file (a path, or a name with an
// extension) counts, so that an option's value the reader does not know is
// never reported as a missing script.
func scriptGivenToInterpreter(command string) (interp, script string) {
	words := shellread.FirstCommandWords(command)
	if len(words) < 2 {
		return "", ""
	}
	script = shellread.InterpreterScript(words, true).Script
	if script == "" || !strings.ContainsAny(script, "/.") {
		return "", ""
	}
	return filepath.Base(words[0]), script
}

// checkProgram checks the program of an exec-form hook, which no shell
// splits or expands: a command with spaces or $VARIABLES is almost
// certainly written for the shell form.
func (p *fileParser) checkProgram(v *hujson.Value, h *Hook) {
	prog := h.Command
	if p.root != "" {
		prog = substituteProjectDir(prog, p.root) // as the runner does: internal/settings/placeholder.go
	}
	switch {
	case strings.ContainsAny(prog, "$`"):
		p.report(v, SeverityWarning, CodeExecCommand, fmt.Sprintf(
			"with \"args\", command is run without a shell: %q is not expanded; use a path relative to the project root, "+
				"or ${CLAUDE_PROJECT_DIR}, which is substituted", h.Command), "")
		return
	case strings.HasPrefix(prog, "~"):
		p.report(v, SeverityWarning, CodeExecCommand, "with \"args\", command is run without a shell: ~ is not expanded", "")
		return
	case strings.ContainsAny(prog, " \t") && !strings.ContainsRune(prog, '/'):
		p.report(v, SeverityWarning, CodeExecCommand, fmt.Sprintf(
			"with \"args\", command is the program to run, not a shell command line: put the words after %q in args", firstWord(prog)), "")
		return
	case !strings.ContainsRune(prog, '/') && (runtime.GOOS != "windows" || !strings.ContainsRune(prog, '\\')):
		return // a program looked up in PATH
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(p.root, h.Cwd, prog)
	}
	p.checkFile(v, prog, true)
}

// checkFile flags a script that is missing, a directory, or that cannot
// run by itself; ExecForm says the hook runs it with no shell ("args").
func (p *fileParser) checkFile(v *hujson.Value, script string, execForm bool) {
	if script == "" {
		return
	}
	st, err := p.stat(script)
	switch {
	case err != nil:
		p.report(v, SeverityError, CodeScriptMissing, fmt.Sprintf("script %s does not exist; the hook will fail with exit 127", script), script)
	case st.IsDir():
		p.report(v, SeverityError, CodeScriptMissing, fmt.Sprintf("%s is a directory, not a script", script), "")
	case runtime.GOOS == "windows" && !runsOnWindows(script, execForm):
		p.report(v, SeverityError, CodeNotExecutable, fmt.Sprintf("script %s cannot run by itself on Windows: %s", script,
			windowsRunnableHint(execForm)), script)
	case runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0:
		p.report(v, SeverityError, CodeNotExecutable, fmt.Sprintf("script %s is not executable; the hook will fail with exit 126", script), script)
	}
}

// runsOnWindows reports whether Windows runs the file as it is, which it
// decides by the file's extension and never by an exec bit (a Windows file
// has none: on main every script was called not executable there). An
// exec-form hook is started by CreateProcess, which runs programs (.exe,
// .com) and batch files (.bat, .cmd, through cmd.exe); a shell-form hook's
// command line is read by Git Bash, which also runs a script that starts
// with #! through the interpreter it names, or by PowerShell, which also
// runs .ps1.
func runsOnWindows(path string, execForm bool) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".exe", ".com", ".bat", ".cmd":
		return true
	case ".ps1":
		return !execForm
	}
	if execForm {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "#!"
}

// windowsRunnableHint says what a hook needs to run a script on Windows.
func windowsRunnableHint(execForm bool) string {
	if execForm {
		return "with \"args\", the program must be .exe, .com, .bat or .cmd; name the interpreter as the command and the script in args"
	}
	return "it needs a .exe, .com, .bat, .cmd or .ps1 extension or a #! line; or name its interpreter first (python3 script.py)"
}

// scriptPath returns the file a command runs directly when its first word
// is a path (./x.sh, /abs/x, $CLAUDE_PROJECT_DIR/x, ~/x), resolved against
// dir (the directory the hook runs in); "" when the command starts with a
// program name to look up in PATH, where a missing file is not something
// the settings can know.
func scriptPath(command, projectRoot, dir string) string {
	first := firstWord(command)
	// A path has a slash, or on Windows a backslash (filepath.Separator).
	if first == "" || !strings.ContainsRune(first, '/') && !strings.ContainsRune(first, filepath.Separator) {
		return ""
	}
	return resolveScript(first, projectRoot, dir)
}

// resolveScript turns a script word of a command into the file it names:
// the project-directory variables and ~ expanded, a relative path taken
// from dir; "" when only the shell could tell (other variables, globs).
func resolveScript(first, projectRoot, dir string) string {
	for _, v := range []string{"$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$WAVE_PROJECT_DIR", "${WAVE_PROJECT_DIR}"} {
		if strings.HasPrefix(first, v) {
			first = projectRoot + first[len(v):]
		}
	}
	if strings.HasPrefix(first, "~/") || strings.HasPrefix(first, "~"+string(filepath.Separator)) {
		home, _ := os.UserHomeDir()
		first = filepath.Join(home, first[2:])
	}
	if strings.ContainsAny(first, "$`*?[") {
		return "" // needs the shell to expand: nothing to check here
	}
	if !filepath.IsAbs(first) {
		first = filepath.Join(dir, first)
	}
	return first
}

// firstWord returns the first shell word of a command, with simple quoting removed.
func firstWord(command string) string {
	s := strings.TrimSpace(command)
	if s == "" {
		return ""
	}
	if q := s[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(s[1:], q); end >= 0 {
			return s[1 : end+1]
		}
		return ""
	}
	if i := strings.IndexAny(s, " \t;|&<>()"); i >= 0 {
		return s[:i]
	}
	return s
}

// otherHookTypeKeys are keys of Claude Code's other hook types (http,
// prompt, agent, mcp_tool) and of its command hooks that wavehooks accepts
// without acting on them: not typos, so they get no unknown-key warning (a
// hook of another type already gets an unknown-hook-type error).
var otherHookTypeKeys = map[string]bool{"url": true, "headers": true, "allowedEnvVars": true, "prompt": true, "model": true,
	"server": true, "tool": true, "input": true, "once": true, "shell": true, "asyncRewake": true, "rewakeMessage": true,
	"rewakeSummary": true}

// unknownKey warns about a key the parser does not know, with the closest
// known key when there is one: a misspelt "timout" would otherwise leave the
// hook on its default without a word. With nearMissOnly, keys that are not
// close to a known one are left alone.
func (p *fileParser) unknownKey(m *hujson.ObjectMember, where string, known []string, nearMissOnly bool) {
	name := memberName(m)
	sugg := closestKey(name, known)
	if sugg == "" && nearMissOnly {
		return
	}
	msg := fmt.Sprintf("unknown key %q in a %s; it is ignored", name, where)
	if sugg != "" {
		msg = fmt.Sprintf("unknown key %q in a %s; did you mean %q? It is ignored as written", name, where, sugg)
	}
	p.report(&m.Name, SeverityWarning, CodeUnknownKey, msg, sugg)
}

// closestKey is the known key nearest to a misspelt one (keys are
// case-sensitive, so "Timeout" suggests "timeout"), or "" when none is close.
func closestKey(name string, known []string) string {
	best, bestDist := "", 1<<30
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist > max(1, min(2, len(name)/4)) {
		return ""
	}
	return best
}

// closestEvent suggests the known event nearest to a misspelt name, or "".
func closestEvent(name string) event.Event {
	best, bestDist := event.Event(""), 1<<30
	lower := strings.ToLower(name)
	for _, e := range lowerEvents() {
		if abs(len(lower)-len(e.lower)) >= bestDist {
			continue // the distance is at least the difference in length
		}
		if d := editDistance(lower, e.lower); d < bestDist {
			best, bestDist = e.event, d
		}
	}
	if bestDist > max(3, len(name)/2) {
		return ""
	}
	return best
}

// lowerEvents are the known events, sorted, with their names in lower
// case, computed once: a settings file may misspell thousands of events.
var lowerEvents = sync.OnceValue(func() []lowerEvent {
	var out []lowerEvent
	for _, e := range event.Events() {
		out = append(out, lowerEvent{e, strings.ToLower(string(e))})
	}
	return out
})

type lowerEvent struct {
	event event.Event
	lower string
}

func abs(n int) int { return max(n, -n) }

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
