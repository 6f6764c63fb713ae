package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// notInTrust are the fields of Hook that the trust encoding leaves out, each
// with why: it changes nothing a hook does.
var notInTrust = map[string]string{
	"CommandRange": "where the command is written in its file",
}

// otherValue sets v, a field of Hook or Settings, to a value other than its
// zero value, or reports false for a type it does not know: a new field of
// a new type then fails the test until it is encoded and given a value here.
func otherValue(t *testing.T, v reflect.Value) bool {
	switch v.Interface().(type) {
	case string:
		v.SetString("x")
	case bool:
		v.SetBool(true)
	case *bool:
		b := false // unset and false are different settings
		v.Set(reflect.ValueOf(&b))
	case time.Duration:
		v.SetInt(int64(time.Nanosecond))
	case []string:
		v.Set(reflect.ValueOf([]string{}))
	case Event:
		v.Set(reflect.ValueOf(Stop))
	case Source:
		v.Set(reflect.ValueOf(SourceLocal))
	case *Matcher:
		m, err := CompileMatcher("Bash")
		require.NoError(t, err)
		v.Set(reflect.ValueOf(m))
	case *IfRule:
		v.Set(reflect.ValueOf(ParseIfRule("Bash(git *)")))
	case []Header:
		v.Set(reflect.ValueOf([]Header{}))
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage{}))
	default:
		return false
	}
	return true
}

// TestTrustEncodingCoversEveryField: changing any one field of a workspace
// hook, or any one setting of a workspace settings file, changes the
// encoding, and so needs new trust. It walks the structs by reflection, so
// a field added later fails here until the encoding covers it (or
// notInTrust says why it changes nothing).
func TestTrustEncodingCoversEveryField(t *testing.T) {
	base := func() *Config {
		return &Config{Paths: Paths{ProjectRoot: "/repo"},
			Hooks: []Hook{{Source: SourceProject, File: "/repo/.wave/settings.json"}},
			Files: []File{{Source: SourceProject, Path: "/repo/.wave/settings.json"}}}
	}
	zero := encodeTrust(base(), nil)

	var walk func(prefix string, v reflect.Value, get func(c *Config) reflect.Value)
	walk = func(prefix string, typ reflect.Value, get func(c *Config) reflect.Value) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Type().Field(i)
			if f.Anonymous {
				walk(prefix, typ.Field(i), func(c *Config) reflect.Value { return get(c).Field(i) })
				continue
			}
			name := prefix + f.Name
			t.Run(name, func(t *testing.T) {
				if why, ok := notInTrust[f.Name]; ok && prefix == "Hook." {
					t.Skipf("left out: %s", why)
				}
				cfg := base()
				require.True(t, otherValue(t, get(cfg).Field(i)),
					"%s has a type the trust encoding does not know: encode it in trustencode.go and give it a value in otherValue", name)
				require.NotEqual(t, zero, encodeTrust(cfg, nil), "changing %s must need new trust", name)
			})
		}
	}
	walk("Hook.", reflect.ValueOf(Hook{}), func(c *Config) reflect.Value { return reflect.ValueOf(&c.Hooks[0]).Elem() })
	walk("Settings.", reflect.ValueOf(Settings{}), func(c *Config) reflect.Value { return reflect.ValueOf(&c.Files[0].Settings).Elem() })

	cfg := base()
	cfg.Hooks[0].Args = []string{"a"}
	withArg := encodeTrust(cfg, nil)
	cfg.Hooks[0].Args = []string{}
	require.NotEqual(t, withArg, encodeTrust(cfg, nil))
	require.NotEqual(t, zero, encodeTrust(base(), []fileState{{Rel: "x.sh", State: "absent"}}), "a covered file")
}

// trustView is what a configuration contributes to trust, as plain values
// that reflect.DeepEqual compares: its workspace hooks (every field but
// CommandRange), the settings of its files that count, and its files.
func trustView(c *Config) any {
	type hookView struct {
		Hook
		Matcher, If string
		HasM, HasIf bool
	}
	var hooks []hookView
	for _, h := range c.Hooks {
		if !h.Source.FromWorkspace() {
			continue
		}
		v := hookView{Hook: h, Matcher: matcherRaw(h.Matcher), If: ifRaw(h.If), HasM: h.Matcher != nil, HasIf: h.If != nil}
		v.Hook.Matcher, v.Hook.If, v.Hook.CommandRange = nil, nil, Range{}
		v.Hook.File = relTo(c.Paths.ProjectRoot, h.File)
		hooks = append(hooks, v)
	}
	var settings []any
	for i := range c.Files {
		if settingsCount(c, &c.Files[i]) {
			settings = append(settings, []any{c.Files[i].Source, relTo(c.Paths.ProjectRoot, c.Files[i].Path), c.Files[i].Settings})
		}
	}
	return []any{hooks, settings}
}

// FuzzTrustEncoding: two workspace settings files that give different
// configurations never share a trust encoding (and so, short of a SHA-256
// collision, a trust hash). The seeds in testdata/fuzz/FuzzTrustEncoding
// hold the reviewer's collision of the earlier encoding: one hook whose
// matcher spells out a second hook's line, against the two hooks.
func FuzzTrustEncoding(f *testing.F) {
	one := `{"hooks": {"PreToolUse": [{"matcher": "Bash\u0000payload\nPreToolUse\u0000Zzz", "hooks": [{"type": "command", "command": "echo hi"}]}]}}`
	two := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "payload"}]},
		{"matcher": "Zzz", "hooks": [{"type": "command", "command": "echo hi"}]}]}}`
	f.Add(one, two)
	f.Add(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./x.sh", "timeout": 1e-12}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./x.sh"}]}]}}`)
	f.Add(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "args": []}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}]}]}}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		load := func(text string) *Config {
			file := ParseFile("/repo/.wave/settings.json", SourceProject, []byte(text), "/repo")
			return &Config{Paths: Paths{ProjectRoot: "/repo"}, Hooks: file.Hooks, Files: []File{file}}
		}
		ca, cb := load(a), load(b)
		ea, eb := encodeTrust(ca, nil), encodeTrust(cb, nil)
		if bytes.Equal(ea, eb) && !reflect.DeepEqual(trustView(ca), trustView(cb)) {
			t.Fatalf("two configurations share a trust encoding:\n%s\n%s", fmt.Sprint(trustView(ca)), fmt.Sprint(trustView(cb)))
		}
		if !reflect.DeepEqual(trustView(ca), trustView(cb)) {
			require.NotEqual(t, WorkspaceHash(ca), WorkspaceHash(cb))
		}
	})
}
