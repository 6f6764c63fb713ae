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
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/wavehooks/wavehooks/lsp" {
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
	for _, root := range []string{".", filepath.Join("..", "..", "internal"), filepath.Join("..", "..", "lsp"),
		filepath.Join("..", "..", "acp"), filepath.Join("..", "..", "session"), filepath.Join("..", "..", "watcher")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
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
	const mod = "github.com/wavehooks/wavehooks/"
	dirs := map[string]string{"internal/event": "event", "internal/shellread": "shellread", "internal/settings": "settings",
		"internal/proc": "proc", "internal/trust": "trust", "hooks": "hooks"}
	allowed := map[string][]string{
		"event":     nil,
		"shellread": nil,
		"settings":  {"event", "shellread"},
		"proc":      {"event", "settings"},
		"trust":     {"event", "settings", "shellread", "proc"},
		"hooks":     {"event", "settings", "shellread", "proc", "trust"},
	}
	for dir, pkg := range dirs {
		t.Run(pkg, func(t *testing.T) {
			for path, f := range moduleImports(t, filepath.Join("..", "..", dir)) {
				if name := dirs[strings.TrimPrefix(path, mod)]; name != "" {
					require.Contains(t, allowed[pkg], name, "%s imports %s, a package at or above its own layer", f, path)
				}
			}
		})
	}
}

// The house (ARCHITECTURE.md): which of the module's packages may import
// which. watcher imports none; hooks only the hook layers and the small
// helpers under internal/; session hooks and its transcript; lsp and acp
// are two adapters over the same host, and neither imports the other;
// nothing under internal/ imports an adapter; only cmd imports everything.
// The packages the design card puts at the top level never import
// go.lsp.dev, but lsp, the one that speaks LSP.
func TestTheHouseRules(t *testing.T) {
	const mod = "github.com/wavehooks/wavehooks/"
	type rule struct {
		dir    string   // a directory under the module root, its subpackages included
		denied []string // module packages (and their subpackages) it must not import
		lsp    bool     // may import go.lsp.dev/*
	}
	for _, r := range []rule{
		{dir: "watcher", denied: []string{"hooks", "session", "lsp", "acp", "internal", "cmd"}},
		{dir: "hooks", denied: []string{"session", "lsp", "acp", "watcher", "cmd", "internal/host", "internal/wire", "internal/flow"}},
		{dir: "session", denied: []string{"lsp", "acp", "watcher", "cmd", "internal/host", "internal/wire"}},
		// The telemetry export reads the runs the history records, nothing above it.
		{dir: "internal/telemetry", denied: []string{"session", "lsp", "acp", "watcher", "cmd", "internal/host", "internal/wire", "internal/flow"}},
		{dir: "acp", denied: []string{"lsp", "cmd"}},
		{dir: "lsp", denied: []string{"acp", "cmd"}, lsp: true},
		{dir: "internal", denied: []string{"lsp", "acp", "cmd"}},
	} {
		t.Run(r.dir, func(t *testing.T) {
			for path, f := range moduleImports(t, filepath.Join("..", "..", r.dir)) {
				if strings.HasPrefix(path, "go.lsp.dev/") {
					require.True(t, r.lsp, "%s imports %s: only lsp speaks LSP", f, path)
				}
				rel, ok := strings.CutPrefix(path, mod)
				if !ok {
					continue
				}
				for _, d := range r.denied {
					require.False(t, rel == d || strings.HasPrefix(rel, d+"/"), "%s imports %s, which %s must not", f, path, r.dir)
				}
			}
		})
	}
}

// moduleImports is every import of the non-test Go files under dir
// (testdata left out), with a file that imports it.
func moduleImports(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range parsed.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[p] = path
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "%s has Go files", dir)
	return out
}
