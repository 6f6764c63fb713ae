package acp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wireCalls are the functions through which the proxy's own bytes leave it:
// what is built inside their arguments goes on the wire (or to a hook).
var wireCalls = map[string]bool{
	"encodeLine": true, "resultLine": true, "errorLine": true, "requestLine": true, "notificationLine": true,
	"withParams": true, "mustRaw": true, "call": true, "Marshal": true,
}

// untypedMaps reports the map literals of a Go file the proxy sends on the
// wire: any map[...]any / map[...]interface{} literal (such a map exists only
// to be encoded), and any other map literal built inside the arguments of a
// wire call or put in a variable that one is then given. A named map type
// (acpmsg.Object, the members of an object the proxy edits) is not an
// untyped map.
func untypedMaps(fset *token.FileSet, file *ast.File) []string {
	var found []string
	report := func(n ast.Node, why string) {
		found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), why))
	}
	isMapLit := func(e ast.Expr) (*ast.CompositeLit, *ast.MapType) {
		if lit, ok := ast.Unparen(e).(*ast.CompositeLit); ok {
			if mt, ok := lit.Type.(*ast.MapType); ok {
				return lit, mt
			}
		}
		return nil, nil
	}
	anyType := func(e ast.Expr) bool {
		switch v := e.(type) {
		case *ast.Ident:
			return v.Name == "any"
		case *ast.InterfaceType:
			return len(v.Methods.List) == 0
		}
		return false
	}
	// Rule 1: a map of any, anywhere.
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok {
			if mt, ok := lit.Type.(*ast.MapType); ok && anyType(mt.Value) {
				report(lit, "a map of any is built to be encoded: use a type of internal/acpmsg")
			}
		}
		return true
	})
	calleeName := func(call *ast.CallExpr) string {
		switch f := call.Fun.(type) {
		case *ast.Ident:
			return f.Name
		case *ast.SelectorExpr:
			return f.Sel.Name
		}
		return ""
	}
	// Rules 2 and 3, per function: map literals inside a wire call's
	// arguments, and variables holding one that a wire call is given.
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		held := map[string]ast.Node{} // variable → the map literal it was given
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.AssignStmt:
				for i, rhs := range v.Rhs {
					if i >= len(v.Lhs) {
						break
					}
					id, ok := v.Lhs[i].(*ast.Ident)
					if !ok {
						continue
					}
					if lit, mt := isMapLit(rhs); lit != nil && !anyType(mt.Value) {
						held[id.Name] = lit
					}
					if call, ok := rhs.(*ast.CallExpr); ok && calleeName(call) == "append" {
						for _, a := range call.Args[1:] {
							if lit, _ := isMapLit(a); lit != nil {
								held[id.Name] = lit
							}
						}
					}
				}
			case *ast.ValueSpec:
				for i, val := range v.Values {
					if lit, mt := isMapLit(val); lit != nil && !anyType(mt.Value) && i < len(v.Names) {
						held[v.Names[i].Name] = lit
					}
				}
			}
			return true
		})
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !wireCalls[calleeName(call)] {
				return true
			}
			for _, arg := range call.Args {
				ast.Inspect(arg, func(n ast.Node) bool {
					switch v := n.(type) {
					case *ast.CompositeLit:
						if mt, ok := v.Type.(*ast.MapType); ok && !anyType(mt.Value) {
							report(v, "a map literal is sent through "+calleeName(call)+": use a type of internal/acpmsg")
						}
					case *ast.Ident:
						if lit := held[v.Name]; lit != nil {
							report(lit, "a map literal in "+v.Name+" is sent through "+calleeName(call)+": use a type of internal/acpmsg")
						}
					}
					return true
				})
			}
			return true
		})
	}
	sort.Strings(found)
	return slices.Compact(found)
}

// The proxy sends no untyped maps: every message it builds is one of
// internal/acpmsg's types (issue #25), so the compiler checks its shape and
// a golden file its bytes.
func TestProxySendsNoUntypedMaps(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var found []string
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		found = append(found, untypedMaps(fset, file)...)
		checked++
	}
	require.Greater(t, checked, 10, "the proxy's files were read")
	require.Empty(t, found, "untyped maps the proxy sends")
}

// The check finds each form of untyped map it is meant to find, and lets
// lookup tables and typed values be.
func TestUntypedMapsCheck(t *testing.T) {
	cases := []struct {
		name, body string
		found      int
	}{
		{"a map of any sent", `p.sendEditor(notificationLine("m", map[string]any{"a": 1}))`, 1},
		{"a map of interface{} anywhere", `x := map[string]interface{}{"a": 1}; _ = x`, 1},
		{"nested maps of any", `_ = resultLine(id, map[string]any{"o": map[string]any{"a": 1}})`, 2},
		{"a package-level map of any", ``, 1},
		{"a map of strings in a wire call", `_ = resultLine(id, map[string]string{"stopReason": "x"})`, 1},
		{"a map of strings held, then sent", `in := map[string]json.RawMessage{"a": nil}; _ = mustRaw(in)`, 1},
		{"a list of maps appended, then sent", `var env []map[string]string; env = append(env, map[string]string{"n": "v"}); _ = mustRaw(env)`, 1},
		{"a typed value", `_ = resultLine(id, acpmsg.PromptResponse{StopReason: "x"})`, 0},
		{"an Object the proxy edits", `o := acpmsg.Object{}; _ = withParams(m, o)`, 0},
		{"a lookup table not sent", `kinds := map[string]string{"a": "b"}; _ = kinds["a"]`, 0},
		{"a map given to something else", `f(map[string]string{"file_path": "path"})`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "package acp\n\nfunc f() {\n" + c.body + "\n}\n"
			if c.name == "a package-level map of any" {
				src = "package acp\n\nvar cancelled = map[string]any{\"outcome\": \"cancelled\"}\n"
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "x.go", src, 0)
			require.NoError(t, err)
			require.Len(t, untypedMaps(fset, file), c.found, "%s", src)
		})
	}
}
