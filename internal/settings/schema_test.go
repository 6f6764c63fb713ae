package settings_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// The VS Code extension validates settings files with a JSON schema. Its
// events — one entry each, with what its matcher is compared with, when it
// fires, what exit 2 does and the fields its stdin adds — are made from the
// server's event specs, its keys' shapes (type, allowed values, elements)
// and each hook type's required keys are the parser's (internal/settings/keyshapes.go),
// and its keys' descriptions are the server's hover texts, so that the
// schema cannot know another set of events or keys or say something else
// about one: `go test ./hooks -run TestVSCodeSchemaEvents -args -update`
// writes them.
func TestVSCodeSchemaEvents(t *testing.T) {
	path := filepath.Join("..", "..", "editors", "vscode", "schemas", "settings.schema.json")
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	var schema orderedJSON
	require.NoError(t, json.Unmarshal(text, &schema))
	keyDocs(t, &schema) // before taking a pointer into the tree: it removes keys
	events := schema.at("properties", "hooks", "properties")
	require.NotNil(t, events, "the schema has properties.hooks.properties")
	want := schemaEvents()
	if *update {
		*events = want
		var b bytes.Buffer
		schema.write(&b, "")
		b.WriteByte('\n')
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		return
	}
	var got, wanted bytes.Buffer
	events.write(&got, "")
	want.write(&wanted, "")
	require.Equal(t, wanted.String(), got.String(), "the schema's events are stale: go test ./hooks -run TestVSCodeSchemaEvents -update")
	var written bytes.Buffer
	schema.write(&written, "")
	written.WriteByte('\n')
	require.Equal(t, written.String(), string(text), "the schema's key docs are stale: go test ./hooks -run TestVSCodeSchemaEvents -update")
}

// keyDocs gives every settings key and hook key in the schema its shape
// (hooks.SettingsKeyShapes, hooks.HookKeyShapes: the parser's own) and the
// text the server's hover shows (hooks.KeyDocs) as VS Code's markdown
// description, and each hook type the keys it needs (hooks.HookTypeNeeds);
// it checks that the schema has exactly the keys the parser knows
// (hooks.RootKeys: the schema lets other keys through, as Claude Code's
// settings have many; hooks.HookKeys: a hook has no others). What a shape
// does not say (defaults, enum descriptions, snippets) stays as written.
func keyDocs(t *testing.T, schema *orderedJSON) {
	for _, place := range []struct {
		path   []string
		keys   []string
		shapes map[string]settings.KeyShape
	}{
		{[]string{"properties"}, settings.RootKeys, settings.SettingsKeyShapes},
		{[]string{"definitions", "hook", "properties"}, settings.HookKeys, settings.HookKeyShapes},
	} {
		props := schema.at(place.path...)
		require.NotNil(t, props, "the schema has %s", strings.Join(place.path, "."))
		shapeKeys := make([]string, 0, len(place.shapes))
		for k := range place.shapes {
			shapeKeys = append(shapeKeys, k)
		}
		require.ElementsMatch(t, place.keys, shapeKeys, "the keys with a shape at %s", strings.Join(place.path, "."))
		for _, k := range place.keys {
			if props.at(k) == nil {
				props.set(k, orderedJSON{object: true})
			}
			doc, ok := settings.KeyDocs[k]
			require.True(t, ok, "hooks.KeyDocs explains %q", k)
			prop := props.at(k)
			writeShape(prop, place.shapes[k])
			prop.remove("description")
			prop.remove("markdownDescription") // last, as it was
			prop.set("markdownDescription", value(doc))
		}
		require.ElementsMatch(t, place.keys, props.keys, "the keys of %s", strings.Join(place.path, "."))
	}
	hook := schema.at("definitions", "hook")
	require.NotNil(t, hook, "the schema has definitions.hook")
	hook.set("allOf", typeNeeds())
}

