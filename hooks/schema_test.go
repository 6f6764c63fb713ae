package hooks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
)

// The VS Code extension validates settings files with a JSON schema. Its
// events — one entry each, with what its matcher is compared with, when it
// fires, what exit 2 does and the fields its stdin adds — are made from the
// server's event specs, and its keys' descriptions are the server's hover
// texts, so that the schema cannot know another set of events or keys or
// say something else about one: `go test ./hooks -run
// TestVSCodeSchemaEvents -update` writes them.
func TestVSCodeSchemaEvents(t *testing.T) {
	path := filepath.Join("..", "editors", "vscode", "schemas", "settings.schema.json")
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

// rootKeyTypes are the JSON types of the settings keys the schema would not
// otherwise know (the parser checks them; the schema only documents them).
var rootKeyTypes = map[string]string{"importVSCodeHooks": "boolean", "allowManagedHooksOnly": "boolean"}

// keyDocs gives every settings key and hook key in the schema the text the
// server's hover shows (hooks.KeyDocs), as VS Code's markdown description,
// and checks that the schema has exactly the keys the parser knows
// (hooks.RootKeys: the schema lets other keys through, as Claude Code's
// settings have many; hooks.HookKeys: a hook has no others).
func keyDocs(t *testing.T, schema *orderedJSON) {
	for _, place := range []struct {
		path []string
		keys []string
	}{
		{[]string{"properties"}, hooks.RootKeys},
		{[]string{"definitions", "hook", "properties"}, hooks.HookKeys},
	} {
		props := schema.at(place.path...)
		require.NotNil(t, props, "the schema has %s", strings.Join(place.path, "."))
		for _, k := range place.keys {
			if props.at(k) == nil {
				typ, ok := rootKeyTypes[k]
				require.True(t, ok, "the schema's %s lacks %q, and its type is not known here", strings.Join(place.path, "."), k)
				props.set(k, object("type", value(typ)))
			}
			doc, ok := hooks.KeyDocs[k]
			require.True(t, ok, "hooks.KeyDocs explains %q", k)
			prop := props.at(k)
			prop.remove("description")
			prop.set("markdownDescription", value(doc))
		}
		require.ElementsMatch(t, place.keys, props.keys, "the keys of %s", strings.Join(place.path, "."))
	}
}

// schemaEvents is the schema's entry for every event, in the engine's order.
func schemaEvents() orderedJSON {
	out := orderedJSON{object: true}
	for _, ev := range hooks.Events() {
		spec, _ := hooks.Spec(ev)
		matcher := orderedJSON{object: true}
		matcher.set("type", value("string"))
		switch {
		case ev == hooks.FileChanged:
			matcher.set("description", value("The `|`-separated names of the files to watch in the project root; compared with the changed file's name."))
		case spec.MatchField != "":
			d := fmt.Sprintf("Compared with the stdin field `%s`", spec.MatchField)
			if vals := hooks.MatcherValues[ev]; len(vals) > 0 {
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
