package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/host"
)

// BenchmarkReload is what a reload at a prompt costs in a workspace whose
// user settings have one hook (BenchmarkACPPermission's): a full one
// (Reload: read, parse, decide trust, install) and one that finds nothing
// changed (ReloadIfChanged: a stat of each input). docs/performance.md
// quotes it.
func BenchmarkReload(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "project")
	require.NoError(b, os.MkdirAll(root, 0o700))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`), 0o600))
	ws := host.New(host.Config{WaveHome: dir, ClaudeHome: filepath.Join(dir, ".claude"), ManagedFile: filepath.Join(dir, "managed.json")}).
		Open(root, host.Options{NoStore: true})
	defer ws.Close()
	host.SetRacyMargin(ws, 0) // the files were just written; a real workspace's are older than the margin
	b.Run("Reload", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ws.Reload()
		}
	})
	b.Run("ReloadIfChanged", func(b *testing.B) {
		ws.ReloadIfChanged()
		loads := ws.Loads()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ws.ReloadIfChanged()
		}
		b.StopTimer()
		require.Equal(b, loads, ws.Loads(), "an unchanged workspace was read again")
	})
}
