package proc

import (
	"encoding/base64"
	"encoding/binary"
	"github.com/wavehooks/wavehooks/internal/settings"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// The shell a hook's shell-form command runs in on Windows. This file has
// no build constraint so that its choices are tested on every system;
// executor_windows.go applies them. See docs/parity.md (Windows).

// shellKind is the program a shell-form command runs in on Windows.
type shellKind int

const (
	shellGitBash shellKind = iota
	shellPowerShell
)

// windowsShellFor picks the shell for a hook on Windows: VS Code's hook
// files are written for VS Code, which runs them in PowerShell (with
// -ExecutionPolicy Bypass); every other file is written for Claude Code,
// which runs them in Git Bash and in PowerShell only when Git Bash is not
// installed (gitBash == "").
func windowsShellFor(h *settings.Hook, gitBash string) shellKind {
	if h.Source == settings.SourceVSCode || gitBash == "" {
		return shellPowerShell
	}
	return shellGitBash
}

// findGitBash returns Git for Windows' bash.exe, or "" when it is not
// installed, looking where Claude Code does: $CLAUDE_CODE_GIT_BASH_PATH,
// then next to git.exe on PATH (Git\cmd\git.exe, Git\bin\git.exe or
// Git\mingw64\bin\git.exe, with bash in Git\bin), then the usual install
// directories. A bare `bash` on PATH is not taken: on Windows that is often
// WSL's launcher, which runs the command in a Linux system with other paths.
func findGitBash(getenv func(string) string, lookPath func(string) (string, error), isFile func(string) bool) string {
	if p := getenv("CLAUDE_CODE_GIT_BASH_PATH"); p != "" && isFile(p) {
		return p
	}
	var candidates []string
	if git, err := lookPath("git"); err == nil {
		dir := filepath.Dir(git)
		for range 3 {
			candidates = append(candidates, filepath.Join(dir, "bin", "bash.exe"))
			dir = filepath.Dir(dir)
		}
	}
	for _, v := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if root := getenv(v); root != "" {
			candidates = append(candidates, filepath.Join(root, "Git", "bin", "bash.exe"))
		}
	}
	if local := getenv("LOCALAPPDATA"); local != "" {
		candidates = append(candidates, filepath.Join(local, "Programs", "Git", "bin", "bash.exe"))
	}
	for _, c := range candidates {
		if isFile(c) {
			return c
		}
	}
	return ""
}

// findPowerShell returns PowerShell 7 (pwsh.exe) when it is on PATH, else
// Windows PowerShell 5.1, which every supported Windows has.
func findPowerShell(getenv func(string) string, lookPath func(string) (string, error), isFile func(string) bool) string {
	if p, err := lookPath("pwsh.exe"); err == nil {
		return p
	}
	if root := getenv("SystemRoot"); root != "" {
		p := filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
		if isFile(p) {
			return p
		}
	}
	return "powershell.exe"
}

// powerShellArgs are the arguments that run command in PowerShell: no
// profile (fast, and the same for every user), no prompts, scripts allowed
// whatever the machine's execution policy, and the command passed encoded
// (UTF-16LE in base64) so that no quoting of the Windows command line can
// change it. ${CLAUDE_PROJECT_DIR}-style placeholders become PowerShell's
// ${env:NAME}, as Claude Code rewrites them.
func powerShellArgs(command string) []string {
	return []string{"-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
		"-EncodedCommand", encodePowerShell(powerShellPlaceholders.Replace(command))}
}

var powerShellPlaceholders = strings.NewReplacer(
	"${CLAUDE_PROJECT_DIR}", "${env:CLAUDE_PROJECT_DIR}",
	"${WAVE_PROJECT_DIR}", "${env:WAVE_PROJECT_DIR}",
	"${CLAUDE_PLUGIN_ROOT}", "${env:CLAUDE_PLUGIN_ROOT}",
	"${CLAUDE_PLUGIN_DATA}", "${env:CLAUDE_PLUGIN_DATA}",
)

// encodePowerShell is what -EncodedCommand takes: UTF-16LE, base64.
func encodePowerShell(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// cmdExeLine is the Windows command line for an exec-form hook whose
// program is cmd.exe ({"command": "cmd", "args": ["/c", "echo \"hi\""]}),
// or "" for any other program. cmd.exe does not split its command line the
// way C programs do, so Go's quoting (a " inside an argument becomes \")
// reached it as \" (issue 29). Here every argument after the program is
// passed as written, joined by spaces — cmd's own quoting rules, which the
// hook's author wrote for, apply — and only an argument that is empty or
// holds a space or tab and no quote is put in quotes, as a C program would
// need too. program is the path started and args is cmd.Args.
func cmdExeLine(program string, args []string) string {
	base := program[strings.LastIndexAny(program, `/\`)+1:]
	if !strings.EqualFold(base, "cmd") && !strings.EqualFold(base, "cmd.exe") {
		return ""
	}
	var b strings.Builder
	b.WriteString(quoteIfSpaced(program))
	for _, a := range args[min(1, len(args)):] {
		b.WriteByte(' ')
		if strings.ContainsRune(a, '"') {
			b.WriteString(a)
		} else {
			b.WriteString(quoteIfSpaced(a))
		}
	}
	return b.String()
}

// quoteIfSpaced puts s in quotes when it is empty or holds a space or tab.
func quoteIfSpaced(s string) string {
	if s == "" || strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}
