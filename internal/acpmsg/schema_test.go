package acpmsg

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// extensionFields are the JSON names of annotated types that are not in the
// schema definition they name, each with the reason: wavehooks' own
// members. Keyed "Type.name".
var extensionFields = map[string]string{
	// None today. An entry needs a reason a reviewer can check, e.g.
	// "UpdatedBashInput.args": "the proxy's own addition to Bash's input".
}

// unstableFields are JSON names found only in the schema's unstable
// variant (schema.unstable.json), which agents already send.
// Keyed "Type.name", with the reason. (ContentChunk.messageId was one; it
// is in the stable schema since 1.21.0 at the latest.)
var unstableFields = map[string]string{}

// TestFieldsInSchema holds every type whose doc comment names its schema
// definition ("(schema: X)", "(schema: X "variant")", several names
// separated by commas) to the vendored ACP v1 schema: each field's JSON
// name must be a property of one of the definitions named (their allOf
// and $ref followed, and of a union the variants named, or all of them).
// A misspelt tag would decode nothing and encode a member no peer reads.
func TestFieldsInSchema(t *testing.T) {
	stable := loadSchema(t, "schema/v1/schema.json")
	unstable := loadSchema(t, "schema/v1/schema.unstable.json")
	types := annotatedTypes(t)
	if len(types) < 20 {
		t.Fatalf("found %d annotated types; the (schema: X) comments were not read", len(types))
	}
	checked := map[string]bool{}
	for _, typ := range types {
		for _, field := range typ.fields {
			checked[typ.name+"."+field] = true
		}
	}
	for _, list := range []map[string]string{extensionFields, unstableFields} {
		for key := range list {
			if !checked[key] {
				t.Errorf("%s is listed as an exception but is no field of an annotated type", key)
			}
		}
	}
	t.Logf("checked %d fields of %d types", len(checked), len(types))
	for _, typ := range types {
		for _, def := range typ.defs {
			if stable.defs[def.name] == nil {
				t.Errorf("%s: definition %s is not in the v1 schema", typ.name, def.name)
			}
		}
		for _, field := range typ.fields {
			key := typ.name + "." + field
			inStable, inUnstable := false, false
			for _, def := range typ.defs {
				inStable = inStable || stable.properties(def.name, def.variants)[field]
				inUnstable = inUnstable || unstable.properties(def.name, def.variants)[field]
			}
			_, ext := extensionFields[key]
			_, unst := unstableFields[key]
			switch {
			case inStable && (ext || unst):
				t.Errorf("%s is in the v1 schema now: take it off the test's exception lists", key)
			case inStable:
			case unst && inUnstable:
			case unst:
				t.Errorf("%s is listed as unstable but is not in schema.unstable.json's definition", key)
			case ext:
			default:
				t.Errorf("%s: %q is not a property of %s in the v1 schema (a misspelt tag, or wavehooks' own extension to list in extensionFields with its reason)",
					typ.name, field, typ.defNames())
			}
		}
	}
}

// TestVendoredSchemaVersions checks that each vendored schema says which
// release it is, so that a bump is a reviewed change of data.
func TestVendoredSchemaVersions(t *testing.T) {
	for dir, major := range map[string]string{"schema/v1": "1.", "schema/v2": "2."} {
		b, err := os.ReadFile(dir + "/version")
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if !strings.HasPrefix(first, major) || !strings.Contains(string(b), "commit: ") {
			t.Errorf("%s/version does not name a %sx release and its commit:\n%s", dir, major, b)
		}
		for _, f := range []string{"schema.json", "meta.json"} {
			loadJSON(t, dir+"/"+f)
		}
	}
}

// schemaDef is a definition a type names, with the union variants named.
type schemaDef struct {
	name     string
	variants []string
}

// annotatedType is a struct type of this package with its schema definitions.
type annotatedType struct {
	name   string
	defs   []schemaDef
	fields []string
}

func (a annotatedType) defNames() string {
	var names []string
	for _, d := range a.defs {
		names = append(names, d.name)
	}
	return strings.Join(names, ", ")
}

