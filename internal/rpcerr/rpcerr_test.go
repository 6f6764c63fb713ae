package rpcerr

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readDoc reads a file of docs/.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	require.NoError(t, err)
	return string(b)
}

// docs/protocol.md's "Errors" table lists the codes the LSP server answers
// with, each with the name this table gives it: a value changed here is a
// wire change the docs would contradict.
func TestProtocolDocErrorTable(t *testing.T) {
	doc := readDoc(t, "protocol.md")
	_, section, ok := strings.Cut(doc, "\n## Errors\n")
	require.True(t, ok, "docs/protocol.md has an Errors section")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `(-?\\d+)`( [A-Za-z]+)? \\|")
	documented := map[int]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		code, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		documented[code] = strings.TrimSpace(m[2])
	}
	want := map[int]string{
		ParseError:           "ParseError",
		InvalidRequest:       "InvalidRequest",
		MethodNotFound:       "MethodNotFound",
		InvalidParams:        "InvalidParams",
		InternalError:        "InternalError",
		ServerNotInitialized: "", // the doc names it by its value only
		RequestCancelled:     "RequestCancelled",
	}
	require.Equal(t, want, documented)
}

// docs/acp.md tells agent and editor authors the codes the proxy answers
// with: a hook's deny of a file or terminal request, a refused message, a
// line that is not JSON.
func TestACPDocCodes(t *testing.T) {
	doc := readDoc(t, "acp.md")
	require.Equal(t, -32001, HookDenied, "the code agents were told")
	require.Contains(t, doc, "(code "+strconv.Itoa(HookDenied)+")")
	require.Contains(t, doc, "InvalidRequest ("+strconv.Itoa(InvalidRequest)+")")
	require.Contains(t, doc, "parse error ("+strconv.Itoa(ParseError)+")")
}

// Every code means one thing: no two names share a value.
func TestCodesAreDistinct(t *testing.T) {
	seen := map[int]bool{}
	for _, c := range []int{ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError,
		HookDenied, ServerNotInitialized, RequestCancelled} {
		require.False(t, seen[c], "code %d appears twice", c)
		seen[c] = true
	}
}
