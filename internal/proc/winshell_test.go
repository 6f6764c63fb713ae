package proc

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// The Windows shell choices run here with this system's path separator:
// the logic is the same, only the separator differs.

func TestWindowsShellFor(t *testing.T) {
	tests := []struct {
		source  settings.Source
		gitBash string
		want    shellKind
	}{
		{settings.SourceUser, `C:\Program Files\Git\bin\bash.exe`, shellGitBash},
		{settings.SourceClaudeProject, `C:\Program Files\Git\bin\bash.exe`, shellGitBash},
		{settings.SourceUser, "", shellPowerShell},
		{settings.SourceVSCode, `C:\Program Files\Git\bin\bash.exe`, shellPowerShell},
		{settings.SourceVSCode, "", shellPowerShell},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, windowsShellFor(&settings.Hook{Source: tt.source}, tt.gitBash), "%v with bash %q", tt.source, tt.gitBash)
	}
}

func TestFindGitBash(t *testing.T) {
	root := t.TempDir()
	file := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o755))
		return p
	}
	isFile := func(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	noGit := func(string) (string, error) { return "", errors.New("not found") }
	gitAt := func(p string) func(string) (string, error) {
		return func(name string) (string, error) {
			require.Equal(t, "git", name)
			return p, nil
		}
	}

	gitRoot := filepath.Join(root, "Git")
	bash := file("Git", "bin", "bash.exe")
	for _, git := range []string{
		file("Git", "cmd", "git.exe"),
		file("Git", "bin", "git.exe"),
		file("Git", "mingw64", "bin", "git.exe"),
	} {
		rel, _ := filepath.Rel(gitRoot, git)
		require.Equal(t, bash, findGitBash(env(nil), gitAt(git), isFile), "git.exe in %s", rel)
	}

	override := file("portable", "bash.exe")
	require.Equal(t, override, findGitBash(env(map[string]string{"CLAUDE_CODE_GIT_BASH_PATH": override}), gitAt(file("Git", "cmd", "git.exe")), isFile),
		"CLAUDE_CODE_GIT_BASH_PATH wins")
	require.Equal(t, bash, findGitBash(env(map[string]string{"CLAUDE_CODE_GIT_BASH_PATH": filepath.Join(root, "gone.exe")}), gitAt(file("Git", "cmd", "git.exe")), isFile),
		"a CLAUDE_CODE_GIT_BASH_PATH that does not exist is passed over")

	require.Equal(t, bash, findGitBash(env(map[string]string{"ProgramFiles": root}), noGit, isFile), "Git not on PATH: Program Files")
	perUser := file("AppData", "Local", "Programs", "Git", "bin", "bash.exe")
	require.Equal(t, perUser, findGitBash(env(map[string]string{"ProgramFiles": filepath.Join(root, "none"), "LOCALAPPDATA": filepath.Join(root, "AppData", "Local")}), noGit, isFile),
		"a per-user install")
	require.Empty(t, findGitBash(env(map[string]string{"ProgramFiles": filepath.Join(root, "none")}), noGit, isFile), "no Git for Windows")
	require.Empty(t, findGitBash(env(nil), gitAt(file("elsewhere", "git.exe")), isFile), "a git.exe with no bash beside it")
}

func TestFindPowerShell(t *testing.T) {
	root := t.TempDir()
	ps := filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
	require.NoError(t, os.MkdirAll(filepath.Dir(ps), 0o755))
	require.NoError(t, os.WriteFile(ps, nil, 0o755))
	isFile := func(p string) bool { _, err := os.Stat(p); return err == nil }
	env := func(k string) string { return map[string]string{"SystemRoot": root}[k] }
	pwsh := func(name string) (string, error) { return `C:\Program Files\PowerShell\7\pwsh.exe`, nil }
	none := func(string) (string, error) { return "", errors.New("not found") }
	require.Equal(t, `C:\Program Files\PowerShell\7\pwsh.exe`, findPowerShell(env, pwsh, isFile), "PowerShell 7 first")
	require.Equal(t, ps, findPowerShell(env, none, isFile), "else Windows PowerShell")
	require.Equal(t, "powershell.exe", findPowerShell(func(string) string { return "" }, none, isFile), "else by name, from PATH")
}

func TestPowerShellArgs(t *testing.T) {
	decode := func(s string) string {
		b, err := base64.StdEncoding.DecodeString(s)
		require.NoError(t, err)
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u))
	}
	command := `$in = [Console]::In.ReadToEnd() | ConvertFrom-Json; if ($in.tool_input.command -match "rm -rf") { [Console]::Error.WriteLine('nein — "blocked" ☃ 𝄞'); exit 2 }`
	args := powerShellArgs(command)
	require.Equal(t, []string{"-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-EncodedCommand"}, args[:5])
	require.Len(t, args, 6)
	require.Equal(t, command, decode(args[5]), "the command arrives unchanged, quotes and non-BMP characters included")

	args = powerShellArgs(`& "${CLAUDE_PROJECT_DIR}\.claude\hooks\check.ps1" "${WAVE_PROJECT_DIR}" $env:CLAUDE_PROJECT_DIR`)
	require.Equal(t, `& "${env:CLAUDE_PROJECT_DIR}\.claude\hooks\check.ps1" "${env:WAVE_PROJECT_DIR}" $env:CLAUDE_PROJECT_DIR`, decode(args[5]),
		"placeholders become PowerShell's ${env:NAME}, as Claude Code rewrites them")
}