// writeShape sets the schema keywords of a key's shape on prop, and removes
// those the shape does not have. An object's additionalProperties is left
// as written when the shape says nothing of its members ("hooks" lists its
// events, "input" takes any).
func writeShape(prop *orderedJSON, s settings.KeyShape) {
	setIf := func(key string, ok bool, v any) {
		if ok {
			prop.set(key, value(v))
		} else {
			prop.remove(key)
		}
	}
	prop.set("type", value(s.Type))
	setIf("minLength", s.NonEmpty, 1)
	setIf("exclusiveMinimum", s.Positive, 0)
	setIf("pattern", s.Pattern != "", s.Pattern)
	if s.Enum != nil {
		prop.set("enum", list(s.Enum))
	} else {
		prop.remove("enum")
	}
	var elem orderedJSON
	if s.Elem != nil {
		elem = orderedJSON{object: true}
		writeShape(&elem, *s.Elem)
	}
	if s.Type == "array" && s.Elem != nil {
		prop.set("items", elem)
	} else {
		prop.remove("items")
	}
	switch {
	case s.Type == "object" && s.Elem != nil:
		prop.set("additionalProperties", elem)
	case s.Type != "object":
		prop.remove("additionalProperties")
	}
}

// typeNeeds is the hook's allOf: for each hook type (types that need the
// same keys together), the keys it needs.
func typeNeeds() orderedJSON {
	var groups [][]string // types, in hooks.HookTypes order, grouped by what they need
	for _, t := range settings.HookTypes {
		found := false
		for i, g := range groups {
			if slices.Equal(settings.HookTypeNeeds[g[0]], settings.HookTypeNeeds[t]) {
				groups[i], found = append(g, t), true
			}
		}
		if !found {
			groups = append(groups, []string{t})
		}
	}
	all := orderedJSON{array: true}
	for _, g := range groups {
		cond := object("const", value(g[0]))
		if len(g) > 1 {
			cond = object("enum", list(g))
		}
		all.elems = append(all.elems, object(
			"if", object("properties", object("type", cond)),
			"then", object("required", list(settings.HookTypeNeeds[g[0]]))))
	}
	return all
}

// schemaEvents is the schema's entry for every event, in the engine's order.
func schemaEvents() orderedJSON {
	out := orderedJSON{object: true}
	for _, ev := range event.Events() {
		spec, _ := event.Spec(ev)
		matcher := orderedJSON{object: true}
		matcher.set("type", value("string"))
		switch {
		case ev == event.FileChanged:
			matcher.set("description", value("The `|`-separated names of the files to watch in the project root; compared with the changed file's name."))
		case spec.MatchField != "":
			d := fmt.Sprintf("Compared with the stdin field `%s`", spec.MatchField)
			if vals := event.MatcherValues[ev]; len(vals) > 0 {
				d += " (" + strings.Join(vals, ", ") + ")"
			}
			d += `. Omitted, "" or "*" match everything; letters, digits, _, -, space, comma and | form an exact list ("Write|Edit"); anything else is an unanchored RE2 regular expression.`
			matcher.set("description", value(d))
		default:
			matcher.set("description", value("This event ignores matchers: every hook of the event runs."))
			matcher.set("deprecationMessage", value("This event ignores matchers."))
		}
		groupHooks := orderedJSON{object: true}
		groupHooks.set("type", value("array"))
		groupHooks.set("items", object("$ref", value("#/definitions/hook")))
		groupHooks.set("description", value("The hooks of this group; all matching hooks of an event run in parallel, and their results combine in configuration order."))
		props := orderedJSON{object: true}
		props.set("matcher", matcher)
		props.set("hooks", groupHooks)
		props.set("enabled", object("type", value("boolean"), "markdownDescription", value(settings.KeyDocs["enabled"])))
		snippet := object("type", value("command"))
		body := orderedJSON{object: true}
		label := "hook group"
		if spec.MatchField != "" {
			label = "matcher group"
			body.set("matcher", value("$1"))
			snippet.set("command", value("$2"))
		} else {
			snippet.set("command", value("$1"))
		}
		body.set("hooks", orderedJSON{elems: []orderedJSON{snippet}})
		group := orderedJSON{object: true}
		group.set("type", value("object"))
		group.set("properties", props)
		group.set("required", orderedJSON{elems: []orderedJSON{value("hooks")}})
		group.set("additionalProperties", value(false))
		group.set("defaultSnippets", orderedJSON{elems: []orderedJSON{object("label", value(label), "body", body)}})
		desc := spec.Summary + " Exit 2: " + spec.Exit2
		if len(spec.Fields) > 0 {
			desc += " Stdin adds " + strings.Join(spec.Fields, ", ") + "."
		}
		entry := orderedJSON{object: true}
		entry.set("type", value("array"))
		entry.set("items", group)
		entry.set("description", value(desc))
		out.set(string(ev), entry)
	}
	return out
}

