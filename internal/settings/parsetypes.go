package settings

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/tailscale/hujson"
)

// Diagnostic codes of the hook types and their options.
const (
	CodeMissingField   = "missing-field"
	CodeBadURL         = "bad-url"
	CodeBadHeaders     = "bad-headers"
	CodeTypeNotOnEvent = "type-not-on-event"
	CodeOptionIgnored  = "option-ignored"
	CodeURLNotAllowed  = "url-not-allowed"
	CodeBadURLPattern  = "bad-url-pattern"
)

// typedKeys are the keys applyTyped reads, and the hook types they belong to
// ("" for every type).
var typedKeys = map[string][]string{
	"url": {TypeHTTP}, "headers": {TypeHTTP}, "allowedEnvVars": {TypeHTTP},
	"prompt": {TypePrompt, TypeAgent}, "model": {TypePrompt, TypeAgent}, "continueOnBlock": {TypePrompt},
	"server": {TypeMCPTool}, "tool": {TypeMCPTool}, "input": {TypeMCPTool},
	"shell": {TypeCommand}, "asyncRewake": {TypeCommand},
	"command": {TypeCommand}, "args": {TypeCommand}, "async": {TypeCommand},
	"linux": {TypeCommand}, "osx": {TypeCommand}, "windows": {TypeCommand}, "cwd": {TypeCommand}, "env": {TypeCommand},
	"once":      {""},
	"onFailure": {TypeCommand, TypeHTTP, TypeMCPTool},
}

// applyTyped reads the fields of the hook's type and the options once,
// shell and asyncRewake from the hook object v, after parseHook read the
// rest (the type may come after them). A field of another type is ignored
// with a warning; a missing required field or a value of the wrong kind is
// an error, and the hook does not run.
func (p *fileParser) applyTyped(h Hook, v *hujson.Value, valid bool) (Hook, bool) {
	obj, _ := v.Value.(*hujson.Object)
	if obj == nil || !HookKeyShapes["type"].allows(h.Type) {
		return h, valid
	}
	f := &typedFields{p: p, obj: v, h: &h, valid: valid, values: map[string]*hujson.Value{}}
	typeVal, timeoutVal := f.collect(obj)

	h.Once = f.boolean("once")
	if h.Once && h.Source.IsClaude() {
		p.report(f.values["once"], SeverityInfo, CodeOptionIgnored,
			"Claude Code honours once only in skill frontmatter, not in settings files; wavehooks ignores it in Claude Code's files too", "")
	}
	switch h.Type {
	case TypeCommand:
		f.command()
	case TypeHTTP:
		f.http()
	case TypePrompt, TypeAgent:
		f.prompt(timeoutVal)
	case TypeMCPTool:
		f.mcpTool()
	}
	f.onFailure()
	if ok, why := TypeRunsOn(h.Type, h.Event); !ok && typeVal != nil {
		p.report(typeVal, SeverityWarning, CodeTypeNotOnEvent, why+"; this hook will not run", "")
	}
	return h, f.valid
}

// typedFields reads the fields of one hook's type into it, reporting each
// problem at its field; valid turns false on the first error.
type typedFields struct {
	p      *fileParser
	obj    *hujson.Value // the hook object, where a missing field is reported
	h      *Hook
	valid  bool
	values map[string]*hujson.Value // the type's fields and the options, by key
}

// collect gathers the fields the hook's type reads, warning about those of
// another type (which are ignored), and returns the type and timeout values.
func (f *typedFields) collect(obj *hujson.Object) (typeVal, timeoutVal *hujson.Value) {
	for i := range obj.Members {
		m := &obj.Members[i]
		name := memberName(m)
		switch name {
		case "type":
			typeVal = &m.Value
		case "timeout":
			timeoutVal = &m.Value
		}
		types, ok := typedKeys[name]
		if !ok {
			continue
		}
		if types[0] != "" && !contains(types, f.h.Type) {
			f.p.report(&m.Name, SeverityWarning, CodeOptionIgnored, fmt.Sprintf("%s is read by %s hooks only; this %s hook ignores it",
				name, strings.Join(types, " and "), f.h.Type), "")
			if name == "async" {
				f.h.Async = false
			}
			continue
		}
		f.values[name] = &m.Value
	}
	return typeVal, timeoutVal
}

// str reads a string field; one the hook's type needs (HookTypeNeeds) must
// be there, and one whose shape is NonEmpty must not be blank.
func (f *typedFields) str(key string) (string, *hujson.Value) {
	fv, shape := f.values[key], HookKeyShapes[key]
	if fv == nil {
		if needs(f.h.Type, key) {
			f.p.report(f.obj, SeverityError, CodeMissingField, fmt.Sprintf("%s %s hook needs %q; this hook will not run", article(f.h.Type), f.h.Type, key), key)
			f.valid = false
		}
		return "", nil
	}
	if !shape.is(fv) || shape.NonEmpty && strings.TrimSpace(fv.Value.(hujson.Literal).String()) == "" {
		what := "a string"
		if shape.NonEmpty {
			what = "a non-empty string"
		}
		f.p.report(fv, SeverityError, CodeWrongType, fmt.Sprintf("%s must be %s; this hook will not run", key, what), "")
		f.valid = false
		return "", nil
	}
	return fv.Value.(hujson.Literal).String(), fv
}

