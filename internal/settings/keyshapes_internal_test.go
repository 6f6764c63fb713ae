package settings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

// TestParserChecksKeyShapes gives every settings and hook key a value of
// every JSON type: the parser must refuse, at the value, exactly the types
// other than the key's shape (SettingsKeyShapes, HookKeyShapes), which the
// VS Code schema is written from; so the editor and the server cannot
// disagree about a key's type.
func TestParserChecksKeyShapes(t *testing.T) {
	// A value of each type that passes the parser's other checks.
	goodString := map[string]string{"type": "command", "transcriptFormat": "json", "shell": "bash", "url": "http://127.0.0.1/h",
		"if": "Bash(git *)", "cwd": ".", "command": "true", "linux": "true", "osx": "true", "windows": "true", "onFailure": "block"}
	samples := map[string]func(key string) string{
		"string": func(key string) string {
			if s, ok := goodString[key]; ok {
				return fmt.Sprintf("%q", s)
			}
			return `"x"`
		},
		"boolean": func(string) string { return "true" },
		"number":  func(string) string { return "5" },
		"array":   func(string) string { return "[]" },
		"object":  func(string) string { return "{}" },
		"null":    func(string) string { return "null" },
	}
	// typeOf is a hook type that reads key, and the keys it needs.
	typeOf := func(key string) string {
		if types, ok := typedKeys[key]; ok && types[0] != "" {
			return types[0]
		}
		return TypeCommand
	}
	needed := map[string]string{"command": `"true"`, "url": `"http://127.0.0.1/h"`, "prompt": `"p"`, "server": `"s"`, "tool": `"t"`}
	check := func(t *testing.T, key, kind, text, val string, shape KeyShape) {
		f := ParseFile("/p/.wave/settings.json", SourceProject, []byte(text), "")
		at := strings.LastIndex(text, val)
		refused := false
		for _, d := range f.Diagnostics {
			if d.Severity == SeverityError && d.Range == NewLineIndex([]byte(text)).Span(at, at+len(val)) {
				refused = true
			}
		}
		require.Equal(t, kind != shape.Type, refused, "%s: %s in %s: %+v", key, kind, text, f.Diagnostics)
	}
	for key, shape := range HookKeyShapes {
		for kind, sample := range samples {
			t.Run(key+"="+kind, func(t *testing.T) {
				typ := typeOf(key)
				fields := []string{}
				if key != "type" {
					fields = append(fields, fmt.Sprintf(`"type": %q`, typ))
				}
				for _, k := range HookTypeNeeds[typ] {
					if k != key {
						fields = append(fields, fmt.Sprintf("%q: %s", k, needed[k]))
					}
				}
				if key == "type" {
					fields = append(fields, `"command": "true"`)
				}
				val := sample(key)
				fields = append(fields, fmt.Sprintf("%q: %s", key, val))
				text := `{"hooks": {"PreToolUse": [{"hooks": [{` + strings.Join(fields, ", ") + `}]}]}}`
				check(t, key, kind, text, val, shape)
			})
		}
	}
	for key, shape := range SettingsKeyShapes {
		for kind, sample := range samples {
			t.Run(key+"="+kind, func(t *testing.T) {
				val := sample(key)
				check(t, key, kind, fmt.Sprintf("{%q: %s}", key, val), val, shape)
			})
		}
	}
}

// TestParserNeedsWhatEachTypeNeeds: a hook of each type without the keys
// HookTypeNeeds lists (which the schema's allOf is written from) is refused,
// naming each missing key. A command hook's command is checked with its
// per-OS overrides (finishHook).
func TestParserNeedsWhatEachTypeNeeds(t *testing.T) {
	for typ, keys := range HookTypeNeeds {
		t.Run(typ, func(t *testing.T) {
			text := fmt.Sprintf(`{"hooks": {"Stop": [{"hooks": [{"type": %q}]}]}}`, typ)
			f := ParseFile("/p/.wave/settings.json", SourceProject, []byte(text), "")
			require.Empty(t, f.Hooks)
			var missing []string
			for _, d := range f.Diagnostics {
				switch d.Code {
				case CodeMissingField:
					missing = append(missing, d.Data)
				case CodeEmptyCommand:
					missing = append(missing, "command")
				}
			}
			require.ElementsMatch(t, keys, missing, "%+v", f.Diagnostics)
		})
	}
}

func TestKeyShapeFits(t *testing.T) {
	cases := []struct {
		shape string // a key of HookKeyShapes
		value string
		fits  bool
	}{
		{"type", `"agent"`, true},
		{"type", `"shell"`, false},
		{"command", `"  "`, false},
		{"timeout", `0.5`, true},
		{"timeout", `0`, false},
		{"timeout", `-1`, false},
		{"url", `"HTTPS://x"`, true},
		{"url", `"ftp://x"`, false},
		{"args", `["a", "b"]`, true},
		{"args", `["a", 1]`, false},
		{"env", `{"A": "1"}`, true},
		{"env", `{"A": 1}`, false},
		{"allowedEnvVars", `["MY_TOKEN"]`, true},
		{"allowedEnvVars", `["{X}"]`, false},
		{"input", `{"a": [1, {"b": null}]}`, true},
		{"async", `"true"`, false},
	}
	for _, c := range cases {
		v := mustHujson(t, c.value)
		require.Equal(t, c.fits, HookKeyShapes[c.shape].fits(&v), "%s: %s", c.shape, c.value)
	}
}

func mustHujson(t *testing.T, s string) hujson.Value {
	t.Helper()
	v, err := hujson.Parse([]byte(s))
	require.NoError(t, err)
	return v
}
