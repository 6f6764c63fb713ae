package trust

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/agentfmt"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// notInTrust are the fields of Hook and Settings that the trust encoding
// leaves out, each with why: it changes nothing a workspace's hooks do.
var notInTrust = map[string]string{
	"CommandRange": "where the command is written in its file",
	"Place":        "where the hook is written in its file",
	// Settings.
	"DriftRequiresApproval": "it counts only in the user's and the managed settings files; a workspace file's is dropped when parsed",
}

// inAgentSection are the fields the encoding writes in its agent section
// (agentSection), after the rest, only when a workspace has them.
var inAgentSection = map[string]bool{"AgentEvent": true, "ImportAgentHooks": true}

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
	case event.Event:
		v.Set(reflect.ValueOf(event.Stop))
	case settings.Source:
		v.Set(reflect.ValueOf(settings.SourceLocal))
	case *settings.Matcher:
		m, err := settings.CompileMatcher("Bash")
		require.NoError(t, err)
		v.Set(reflect.ValueOf(m))
	case *settings.IfRule:
		v.Set(reflect.ValueOf(settings.ParseIfRule("Bash(git *)")))
	case []settings.Header:
		v.Set(reflect.ValueOf([]settings.Header{}))
	case json.RawMessage:
		v.Set(reflect.ValueOf(json.RawMessage{}))
	case []agentfmt.Agent:
		v.Set(reflect.ValueOf([]agentfmt.Agent{}))
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
	base := func() *settings.Config {
		return &settings.Config{Paths: settings.Paths{ProjectRoot: "/repo"},
			Hooks: []settings.Hook{{Source: settings.SourceProject, File: "/repo/.wave/settings.json"}},
			Files: []settings.File{{Source: settings.SourceProject, Path: "/repo/.wave/settings.json"}}}
	}
	zero := encodeTrust(base(), nil)

	var walk func(prefix string, v reflect.Value, get func(c *settings.Config) reflect.Value)
	walk = func(prefix string, typ reflect.Value, get func(c *settings.Config) reflect.Value) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Type().Field(i)
			if f.Anonymous {
				walk(prefix, typ.Field(i), func(c *settings.Config) reflect.Value { return get(c).Field(i) })
				continue
			}
			name := prefix + f.Name
			t.Run(name, func(t *testing.T) {
				if why, ok := notInTrust[f.Name]; ok {
					t.Skipf("left out: %s", why)
				}
				cfg := base()
				require.True(t, otherValue(t, get(cfg).Field(i)),
					"%s has a type the trust encoding does not know: encode it in trustencode.go and give it a value in otherValue", name)
				require.NotEqual(t, zero, encodeTrust(cfg, nil), "changing %s must need new trust", name)
				decodeBack(t, cfg, encodeTrust(cfg, nil))
			})
		}
	}
	walk("Hook.", reflect.ValueOf(settings.Hook{}), func(c *settings.Config) reflect.Value { return reflect.ValueOf(&c.Hooks[0]).Elem() })
	walk("Settings.", reflect.ValueOf(settings.Settings{}), func(c *settings.Config) reflect.Value { return reflect.ValueOf(&c.Files[0].Settings).Elem() })

	// The decoder's field lists (the encoding's order) name every field.
	names := func(fields []field) []string {
		var out []string
		for _, f := range fields {
			out = append(out, f.name)
		}
		return out
	}
	var all func(typ reflect.Type) []string
	all = func(typ reflect.Type) []string {
		var out []string
		for i := 0; i < typ.NumField(); i++ {
			switch f := typ.Field(i); {
			case f.Anonymous:
				out = append(out, all(f.Type)...)
			case notInTrust[f.Name] == "" && !inAgentSection[f.Name]:
				out = append(out, f.Name)
			}
		}
		return out
	}
	require.ElementsMatch(t, all(reflect.TypeOf(settings.Hook{})), names(hookFields))
	require.ElementsMatch(t, append([]string{"Source", "Path"}, all(reflect.TypeOf(settings.Settings{}))...), names(settingsFields))

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
func trustView(c *settings.Config) any {
	type hookView struct {
		settings.Hook
		Matcher, If string
		HasM, HasIf bool
	}
	var hooks []hookView
	for _, h := range c.Hooks {
		if !h.Source.FromWorkspace() {
			continue
		}
		v := hookView{Hook: h, Matcher: settings.MatcherRaw(h.Matcher), If: settings.IfRaw(h.If), HasM: h.Matcher != nil, HasIf: h.If != nil}
		v.Hook.Matcher, v.Hook.If, v.Hook.CommandRange, v.Hook.Place = nil, nil, settings.Range{}, settings.HookPlace{}
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

// trustDecoder reads an encoding back, value by value.
type trustDecoder struct{ b []byte }

var errShort = errors.New("the encoding ends early")

func (d *trustDecoder) uint() (uint64, error) {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		return 0, errShort
	}
	d.b = d.b[k:]
	return n, nil
}

func (d *trustDecoder) byte() (byte, error) {
	if len(d.b) == 0 {
		return 0, errShort
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c, nil
}

func (d *trustDecoder) str() (string, error) {
	n, err := d.uint()
	if err != nil || n > uint64(len(d.b)) {
		return "", errShort
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s, nil
}

// value reads one value of a kind the encoder writes.
func (d *trustDecoder) value(kind string) (any, error) {
	switch kind {
	case "str":
		return d.str()
	case "uint":
		return d.uint()
	case "bool", "optbool":
		return d.byte()
	case "optstr":
		present, err := d.byte()
		if err != nil {
			return nil, err
		}
		s, err := d.str()
		return []any{present, s}, err
	case "strs":
		present, err := d.byte()
		if err != nil {
			return nil, err
		}
		n, err := d.uint()
		if err != nil {
			return nil, err
		}
		list := []any{present}
		for range n {
			s, err := d.str()
			if err != nil {
				return nil, err
			}
			list = append(list, s)
		}
		return list, nil
	case "headers":
		present, err := d.byte()
		if err != nil {
			return nil, err
		}
		n, err := d.uint()
		if err != nil {
			return nil, err
		}
		list := []any{present}
		for range n {
			name, err := d.str()
			if err != nil {
				return nil, err
			}
			value, err := d.str()
			if err != nil {
				return nil, err
			}
			list = append(list, name, value)
		}
		return list, nil
	}
	return nil, fmt.Errorf("unknown kind %s", kind)
}

type field struct{ name, kind string }

// hookFields and settingsFields are the order the encoding is written in.
var (
	hookFields = []field{{"Event", "str"}, {"Source", "str"}, {"File", "str"}, {"Matcher", "optstr"}, {"Type", "str"},
		{"Command", "str"}, {"Timeout", "uint"}, {"Args", "strs"}, {"Cwd", "str"}, {"Env", "strs"}, {"Async", "bool"},
		{"StatusMessage", "str"}, {"If", "optstr"}, {"URL", "str"}, {"Headers", "headers"}, {"AllowedEnvVars", "strs"},
		{"Prompt", "str"}, {"Model", "str"}, {"ContinueOnBlock", "bool"}, {"Server", "str"}, {"Tool", "str"},
		{"Input", "optstr"}, {"Once", "bool"}, {"Shell", "str"}, {"AsyncRewake", "bool"},
		{"OnFailure", "str"}, {"Disabled", "bool"}}
	settingsFields = []field{{"Source", "str"}, {"Path", "str"}, {"DisableAllHooks", "optbool"}, {"TranscriptFormat", "str"},
		{"ImportClaudeHooks", "optbool"}, {"ImportVSCodeHooks", "optbool"}, {"AllowManagedHooksOnly", "optbool"},
		{"AllowedHTTPHookURLs", "strs"}, {"HTTPHookAllowedEnvVars", "strs"}}
)

// plain is a field's value as the decoder gives it back.
func plain(root string, v reflect.Value, name string) any {
	b2 := func(b bool) byte {
		if b {
			return 1
		}
		return 0
	}
	switch x := v.Interface().(type) {
	case settings.Source:
		return x.String()
	case event.Event:
		return string(x)
	case string:
		if name == "File" || name == "Path" {
			return relTo(root, x)
		}
		return x
	case time.Duration:
		return uint64(x)
	case bool:
		return b2(x)
	case *bool:
		switch {
		case x == nil:
			return byte(0)
		case !*x:
			return byte(1)
		}
		return byte(2)
	case *settings.Matcher:
		return []any{b2(x != nil), settings.MatcherRaw(x)}
	case *settings.IfRule:
		return []any{b2(x != nil), settings.IfRaw(x)}
	case json.RawMessage:
		return []any{b2(x != nil), string(x)}
	case []string:
		list := []any{b2(x != nil)}
		for _, s := range x {
			list = append(list, s)
		}
		return list
	case []settings.Header:
		list := []any{b2(x != nil)}
		for _, h := range x {
			list = append(list, h.Name, h.Value)
		}
		return list
	}
	panic("no plain value for " + name)
}

// decodeBack reads an encoding of cfg back and checks that it holds every
// field of every workspace hook and counted settings file, and nothing
// more: what the encoding says is the configuration, so no other
// configuration can have it.
func decodeBack(t *testing.T, cfg *settings.Config, enc []byte) {
	d := &trustDecoder{b: enc}
	version, err := d.str()
	require.NoError(t, err)
	require.Equal(t, trustVersion, version)
	check := func(what string, fields []field, values ...reflect.Value) {
		for _, f := range fields {
			got, err := d.value(f.kind)
			require.NoError(t, err, "%s.%s", what, f.name)
			var v reflect.Value
			for _, s := range values {
				if v = s.FieldByName(f.name); v.IsValid() {
					break
				}
			}
			require.Equal(t, plain(cfg.Paths.ProjectRoot, v, f.name), got, "%s.%s", what, f.name)
		}
	}
	n, err := d.uint()
	require.NoError(t, err)
	var hooks []*settings.Hook
	for i := range cfg.Hooks {
		if cfg.Hooks[i].Source.FromWorkspace() {
			hooks = append(hooks, &cfg.Hooks[i])
		}
	}
	require.Equal(t, uint64(len(hooks)), n)
	for _, h := range hooks {
		check("hook", hookFields, reflect.ValueOf(h).Elem())
	}
	n, err = d.uint()
	require.NoError(t, err)
	var files []*settings.File
	for i := range cfg.Files {
		if settingsCount(cfg, &cfg.Files[i]) {
			files = append(files, &cfg.Files[i])
		}
	}
	require.Equal(t, uint64(len(files)), n)
	for _, f := range files {
		check("settings", settingsFields, reflect.ValueOf(f).Elem(), reflect.ValueOf(&f.Settings).Elem())
	}
	n, err = d.uint()
	require.NoError(t, err)
	require.Zero(t, n, "no files here")
	var agentHooks, agentFiles []any
	for i, h := range hooks {
		if h.AgentEvent != "" {
			agentHooks = append(agentHooks, uint64(i), h.AgentEvent)
		}
	}
	for i, f := range files {
		if f.Settings.ImportAgentHooks != nil {
			names := []string{}
			for _, a := range f.Settings.ImportAgentHooks {
				names = append(names, string(a))
			}
			list := []any{byte(1)}
			for _, n := range names {
				list = append(list, n)
			}
			agentFiles = append(agentFiles, uint64(i), list)
		}
	}
	if agentHooks != nil || agentFiles != nil {
		marker, err := d.str()
		require.NoError(t, err)
		require.Equal(t, "agent hooks", marker)
		var got []any
		n, err = d.uint()
		require.NoError(t, err)
		for range n {
			i, err := d.uint()
			require.NoError(t, err)
			ev, err := d.str()
			require.NoError(t, err)
			got = append(got, i, ev)
		}
		require.Equal(t, agentHooks, got)
		got = nil
		n, err = d.uint()
		require.NoError(t, err)
		for range n {
			i, err := d.uint()
			require.NoError(t, err)
			names, err := d.value("strs")
			require.NoError(t, err)
			got = append(got, i, names)
		}
		require.Equal(t, fmt.Sprint(agentFiles), fmt.Sprint(got))
	}
	require.Empty(t, d.b, "nothing after the last value")
}

// FuzzTrustEncoding: two workspace settings files that give different
// configurations never share a trust encoding (and so, short of a SHA-256
// collision, a trust hash): each encoding reads back, field by field, as
// the configuration it came from (decodeBack), and two that are equal come
// from equal configurations. The seeds in testdata/fuzz/FuzzTrustEncoding
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
		load := func(text string) *settings.Config {
			file := settings.ParseFile("/repo/.wave/settings.json", settings.SourceProject, []byte(text), "/repo")
			return &settings.Config{Paths: settings.Paths{ProjectRoot: "/repo"}, Hooks: file.Hooks, Files: []settings.File{file}}
		}
		ca, cb := load(a), load(b)
		ea, eb := encodeTrust(ca, nil), encodeTrust(cb, nil)
		decodeBack(t, ca, ea)
		decodeBack(t, cb, eb)
		if bytes.Equal(ea, eb) && !reflect.DeepEqual(trustView(ca), trustView(cb)) {
			t.Fatalf("two configurations share a trust encoding:\n%s\n%s", fmt.Sprint(trustView(ca)), fmt.Sprint(trustView(cb)))
		}
		if !reflect.DeepEqual(trustView(ca), trustView(cb)) {
			require.NotEqual(t, WorkspaceHash(ca), WorkspaceHash(cb))
		}
	})
}
