package lsp

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestFilePathReadsWindowsDrivesAndShares checks the Windows reading of file
// URIs on every system (filePathOn): both spellings of a drive an editor
// sends — file:///C:/x and VS Code's file:///c%3A/x — name C:\x, a UNC host
// names its share, and a path with no drive is refused rather than read as
// the current drive's \x. The Linux reading is unchanged.
func TestFilePathReadsWindowsDrivesAndShares(t *testing.T) {
	for _, tc := range []struct {
		goos, uri, want, err string
	}{
		{"windows", "file:///C:/Users/x", `C:\Users\x`, ""},
		{"windows", "file:///c%3A/Users/x", `C:\Users\x`, ""},
		{"windows", "file:///c:/Users/x/../y/./z", `C:\Users\y\z`, ""},
		{"windows", "file:///C:/", `C:\`, ""},
		{"windows", "file:///C:", `C:\`, ""},
		{"windows", "file://localhost/C:/Users/x%20y", `C:\Users\x y`, ""},
		{"windows", "file://server/share/dir/f.json", `\\server\share\dir\f.json`, ""},
		{"windows", "file://server/share", `\\server\share\`, ""},
		{"windows", "file://server/", "", "no share"},
		{"windows", "file:///Users/x", "", "no drive letter"},
		{"windows", "file:///C:x", "", "no drive letter"},
		{"windows", "untitled:x", "", "not a file URI"},
		{"linux", "file:///home/x/../y", "/home/y", ""},
		{"linux", "file://server/share", "", "another host"},
		{"linux", "file:///C:/x", "/C:/x", ""},
	} {
		got, err := filePathOn(tc.goos, protocol.DocumentURI(tc.uri))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%s %s", tc.goos, tc.uri)
			continue
		}
		require.NoError(t, err, "%s %s", tc.goos, tc.uri)
		require.Equal(t, tc.want, got, "%s %s", tc.goos, tc.uri)
	}
}

// TestFilePathIsAbsoluteHere checks, on the system the test runs on, that
// the path filePath makes of this system's own file URIs is one the system
// calls absolute — what initialize requires of rootUri. On Windows (run under
// Wine by make test-wine) this is the C: drive in both spellings; on main the
// two came back as \C:\Users\x, which Windows does not call absolute.
func TestFilePathIsAbsoluteHere(t *testing.T) {
	uris := []string{"file:///tmp/x"}
	if runtime.GOOS == "windows" {
		uris = []string{"file:///C:/Users/x", "file:///c%3A/Users/x"}
	}
	for _, u := range uris {
		got, err := filePath(protocol.DocumentURI(u))
		require.NoError(t, err, u)
		require.True(t, filepath.IsAbs(got), "%s → %s", u, got)
		require.Equal(t, filepath.Clean(got), got, u)
	}
}
