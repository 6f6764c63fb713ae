package lsp_test

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/lsp"
	"github.com/wavehooks/wavehooks/session"
)

// wireTypes are the types of the wave/* contract (docs/protocol.md), by the
// name the TypeScript client (editors/vscode/src/wire.ts) gives them.
var wireTypes = map[string]reflect.Type{
	"Block":                     reflect.TypeFor[session.BlockJSON](), // what a session.Block encodes as
	"Message":                   reflect.TypeFor[session.Message](),
	"ApiMessage":                reflect.TypeFor[session.APIMessage](),
	"SessionStartParams":        reflect.TypeFor[lsp.SessionStartParams](),
	"SessionStartResult":        reflect.TypeFor[lsp.SessionStartResult](),
	"AgentState":                reflect.TypeFor[lsp.AgentState](),
	"UserPromptSubmitParams":    reflect.TypeFor[lsp.UserPromptSubmitParams](),
	"FlowResult":                reflect.TypeFor[lsp.FlowResult](),
	"PostToolBatchParams":       reflect.TypeFor[lsp.PostToolBatchParams](),
	"PreToolUseParams":          reflect.TypeFor[lsp.PreToolUseParams](),
	"PreToolUseResult":          reflect.TypeFor[lsp.PreToolUseResult](),
	"PostToolUseParams":         reflect.TypeFor[lsp.PostToolUseParams](),
	"SessionParams":             reflect.TypeFor[lsp.SessionParams](),
	"StopParams":                reflect.TypeFor[lsp.StopParams](),
	"SessionEndParams":          reflect.TypeFor[lsp.SessionEndParams](),
	"BlocksResult":              reflect.TypeFor[lsp.BlocksResult](),
	"AddAssistantMessageParams": reflect.TypeFor[lsp.AddAssistantMessageParams](),
	"GetSessionResult":          reflect.TypeFor[lsp.GetSessionResult](),
	"ApiMessagesResult":         reflect.TypeFor[lsp.APIMessagesResult](),
	"PendingPermission":         reflect.TypeFor[lsp.PendingPermission](),
	"AskAction":                 reflect.TypeFor[lsp.AskAction](),
	"AskDiagnosticData":         reflect.TypeFor[lsp.AskDiagnosticData](),
	"ListPermissionsResult":     reflect.TypeFor[lsp.ListPermissionsResult](),
	"ResolvePermissionParams":   reflect.TypeFor[lsp.ResolvePermissionParams](),
	"ResolvePermissionResult":   reflect.TypeFor[lsp.ResolvePermissionResult](),
	"RunHooksParams":            reflect.TypeFor[lsp.RunHooksParams](),
	"HookRunsParams":            reflect.TypeFor[lsp.HookRunsParams](),
	"HookRun":                   reflect.TypeFor[hooks.Run](),
	"EventRun":                  reflect.TypeFor[hooks.EventRun](),
	"HookRunsResult":            reflect.TypeFor[lsp.HookRunsResult](),
	"SessionChangedParams":      reflect.TypeFor[lsp.SessionChangedParams](),
	"HooksChangedParams":        reflect.TypeFor[lsp.HooksChangedParams](),
	"RunHookResult":             reflect.TypeFor[lsp.RunHookResult](),
	"EvaluateHookParams":        reflect.TypeFor[lsp.EvaluateHookParams](),
	"EvaluateHookResultParams":  reflect.TypeFor[lsp.EvaluateHookResultParams](),
	"RunTestsResult":            reflect.TypeFor[lsp.RunTestsResult](),
	"TestCaseResult":            reflect.TypeFor[lsp.TestCaseResult](),
	"HookListing":               reflect.TypeFor[lsp.HookListing](),
	"ListHooksResult":           reflect.TypeFor[lsp.ListHooksResult](),
	"ToggleHookResult":          reflect.TypeFor[lsp.ToggleHookResult](),
}

