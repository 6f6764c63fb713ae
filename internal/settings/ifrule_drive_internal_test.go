package settings

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAbsolutePatternsNameWindowsDrives checks "//abs" file patterns (a
// hook's "if": Edit(//…)) against drive-letter paths on Windows, where
// they run under Wine in make test-wine: the drive can be written C:, c: or
// c, a pattern on another drive or with no drive does not match. On main no
// "//abs" pattern could match any Windows file. On other systems it checks
// the two conversions the match uses.
func TestAbsolutePatternsNameWindowsDrives(t *testing.T) {
	require.Equal(t, "/c/Users/x/a.txt", drivePosix(`C:\Users\x\a.txt`))
	require.Equal(t, `\\server\share\a`, drivePosix(`\\server\share\a`))
	for rel, want := range map[string]string{"/C:/x/**": "/c/x/**", "/c:": "/c", "/D/x": "/d/x", "/Users/x": "/Users/x", "/**/.env": "/**/.env"} {
		require.Equal(t, want, drivePattern(rel), rel)
	}
	if runtime.GOOS != "windows" {
		return
	}
	root := `C:\proj`
	for _, tc := range []struct {
		pattern, file string
		want          bool
	}{
		{"//C:/Users/x/**", `C:\Users\x\secret.txt`, true},
		{"//c:/Users/x/**", `C:\Users\x\secret.txt`, true},
		{"//c/Users/x/**", `c:\Users\x\secret.txt`, true},
		{"//C:/Users/x/secret.txt", `C:\Users\x\secret.txt`, true},
		{"//C:/Users/x/**", `D:\Users\x\secret.txt`, false},
		{"//Users/x/**", `C:\Users\x\secret.txt`, false},
		{"//**/.env", `C:\proj\sub\.env`, true},
		{"//C:/Users/x/**", `C:\Users\y\secret.txt`, false},
	} {
		require.Equal(t, tc.want, matchPath(tc.pattern, tc.file, root, root), "%s ~ %s", tc.pattern, tc.file)
	}
}
