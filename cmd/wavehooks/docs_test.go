package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The hook author's guide shows example scripts that the tests run; a copy
// that drifted from the script would teach something no test checks. Each
// shell block of docs/hooks.md that names a script of testdata/hooks on its
// second line must show that script's code (comments aside) as it is.
func TestHookGuideShowsTheScriptsTheTestsRun(t *testing.T) {
	doc, err := os.ReadFile("../../docs/hooks.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	named := regexp.MustCompile(`^# (testdata/hooks/[\w.-]+)`)
	shown := 0
	for _, b := range blocks {
		lines := strings.Split(b[1], "\n")
		if len(lines) < 2 {
			continue
		}
		m := named.FindStringSubmatch(lines[1])
		if m == nil {
			continue
		}
		shown++
		script, err := os.ReadFile(filepath.Join("../..", m[1]))
		require.NoError(t, err, "docs/hooks.md shows %s, which does not exist", m[1])
		require.Equal(t, code(string(script)), code(b[1]), "docs/hooks.md's copy of %s", m[1])
	}
	require.GreaterOrEqual(t, shown, 2, "the guide's example scripts")
}

// code is a shell script without its comment lines and trailing blank lines.
func code(script string) string {
	var keep []string
	for _, l := range strings.Split(script, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			keep = append(keep, l)
		}
	}
	return strings.TrimRight(strings.Join(keep, "\n"), "\n")
}
