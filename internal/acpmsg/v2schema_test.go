package acpmsg

import (
	"os"
	"strings"
	"testing"
)

// TestV2FieldsInSchema holds v2.go's types to the vendored v2 draft as
// TestFieldsInSchema holds msg.go's to v1: every definition a type names
// is in schema/v2/schema.json and every field's JSON name is a property of
// one of them. It also checks that SchemaV2Release is the vendored release.
func TestV2FieldsInSchema(t *testing.T) {
	version, err := os.ReadFile("schema/v2/version")
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(version), "\n"); strings.TrimSpace(first) != SchemaV2Release {
		t.Errorf("SchemaV2Release is %s, the vendored v2 schema %s", SchemaV2Release, first)
	}
	v2 := loadSchema(t, "schema/v2/schema.json")
	types := annotatedTypesIn(t, "v2.go")
	if len(types) < 6 {
		t.Fatalf("found %d annotated types in v2.go; the (schema: X) comments were not read", len(types))
	}
	for _, typ := range types {
		for _, def := range typ.defs {
			if v2.defs[def.name] == nil {
				t.Errorf("%s: definition %s is not in the v2 schema", typ.name, def.name)
			}
		}
		for _, field := range typ.fields {
			found := false
			for _, def := range typ.defs {
				found = found || v2.properties(def.name, def.variants)[field]
			}
			if !found {
				t.Errorf("%s.%s is no property of %v in the v2 schema", typ.name, field, typ.defs)
			}
		}
	}
}