// orderedJSON is a JSON value that keeps its keys in the order they were
// read or set, so that the schema file is rewritten as it was written.
type orderedJSON struct {
	object, array bool
	keys          []string
	elems         []orderedJSON // values of keys (object) or elements (array)
	scalar        json.RawMessage
}

func value(v any) orderedJSON {
	b, _ := json.Marshal(v)
	return orderedJSON{scalar: b}
}

// list is a JSON array of strings.
func list(items []string) orderedJSON {
	a := orderedJSON{array: true}
	for _, s := range items {
		a.elems = append(a.elems, value(s))
	}
	return a
}

func object(kv ...any) orderedJSON {
	o := orderedJSON{object: true}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1].(orderedJSON))
	}
	return o
}

func (o *orderedJSON) set(key string, v orderedJSON) {
	for i, k := range o.keys {
		if k == key {
			o.elems[i] = v
			return
		}
	}
	o.keys = append(o.keys, key)
	o.elems = append(o.elems, v)
}

// remove deletes a key of an object, if it has it.
func (o *orderedJSON) remove(key string) {
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			o.elems = append(o.elems[:i], o.elems[i+1:]...)
			return
		}
	}
}

// at is the value at a path of object keys, or nil.
func (o *orderedJSON) at(path ...string) *orderedJSON {
	cur := o
	for _, key := range path {
		next := (*orderedJSON)(nil)
		for i, k := range cur.keys {
			if k == key {
				next = &cur.elems[i]
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

func (o *orderedJSON) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readOrdered(dec)
	*o = v
	return err
}

func readOrdered(dec *json.Decoder) (orderedJSON, error) {
	tok, err := dec.Token()
	if err != nil {
		return orderedJSON{}, err
	}
	switch tok {
	case json.Delim('{'):
		o := orderedJSON{object: true}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return o, err
			}
			v, err := readOrdered(dec)
			if err != nil {
				return o, err
			}
			o.set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		a := orderedJSON{array: true}
		for dec.More() {
			v, err := readOrdered(dec)
			if err != nil {
				return a, err
			}
			a.elems = append(a.elems, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return value(tok), nil
}

// write writes o indented by two spaces, as the schema file is.
func (o *orderedJSON) write(b *bytes.Buffer, indent string) {
	inner := indent + "  "
	switch {
	case o.object:
		if len(o.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range o.keys {
			key, _ := json.Marshal(k)
			b.WriteString(inner)
			b.Write(key)
			b.WriteString(": ")
			o.elems[i].write(b, inner)
			if i < len(o.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case o.array || o.elems != nil:
		if len(o.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i := range o.elems {
			b.WriteString(inner)
			o.elems[i].write(b, inner)
			if i < len(o.elems)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		var v any
		d := json.NewDecoder(bytes.NewReader(o.scalar))
		d.UseNumber()
		_ = d.Decode(&v)
		_ = enc.Encode(v)
		b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	}
}
