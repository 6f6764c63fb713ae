package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The CLI prints through the host (internal/host, internal/wire), never
// through the LSP server: only serve, in main.go, imports lsp (issue #25).
func TestOnlyServeImportsLSP(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var importers []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/wavehooks/wavehooks/internal/lsp" {
				importers = append(importers, f)
			}
		}
	}
	require.Equal(t, []string{"main.go"}, importers)
}

// A workspace is set up in one place, internal/host (Host.Open): no other
// package of the binary builds a hook engine of its own — `run`, `test`,
// `demo`, serve and the proxy all open their workspace through the host
// (issue #25, "no package outside the host repeats workspace setup").
func TestOnlyTheHostBuildsAnEngine(t *testing.T) {
	var builders []string
	for _, root := range []string{".", filepath.Join("..", "..", "internal")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || path == filepath.Join(root, "hooks")) {
				return filepath.SkipDir // the engine's own package builds it
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(parsed, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewEngine" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "hooks" {
						builders = append(builders, filepath.ToSlash(path))
					}
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
	}
	require.Equal(t, []string{"../../internal/host/workspace.go"}, builders)
}

// The hook packages import only the ones below them, as the README's
// dependency line says: event and shellread none, settings the two of them,
// proc settings, trust proc and settings, and the engine (hooks) all five.
// Go refuses a cycle, but not a low package that starts to lean on a
// sibling (event on settings, shellread on event), which would bring the
// one package of six jobs back (issue #25).
func TestHookPackagesImportOnlyTheLayersBelow(t *testing.T) {
	const mod = "github.com/wavehooks/wavehooks/internal/"
	hookPkgs := map[string]bool{"event": true, "shellread": true, "settings": true, "proc": true, "trust": true, "hooks": true}
	allowed := map[string][]string{
		"event":     nil,
		"shellread": nil,
		"settings":  {"event", "shellread"},
		"proc":      {"event", "settings"},
		"trust":     {"event", "settings", "shellread", "proc"},
		"hooks":     {"event", "settings", "shellread", "proc", "trust"},
	}
	for pkg, ok := range allowed {
		t.Run(pkg, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("..", "..", "internal", pkg, "*.go"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
				require.NoError(t, err)
				for _, imp := range parsed.Imports {
					path, _ := strconv.Unquote(imp.Path.Value)
					name, internal := strings.CutPrefix(path, mod)
					if !internal || !hookPkgs[name] {
						continue
					}
					require.Contains(t, ok, name, "%s imports internal/%s, a package at or above its own layer", f, name)
				}
			}
		})
	}
}