// boolean reads a true/false field; absent is false.
func (f *typedFields) boolean(key string) bool {
	fv := f.values[key]
	if fv == nil {
		return false
	}
	if !HookKeyShapes[key].fits(fv) {
		f.p.report(fv, SeverityError, CodeWrongType, key+" must be true or false; this hook will not run", "")
		f.valid = false
		return false
	}
	return fv.Value.(hujson.Literal).Bool()
}

// runsAt makes fv the hook's place in the file, where its code lens goes.
func (f *typedFields) runsAt(fv *hujson.Value) {
	if fv != nil {
		f.h.CommandRange = f.p.idx.Span(fv.StartOffset, fv.EndOffset)
	}
}

// command reads a command hook's shell and asyncRewake.
func (f *typedFields) command() {
	h := f.h
	if s, fv := f.str("shell"); fv != nil {
		switch shape := HookKeyShapes["shell"]; {
		case !shape.allows(s):
			f.p.report(fv, SeverityError, CodeWrongType, fmt.Sprintf("shell must be one of %s, not %q; this hook will not run",
				strings.Join(shape.Enum, ", "), s), "")
			f.valid = false
		case h.Args != nil:
			f.p.report(fv, SeverityWarning, CodeOptionIgnored, "with \"args\" no shell runs the hook: shell is ignored", "")
		default:
			h.Shell = s
		}
	}
	if h.AsyncRewake = f.boolean("asyncRewake"); h.AsyncRewake {
		h.Async = true
	}
}

// http reads an http hook's url, headers and allowedEnvVars.
func (f *typedFields) http() {
	h := f.h
	var fv *hujson.Value
	h.URL, fv = f.str("url")
	f.runsAt(fv)
	if fv != nil {
		if u, err := url.Parse(h.URL); !HookKeyShapes["url"].allows(h.URL) || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			f.p.report(fv, SeverityError, CodeBadURL, fmt.Sprintf("url must be an http:// or https:// URL, not %q; this hook will not run", h.URL), "")
			f.valid = false
		}
	}
	f.valid = f.p.parseHeaders(f.values["headers"], h) && f.valid
	f.valid = f.p.parseEnvVarList(f.values["allowedEnvVars"], &h.AllowedEnvVars, "allowedEnvVars") && f.valid
}

// prompt reads a prompt or agent hook's prompt, model and continueOnBlock,
// and gives it its type's default timeout when the file sets none.
func (f *typedFields) prompt(timeoutVal *hujson.Value) {
	h := f.h
	var fv *hujson.Value
	h.Prompt, fv = f.str("prompt")
	f.runsAt(fv)
	h.Model, _ = f.str("model")
	h.ContinueOnBlock = f.boolean("continueOnBlock")
	if !validTimeout(timeoutVal) {
		h.Timeout = DefaultPromptTimeout
		if h.Type == TypeAgent {
			h.Timeout = DefaultAgentTimeout
		}
	}
}

// mcpTool reads an mcp_tool hook's server, tool and input.
func (f *typedFields) mcpTool() {
	h := f.h
	var fv *hujson.Value
	h.Server, _ = f.str("server")
	h.Tool, fv = f.str("tool")
	f.runsAt(fv)
	in := f.values["input"]
	if in == nil {
		return
	}
	if !HookKeyShapes["input"].fits(in) {
		f.p.report(in, SeverityError, CodeWrongType, `input must be an object of the tool's arguments, e.g. {"file_path": "${tool_input.file_path}"}; this hook will not run`, "")
		f.valid = false
		return
	}
	c := in.Clone()
	c.Standardize()
	c.Minimize()
	h.Input = c.Pack()
}

// validTimeout reports whether a timeout value is one parseHook accepted.
func validTimeout(v *hujson.Value) bool {
	return v != nil && HookKeyShapes["timeout"].fits(v)
}

// parseHeaders reads an http hook's headers: an object of strings whose
// names are HTTP header names.
func (p *fileParser) parseHeaders(v *hujson.Value, h *Hook) bool {
	if v == nil {
		return true
	}
	shape := HookKeyShapes["headers"]
	if !shape.is(v) {
		p.report(v, SeverityError, CodeBadHeaders, `headers must be an object of "Name": "value" strings; this hook will not run`, "")
		return false
	}
	obj, valid := v.Value.(*hujson.Object), true
	for i := range obj.Members {
		m := &obj.Members[i]
		name := memberName(m)
		if !headerName(name) {
			p.report(&m.Name, SeverityError, CodeBadHeaders, fmt.Sprintf("%q is not a valid HTTP header name; this hook will not run", name), "")
			valid = false
			continue
		}
		if !shape.Elem.fits(&m.Value) || strings.ContainsAny(m.Value.Value.(hujson.Literal).String(), "\r\n\x00") {
			p.report(&m.Value, SeverityError, CodeBadHeaders, fmt.Sprintf("headers.%s must be a string on one line; this hook will not run", name), "")
			valid = false
			continue
		}
		h.Headers = append(h.Headers, Header{Name: name, Value: m.Value.Value.(hujson.Literal).String()})
	}
	return valid
}

