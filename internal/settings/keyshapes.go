package settings

import (
	"regexp"
	"strings"

	"github.com/tailscale/hujson"
)

// KeyShape is the JSON shape of a settings or hook key's value: its JSON
// type and the values it allows. The parser checks values against it
// (parse.go, parsetypes.go), and the VS Code schema's shapes are written
// from it (internal/settings/schema_test.go), so that the editor and the server accept
// the same values. What only the parser can tell (a header name, a URL that
// parses, a cwd inside the project, an "if" rule) is checked by the parser
// after the shape fits.
type KeyShape struct {
	// Type is the JSON type: "string", "boolean", "number", "array" or "object".
	Type string
	// Elem is the shape of an array's elements or of an object's member
	// values; nil leaves them free.
	Elem *KeyShape
	// Enum lists the values a string may take; nil allows any.
	Enum []string
	// NonEmpty refuses a blank string (the schema can only say non-empty).
	NonEmpty bool
	// Positive refuses a number that is not greater than zero.
	Positive bool
	// Pattern is a regular expression a string must match, written so that
	// RE2 and the schema's ECMAScript regexps read it alike.
	Pattern string
}

var stringShape = KeyShape{Type: "string"}

// SettingsKeyShapes are the shapes of a settings file's keys (RootKeys).
// "hooks" is an object of events; its members are read by event (event.go).
var SettingsKeyShapes = map[string]KeyShape{
	"hooks":                  {Type: "object"},
	"disableAllHooks":        {Type: "boolean"},
	"transcriptFormat":       {Type: "string", Enum: []string{"json", "jsonl"}},
	"importClaudeHooks":      {Type: "boolean"},
	"importVSCodeHooks":      {Type: "boolean"},
	"importAgentHooks":       {Type: "array", Elem: &KeyShape{Type: "string", Enum: []string{"gemini", "codex", "cursor"}}},
	"allowManagedHooksOnly":  {Type: "boolean"},
	"driftRequiresApproval":  {Type: "boolean"},
	"allowedHttpHookUrls":    {Type: "array", Elem: &stringShape},
	"httpHookAllowedEnvVars": {Type: "array", Elem: &stringShape},
}

// HookKeyShapes are the shapes of a hook's keys (HookKeys).
var HookKeyShapes = map[string]KeyShape{
	"type":            {Type: "string", Enum: HookTypes},
	"command":         {Type: "string", NonEmpty: true},
	"timeout":         {Type: "number", Positive: true},
	"args":            {Type: "array", Elem: &stringShape},
	"cwd":             {Type: "string"},
	"env":             {Type: "object", Elem: &stringShape},
	"statusMessage":   {Type: "string"},
	"async":           {Type: "boolean"},
	"if":              {Type: "string"},
	"linux":           {Type: "string"},
	"osx":             {Type: "string"},
	"windows":         {Type: "string"},
	"asyncRewake":     {Type: "boolean"},
	"shell":           {Type: "string", Enum: Shells},
	"once":            {Type: "boolean"},
	"url":             {Type: "string", NonEmpty: true, Pattern: "^[Hh][Tt][Tt][Pp][Ss]?://"},
	"headers":         {Type: "object", Elem: &stringShape},
	"allowedEnvVars":  {Type: "array", Elem: &KeyShape{Type: "string", Pattern: "^[A-Za-z_][A-Za-z0-9_]*$"}},
	"prompt":          {Type: "string", NonEmpty: true},
	"model":           {Type: "string"},
	"continueOnBlock": {Type: "boolean"},
	"server":          {Type: "string", NonEmpty: true},
	"tool":            {Type: "string", NonEmpty: true},
	"input":           {Type: "object"},
	"onFailure":       {Type: "string", Enum: OnFailureValues},
	"enabled":         {Type: "boolean"},
}

// HookTypeNeeds are the keys each hook type must have. A command hook's
// "command" may also come from the per-OS key of this system (finishHook).
var HookTypeNeeds = map[string][]string{
	TypeCommand: {"command"},
	TypeHTTP:    {"url"},
	TypePrompt:  {"prompt"},
	TypeAgent:   {"prompt"},
	TypeMCPTool: {"server", "tool"},
}

// needs reports whether a hook of type t must have key.
func needs(t, key string) bool { return contains(HookTypeNeeds[t], key) }

// is reports whether v has the shape's JSON type, not looking inside an
// array or object.
func (s KeyShape) is(v *hujson.Value) bool {
	switch val := v.Value.(type) {
	case hujson.Literal:
		switch val.Kind() {
		case '"':
			return s.Type == "string"
		case 't', 'f':
			return s.Type == "boolean"
		case '0':
			return s.Type == "number"
		}
	case *hujson.Object:
		return s.Type == "object"
	case *hujson.Array:
		return s.Type == "array"
	}
	return false
}

// fits reports whether v has the shape: its type, a value the shape
// allows, and elements or member values that fit Elem.
func (s KeyShape) fits(v *hujson.Value) bool {
	if !s.is(v) {
		return false
	}
	switch val := v.Value.(type) {
	case hujson.Literal:
		if s.Type == "number" {
			return !s.Positive || val.Float() > 0
		}
		return s.Type != "string" || s.allows(val.String())
	case *hujson.Object:
		for i := range val.Members {
			if s.Elem != nil && !s.Elem.fits(&val.Members[i].Value) {
				return false
			}
		}
	case *hujson.Array:
		for i := range val.Elements {
			if s.Elem != nil && !s.Elem.fits(&val.Elements[i]) {
				return false
			}
		}
	}
	return true
}

// allows reports whether a string is a value the shape allows.
func (s KeyShape) allows(str string) bool {
	switch {
	case s.Enum != nil && !contains(s.Enum, str):
		return false
	case s.NonEmpty && strings.TrimSpace(str) == "":
		return false
	case s.Pattern != "" && !shapePattern(s.Pattern).MatchString(str):
		return false
	}
	return true
}

// shapePatterns are the compiled patterns of the shapes, by source.
var shapePatterns = func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	add := func(s KeyShape) {
		for e := &s; e != nil; e = e.Elem {
			if e.Pattern != "" {
				m[e.Pattern] = regexp.MustCompile(e.Pattern)
			}
		}
	}
	for _, s := range SettingsKeyShapes {
		add(s)
	}
	for _, s := range HookKeyShapes {
		add(s)
	}
	return m
}()

func shapePattern(p string) *regexp.Regexp { return shapePatterns[p] }