// jsonFields are the JSON names of t's fields, embedded structs' included,
// each marked "?" when it may be absent (omitempty).
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			name += "?"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// marshalledKeys are the keys of v as it marshals itself: a type with its
// own MarshalJSON and no tags (session.APIMessage) is read that way.
func marshalledKeys(t *testing.T, v any) []string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	keys := slices.Sorted(maps.Keys(m))
	return keys
}

// tsInterfaces reads the interfaces of a TypeScript file: each one's
// top-level fields (with "?" when optional), its own and those of the
// interfaces it extends.
func tsInterfaces(t *testing.T, path string) map[string][]string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	head := regexp.MustCompile(`^export interface (\w+)(?: extends ([\w, ]+))? \{`)
	field := regexp.MustCompile(`^\s*(\w+)(\??):`)
	own, parents := map[string][]string{}, map[string][]string{}
	name, depth := "", 0
	for _, line := range strings.Split(string(src), "\n") {
		if name == "" {
			if m := head.FindStringSubmatch(line); m != nil {
				name, depth = m[1], 1
				own[name] = []string{}
				for _, p := range strings.Split(m[2], ",") {
					if p = strings.TrimSpace(p); p != "" {
						parents[name] = append(parents[name], p)
					}
				}
			}
			continue
		}
		code, _, _ := strings.Cut(line, "//")
		if depth == 1 && !strings.HasPrefix(strings.TrimSpace(line), "*") && !strings.HasPrefix(strings.TrimSpace(line), "/*") {
			if m := field.FindStringSubmatch(code); m != nil {
				own[name] = append(own[name], m[1]+m[2])
			}
		}
		depth += strings.Count(code, "{") - strings.Count(code, "}")
		if depth == 0 {
			name = ""
		}
	}
	var all func(string) []string
	all = func(n string) []string {
		fields := slices.Clone(own[n])
		for _, p := range parents[n] {
			fields = append(fields, all(p)...)
		}
		return fields
	}
	out := map[string][]string{}
	for n := range own {
		f := all(n)
		sort.Strings(f)
		out[n] = slices.Compact(f)
	}
	return out
}

// The VS Code client's types are the Go server's, field by field and
// optional where the server may leave a field out: they cannot drift.
func TestTypeScriptWireTypesMatchGo(t *testing.T) {
	ts := tsInterfaces(t, filepath.Join("..", "editors", "vscode", "src", "wire.ts"))
	for name, typ := range wireTypes {
		t.Run(name, func(t *testing.T) {
			fields, ok := ts[name]
			require.True(t, ok, "wire.ts has no interface %s", name)
			goFields := jsonFields(typ)
			if len(goFields) == 0 || !strings.Contains(string(typ.Field(0).Tag), "json:") {
				goFields = marshalledKeys(t, reflect.New(typ).Elem().Interface())
			}
			var onlyGo, onlyTS []string
			for _, f := range goFields {
				if !slices.Contains(fields, f) {
					onlyGo = append(onlyGo, f)
				}
			}
			for _, f := range fields {
				if !slices.Contains(goFields, f) {
					onlyTS = append(onlyTS, f)
				}
			}
			require.Empty(t, onlyGo, "fields the server has and wire.ts does not (or optional in one only)")
			require.Empty(t, onlyTS, "fields wire.ts has and the server does not (or optional in one only)")
		})
	}
}

var updateProtocolDoc = flag.Bool("update", false, "rewrite the types section of docs/protocol.md")

// tsNames names each wire type as docs/protocol.md and wire.ts do.
func tsNames() map[reflect.Type]string {
	names := map[reflect.Type]string{}
	for name, typ := range wireTypes {
		names[typ] = name
	}
	names[reflect.TypeFor[session.Block]()] = "Block"
	return names
}