// headerName reports whether s is an HTTP header name (an RFC 9110 token).
func headerName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
	}) < 0
}

// parseEnvVarList reads a list of environment variable names.
func (p *fileParser) parseEnvVarList(v *hujson.Value, dst *[]string, key string) bool {
	if v == nil {
		return true
	}
	shape := HookKeyShapes[key]
	list, ok := p.stringList(v, key, shape)
	if !ok {
		return false
	}
	for _, name := range list {
		if !shape.Elem.allows(name) {
			p.report(v, SeverityError, CodeWrongType, fmt.Sprintf("%s: %q is not an environment variable name; this hook will not run", key, name), "")
			return false
		}
	}
	*dst = list
	return true
}

// stringList reads an array of strings (shape), reporting anything else;
// the values its elements allow are the caller's to check.
func (p *fileParser) stringList(v *hujson.Value, key string, shape KeyShape) ([]string, bool) {
	if !shape.is(v) {
		p.report(v, SeverityError, CodeWrongType, key+" must be an array of strings", "")
		return nil, false
	}
	arr := v.Value.(*hujson.Array)
	out := []string{}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		if !shape.Elem.is(el) {
			p.report(el, SeverityError, CodeWrongType, fmt.Sprintf("%s[%d] must be a string", key, i), "")
			return nil, false
		}
		out = append(out, el.Value.(hujson.Literal).String())
	}
	return out, true
}

// parsePolicyList reads allowedHttpHookUrls or httpHookAllowedEnvVars of a
// settings file; a list that does not parse restricts as an empty one
// would, so that a typo never opens what the policy closed.
func (p *fileParser) parsePolicyList(v *hujson.Value, key string) []string {
	list, ok := p.stringList(v, key, SettingsKeyShapes[key])
	if !ok {
		p.file.Diagnostics[len(p.file.Diagnostics)-1].Message += "; until it is fixed, it allows nothing"
		return []string{}
	}
	if key == "allowedHttpHookUrls" {
		arr := v.Value.(*hujson.Array) // stringList checked it
		for i, s := range list {
			if _, err := parseURLPattern(s); err != nil {
				p.report(&arr.Elements[i], SeverityError, CodeBadURLPattern,
					fmt.Sprintf("%s[%d] %q cannot be read: %v; it admits no URL", key, i, s, err), "")
			}
		}
	}
	return list
}

// explainDisallowedURLs warns on every http hook whose URL the merged
// allowedHttpHookUrls does not allow: it will not run.
func (c *Config) explainDisallowedURLs() {
	for i := range c.Files {
		f := &c.Files[i]
		if f.Source.IsClaude() && !c.ImportClaudeHooks {
			continue
		}
		for j := range f.Hooks {
			h := &f.Hooks[j]
			if h.Type != TypeHTTP {
				continue
			}
			if ok, why := c.HTTPPolicy.AllowsURL(h.URL); !ok {
				f.Diagnostics = append(f.Diagnostics, Diagnostic{File: f.Path, Range: h.CommandRange, Severity: SeverityWarning,
					Code: CodeURLNotAllowed, Message: "this http hook will not run: " + why})
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// article is "an" before a type name read with a vowel sound first.
func article(word string) string {
	for _, p := range []string{"a", "e", "i", "o", "u", "http", "mcp"} {
		if strings.HasPrefix(word, p) {
			return "an"
		}
	}
	return "a"
}

// closestType is the hook type an unknown one was probably meant to be,
// for the quick fix; "command" when none is close.
func closestType(t string) string {
	best, bestDist := TypeCommand, 3
	for _, k := range HookTypes {
		if d := editDistance(strings.ToLower(t), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// onFailure reads a command, http or mcp_tool hook's onFailure. A value
// other than "continue" or "block" is an error and the hook fails closed
// (as "block") until it is fixed: a misspelt "blok" must not turn a guard
// that was meant to block into one that lets everything through. Where
// Claude Code ignores it (async hooks, Stop, SubagentStop, TaskCompleted,
// TeammateIdle) a warning says so.
func (f *typedFields) onFailure() {
	fv := f.values["onFailure"]
	if fv == nil {
		return
	}
	lit, ok := fv.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' || !HookKeyShapes["onFailure"].allows(lit.String()) {
		f.p.report(fv, SeverityError, CodeWrongType, fmt.Sprintf(`onFailure must be "continue" or "block", not %s; until it is fixed, a failure of this hook blocks`,
			strings.TrimSpace(string(fv.Pack()))), "")
		f.h.OnFailure = OnFailureBlock
		return
	}
	f.h.OnFailure = lit.String()
	if note := OnFailureNote(f.h.Event, f.h); note != "" {
		f.p.report(fv, SeverityWarning, CodeOptionIgnored, note, "")
	}
}
