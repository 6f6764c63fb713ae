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
