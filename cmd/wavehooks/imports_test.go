package main

import (
	"go/parser"
	"go/token"
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
