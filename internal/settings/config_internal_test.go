package settings

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestManagedFileFor(t *testing.T) {
	require.Equal(t, "/etc/wave/managed-settings.json", managedFileFor("linux", ""))
	require.Equal(t, "/etc/wave/managed-settings.json", managedFileFor("darwin", `C:\ProgramData`))
	require.Equal(t, `C:\ProgramData\wave\managed-settings.json`, managedFileFor("windows", `C:\ProgramData`))
	require.Equal(t, `D:\Data\wave\managed-settings.json`, managedFileFor("windows", `D:\Data\`))
	require.Equal(t, `C:\ProgramData\wave\managed-settings.json`, managedFileFor("windows", ""), "ProgramData unset")
}

// TestClaudeManagedDirFor holds the directories to where Claude Code 2.1.332
// reads its managed settings (its bundle's managed-path function).
func TestClaudeManagedDirFor(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "/etc/claude-code",
		"darwin":  "/Library/Application Support/ClaudeCode",
		"windows": `C:\Program Files\ClaudeCode`,
		"freebsd": "/etc/claude-code",
	} {
		require.Equal(t, want, claudeManagedDirFor(goos), goos)
	}
}