var (
	schemaNote   = regexp.MustCompile(`\(schema:\s*([^)]*)\)`)
	schemaDefRef = regexp.MustCompile(`([A-Z][A-Za-z0-9]*)((?:\s*(?:"[^"]*"|/))*)`)
	quoted       = regexp.MustCompile(`"([^"]*)"`)
)

// annotatedTypes reads this package's source: the struct types whose doc
// comment says "(schema: …)", and their fields' JSON names.
func annotatedTypes(t *testing.T) []annotatedType { return annotatedTypesIn(t, "msg.go") }

// annotatedTypesIn is annotatedTypes for one source file of this package
// (msg.go for v1, v2.go for the v2 draft).
func annotatedTypesIn(t *testing.T, file string) []annotatedType {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []annotatedType
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE || gen.Doc == nil {
			continue
		}
		note := schemaNote.FindStringSubmatch(gen.Doc.Text())
		if note == nil {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			typ := annotatedType{name: ts.Name.Name}
			for _, ref := range schemaDefRef.FindAllStringSubmatch(note[1], -1) {
				def := schemaDef{name: ref[1]}
				for _, v := range quoted.FindAllStringSubmatch(ref[2], -1) {
					def.variants = append(def.variants, v[1])
				}
				typ.defs = append(typ.defs, def)
			}
			for _, field := range st.Fields.List {
				if field.Tag == nil {
					t.Errorf("%s: a field has no json tag", ts.Name.Name)
					continue
				}
				tag, _ := strconv.Unquote(field.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				if name == "" || name == "-" {
					t.Errorf("%s: a field has no JSON name", ts.Name.Name)
					continue
				}
				typ.fields = append(typ.fields, name)
			}
			out = append(out, typ)
		}
	}
	return out
}

// schema is a vendored ACP JSON schema's definitions.
type schema struct {
	defs map[string]*node
}

// node is the part of a JSON schema node that names properties.
type node struct {
	Ref        string           `json:"$ref"`
	Properties map[string]*node `json:"properties"`
	AllOf      []*node          `json:"allOf"`
	AnyOf      []*node          `json:"anyOf"`
	OneOf      []*node          `json:"oneOf"`
	Const      any              `json:"const"`
}

func loadJSON(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("%s is not JSON", path)
	}
	return b
}

func loadSchema(t *testing.T, path string) *schema {
	var doc struct {
		Defs map[string]*node `json:"$defs"`
	}
	if err := json.Unmarshal(loadJSON(t, path), &doc); err != nil || len(doc.Defs) == 0 {
		t.Fatalf("%s: no $defs (%v)", path, err)
	}
	return &schema{defs: doc.Defs}
}

// properties is the set of property names of definition name: its own, its
// allOf's and $ref's, and those of the union members whose discriminator
// (a property's const) is one of variants, or of every member when no
// variant is named.
func (s *schema) properties(name string, variants []string) map[string]bool {
	props := map[string]bool{}
	if def := s.defs[name]; def != nil {
		s.collect(def, variants, props, map[*node]bool{})
	}
	return props
}

func (s *schema) collect(n *node, variants []string, props map[string]bool, seen map[*node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	if ref, ok := strings.CutPrefix(n.Ref, "#/$defs/"); ok {
		s.collect(s.defs[ref], nil, props, seen)
	}
	for name := range n.Properties {
		props[name] = true
	}
	for _, sub := range n.AllOf {
		s.collect(sub, nil, props, seen)
	}
	for _, union := range [][]*node{n.AnyOf, n.OneOf} {
		for _, member := range union {
			if len(variants) == 0 || slices.Contains(variants, discriminator(member)) {
				s.collect(member, nil, props, seen)
			}
		}
	}
}

// discriminator is the const of a union member's property ("type":
// "text", "sessionUpdate": "tool_call"), "" when it has none.
func discriminator(n *node) string {
	for _, p := range n.Properties {
		if c, ok := p.Const.(string); ok {
			return c
		}
	}
	return ""
}