// tsType writes a Go type as docs/protocol.md shows it.
func tsType(t reflect.Type, names map[reflect.Type]string) string {
	if n, ok := names[t]; ok {
		return "`" + n + "`"
	}
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return "JSON"
	case reflect.TypeFor[time.Time]():
		return "string (RFC 3339 time)"
	}
	marshals := t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) || t.Implements(reflect.TypeFor[json.Marshaler]())
	if marshals && t.Kind() != reflect.Struct && t.Kind() != reflect.Pointer {
		return "string" // an enum that writes itself as its name (settings.Source)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return tsType(t.Elem(), names)
	case reflect.Slice:
		return tsType(t.Elem(), names) + "[]"
	case reflect.Map:
		return "{string: " + tsType(t.Elem(), names) + "}"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Struct:
		return "object"
	case reflect.Interface:
		return "JSON"
	}
	return "number"
}

// typeFields lists t's JSON fields with their types, embedded structs'
// included.
func typeFields(t reflect.Type, names map[reflect.Type]string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, typeFields(f.Type, names)...)
			continue
		}
		if strings.Contains(opts, "omitempty") {
			name += "?"
		}
		out = append(out, "`"+name+"` "+tsType(f.Type, names))
	}
	return out
}

// protocolTypes is the generated part of docs/protocol.md: every wire type
// and its fields.
func protocolTypes() string {
	names := tsNames()
	var b strings.Builder
	b.WriteString("| type | fields |\n|---|---|\n")
	for _, name := range slices.Sorted(maps.Keys(wireTypes)) {
		typ := wireTypes[name]
		fields := typeFields(typ, names)
		if name == "ApiMessage" {
			fields = []string{"`role` string", "`content` string or content blocks (the model API's shape)"}
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, strings.Join(fields, ", "))
	}
	return b.String()
}

// docs/protocol.md is true to the Go types: its generated types section is
// current, and every wave/* method and command the server knows is in it
// and in the VS Code client.
func TestProtocolDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "protocol.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- types:begin -->\n", "<!-- types:end -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	require.True(t, i >= 0 && j > i, "docs/protocol.md has the types markers")
	want := protocolTypes()
	if *updateProtocolDoc {
		doc = []byte(string(doc[:i+len(begin)]) + want + string(doc[j:]))
		require.NoError(t, os.WriteFile(path, doc, 0o644))
	}
	require.Equal(t, want, string(doc[i+len(begin):j]), "the types section is stale: go test ./lsp -run TestProtocolDoc -args -update")

	ts, err := os.ReadFile(filepath.Join("..", "editors", "vscode", "src", "wire.ts"))
	require.NoError(t, err)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	literal := regexp.MustCompile(`"(wave[/.][A-Za-z.]+)"`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			seen[m[1]] = true
		}
	}
	require.Contains(t, seen, "wave/preToolUse", "the method names were found")
	for name := range seen {
		require.Contains(t, string(doc), "`"+name+"`", "docs/protocol.md names %s", name)
		if strings.HasPrefix(name, "wave/") {
			require.Contains(t, string(ts), "'"+name+"'", "editors/vscode/src/wire.ts names %s", name)
		}
	}
}

// The handler table (handlers.go) and docs/protocol.md list the same
// methods: each wave/* method the server answers is a row of the doc's
// "Client → server requests" table and each row is one it answers, and
// every LSP method it answers is named in the doc.
func TestHandlerTableIsDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	require.NoError(t, err)
	doc := string(raw)
	const heading = "## Client → server requests\n"
	i := strings.Index(doc, heading)
	require.GreaterOrEqual(t, i, 0, "docs/protocol.md has the requests section")
	section := doc[i+len(heading):]
	if j := strings.Index(section, "\n## "); j >= 0 {
		section = section[:j]
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(wave/[A-Za-z]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	var served []string
	for _, m := range lsp.Methods() {
		switch {
		case m == lsp.MethodTestPanic: // the test binary's own
		case strings.HasPrefix(m, "wave/"):
			served = append(served, m)
		default:
			require.True(t, strings.Contains(doc, "`"+m+"`") || strings.Contains(doc, "`"+path.Base(m)+"`"),
				"docs/protocol.md names %s", m)
		}
	}
	require.NotEmpty(t, documented, "the requests table was found")
	require.ElementsMatch(t, documented, served, "the wave/* requests of docs/protocol.md and of the handler table")
}
