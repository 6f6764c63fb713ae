package settings_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestLintCallsAScriptNotExecutableOnlyWhenItCannotRun checks lint's
// "not executable" error on the system the test runs on. On Unix the exec
// bit decides; on Windows (run under Wine by make test-wine), which has no
// exec bit, the extension or a #! line does — on main every script there,
// guard.exe included, was called not executable ("the hook will fail with
// exit 126") although it runs.
func TestLintCallsAScriptNotExecutableOnlyWhenItCannotRun(t *testing.T) {
	for _, tc := range []struct {
		file, content string
		mode          os.FileMode
		execForm      bool
		// whether lint calls it not executable on Windows and on Unix
		windows, unix bool
	}{
		{"guard.exe", "MZ", 0o755, true, false, false},
		{"guard.exe", "MZ", 0o644, true, false, true},
		{"check.cmd", "@exit /b 0", 0o644, true, false, true},
		{"guard", "MZ", 0o755, true, true, false},
		{"check.sh", "#!/bin/sh\nexit 0\n", 0o644, false, false, true},
		{"check.sh", "#!/bin/sh\nexit 0\n", 0o755, true, true, false},
		{"check.sh", "exit 0\n", 0o755, false, true, false},
		{"check.ps1", "exit 0", 0o644, false, false, true},
		{"check.ps1", "exit 0", 0o755, true, true, false},
	} {
		project := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(project, tc.file), []byte(tc.content), tc.mode))
		hook := map[string]any{"type": "command", "command": "./" + tc.file}
		if tc.execForm {
			hook["args"] = []string{}
		}
		settingsJSON, err := json.Marshal(map[string]any{"hooks": map[string]any{
			"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{hook}}}}})
		require.NoError(t, err)
		path := filepath.Join(project, ".wave", "settings.json")
		f := settings.ParseFile(path, settings.SourceProject, settingsJSON, project)
		var flagged []string
		for _, d := range f.Diagnostics {
			if d.Code == settings.CodeNotExecutable {
				flagged = append(flagged, d.Message)
			}
		}
		want := tc.unix
		if runtime.GOOS == "windows" {
			want = tc.windows
		}
		require.Equal(t, want, len(flagged) > 0, "%s (mode %o, exec form %v): %v", tc.file, tc.mode, tc.execForm, flagged)
	}
}
