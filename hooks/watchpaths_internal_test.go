package hooks

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func watchPathsJSON(n int) json.RawMessage {
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("/project/src/dir%d/file%d.go", (i/2)%100, i/2) // every path twice
	}
	b, _ := json.Marshal(paths)
	return b
}

// readWatchPaths keeps the first MaxWatchPaths distinct paths, in order,
// and says the rest were left out; a relative path rejects the answer.
func TestReadWatchPathsCapsAndDedupes(t *testing.T) {
	cases := []struct {
		name           string
		raw            json.RawMessage
		n              int
		first, last    string
		problem, noted bool
	}{
		{"a few, repeated", json.RawMessage(`["/a", "/b/../a", "/c", "/a/"]`), 2, "/a", "/c", false, false},
		{"28,000 with repeats: 14,000 distinct", watchPathsJSON(28_000), MaxWatchPaths, "/project/src/dir0/file0.go", "", false, true},
		{"exactly the cap", watchPathsJSON(2 * MaxWatchPaths), MaxWatchPaths, "/project/src/dir0/file0.go", "", false, false},
		{"a relative path", json.RawMessage(`["/a", "b"]`), 0, "", "", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paths, problem, note := readWatchPaths(c.raw)
			require.Len(t, paths, c.n)
			require.Equal(t, c.problem, problem != "", problem)
			require.Equal(t, c.noted, note != "", note)
			if c.n > 0 {
				require.Equal(t, c.first, paths[0])
			}
			if c.last != "" {
				require.Equal(t, c.last, paths[len(paths)-1])
			}
			seen := map[string]bool{}
			for _, p := range paths {
				require.False(t, seen[p], "repeated: %s", p)
				seen[p] = true
			}
		})
	}
	merged, all := mergeWatchPaths([]string{"/a", "/b"}, []string{"/b", "/c"})
	require.True(t, all)
	require.Equal(t, []string{"/a", "/b", "/c"}, merged)
	full, _, _ := readWatchPaths(watchPathsJSON(2 * MaxWatchPaths))
	_, all = mergeWatchPaths(full, []string{"/one/more"})
	require.False(t, all, "a second hook's paths past the cap are left out, and the run says so")
}

// BenchmarkReadWatchPaths28k reads the 28,000 watchPaths of the issue's
// measurement (3.6 s of CPU when each path was compared with every other).
func BenchmarkReadWatchPaths28k(b *testing.B) {
	raw := watchPathsJSON(28_000)
	b.ReportAllocs()
	for b.Loop() {
		readWatchPaths(raw)
	}
}
