//go:build linux

package conformance

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PinnedClaudeVersion is the Claude Code release the suite takes as its
// oracle by default, and the one docs/conformance.md's table was written
// from. install-claude-code.sh installs exactly this one unless
// CLAUDE_CODE_VERSION names another.
const PinnedClaudeVersion = "2.1.332"

// ClaudeVersion is the release this run takes as its oracle:
// CLAUDE_CODE_VERSION when set (to run the suite against an earlier release,
// installed into a cache directory of its own), the pinned one otherwise.
var ClaudeVersion = cmp.Or(os.Getenv("CLAUDE_CODE_VERSION"), PinnedClaudeVersion)

// stopReminderSince is the first release that hands the model a Stop hook's
// feedback wrapped in <system-reminder> with a lead sentence; earlier ones
// sent a user message starting "Stop hook feedback:" (measured; docs/conformance.md).
const stopReminderSince = "2.1.331"

// versionAtLeast compares dotted release numbers ("2.1.330" < "2.1.331").
func versionAtLeast(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		if i < len(b) {
			y, _ = strconv.Atoi(b[i])
		}
		if x != y {
			return x > y
		}
	}
	return true
}

// FindClaude returns the native claude binary of the package installed in
// dir (the --prefix of the npm install). The package ships it in a
// platform package (@anthropic-ai/claude-code-linux-x64 and the like), which
// its postinstall also copies over bin/claude.exe; either is used.
func FindClaude(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	scope := filepath.Join(dir, "node_modules", "@anthropic-ai")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	candidates := []string{
		filepath.Join(scope, "claude-code-"+runtime.GOOS+"-"+arch, "claude"),
		filepath.Join(scope, "claude-code-"+runtime.GOOS+"-"+arch+"-musl", "claude"),
		filepath.Join(scope, "claude-code", "bin", "claude.exe"),
	}
	for _, c := range candidates {
		if isNativeExecutable(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("no native claude binary under %s (looked for %s)", scope, strings.Join(candidates, ", "))
}

// isNativeExecutable: an executable ELF file (the package's bin/claude.exe is
// a placeholder script until its postinstall has run).
func isNativeExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	_, err = f.Read(magic)
	return err == nil && bytes.Equal(magic, []byte("\x7fELF"))
}

// ClaudeRun is one headless run of the CLI.
type ClaudeRun struct {
	Binary  string
	Dir     string // the project: cwd, with .claude/settings.json
	Home    string // an empty HOME
	TmpDir  string
	Prompt  string
	Args    []string // after -p PROMPT --output-format stream-json --verbose
	API     *FakeAPI
	Socket  string // the fake API's Unix socket, for the network namespace
	Netns   bool
	Timeout time.Duration
}

// ClaudeResult is what the run printed and how it ended.
type ClaudeResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	TimedOut bool
}

// Run starts the CLI offline and waits for it to exit (SessionEnd hooks run
// after the last line of output, so the process is never cut short), or
// kills its process group at the timeout.
func (r *ClaudeRun) Run(ctx context.Context) (ClaudeResult, error) {
	port := r.API.Addr()[strings.LastIndex(r.API.Addr(), ":")+1:]
	base := "http://127.0.0.1:" + port
	argv := append([]string{r.Binary, "-p", r.Prompt, "--output-format", "stream-json", "--verbose"}, r.Args...)
	var cmd *exec.Cmd
	if r.Netns {
		c, err := netnsCommand(port, r.Socket, argv)
		if err != nil {
			return ClaudeResult{}, err
		}
		cmd = c
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Dir = r.Dir
	cmd.Env = append(cmd.Env,
		"PATH="+os.Getenv("PATH"),
		"HOME="+r.Home,
		"TMPDIR="+r.TmpDir,
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL="+base,
		"ANTHROPIC_API_KEY=sk-ant-conformance-offline",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		// SessionEnd hooks share a 1.5 s budget by default, which a loaded
		// machine's sh+jq recording hook can miss.
		"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=60000",
		"HTTPS_PROXY="+base, "HTTP_PROXY="+base, "https_proxy="+base, "http_proxy="+base,
		"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1",
	) // IS_SANDBOX and everything else of the test's environment stay out
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return ClaudeResult{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(r.Timeout)
	defer timer.Stop()
	res := ClaudeResult{}
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.TimedOut = true
	}
	if res.TimedOut {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	res.Stdout, res.Stderr = stdout.Bytes(), stderr.Bytes()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		return res, err
	}
	return res, nil
}
