//go:build !windows

package acp

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The bridge's hook runs wavehooks-hook when it is installed next to
// wavehooks and starts here, else `wavehooks acp-hook`; either path is
// quoted for the shell. Anything beside wavehooks by that name that could
// fail to run (not executable, a directory, a program that answers as
// something else or fails) is not given to the agent — a shell that cannot
// run its hook exits 126 or 127, which agents do not read as a block — and
// the log says why.
func TestBridgeHookProgram(t *testing.T) {
	cases := []struct {
		name   string
		beside func(t *testing.T, path string) // makes wavehooks-hook at path; nil: none
		client bool
		warns  string
	}{
		{name: "none beside wavehooks"},
		{name: "a working wavehooks-hook", client: true, beside: func(t *testing.T, path string) {
			hook(t, filepath.Dir(path), filepath.Base(path), `echo "wavehooks-hook 1.2.3"`)
		}},
		{name: "not executable", beside: func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho 'wavehooks-hook 1'\n"), 0o644))
		}},
		{name: "a directory", beside: func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) }},
		{name: "another program", warns: "not wavehooks-hook", beside: func(t *testing.T, path string) {
			hook(t, filepath.Dir(path), filepath.Base(path), `echo "something else"`)
		}},
		{name: "it fails", warns: "exit status 3", beside: func(t *testing.T, path string) {
			hook(t, filepath.Dir(path), filepath.Base(path), `exit 3`)
		}},
		{name: "it cannot start", warns: "exec format error", beside: func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte{0x7f, 'E', 'L', 'F', 9, 9, 9, 9}, 0o755))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "wave hooks")
			require.NoError(t, os.Mkdir(dir, 0o755))
			exe := filepath.Join(dir, "wavehooks")
			if c.beside != nil {
				c.beside(t, filepath.Join(dir, "wavehooks-hook"))
			}
			var log bytes.Buffer
			p := &Proxy{opts: Options{HookExe: exe}, log: slog.New(slog.NewTextHandler(&log, nil)), sessions: map[string]*sessState{}}
			b, err := p.startBridge()
			require.NoError(t, err)
			t.Cleanup(p.closeBridge)
			want := shellQuote(exe) + " acp-hook --socket " + shellQuote(b.sock) + " --token " + b.token + " || exit 2"
			if c.client {
				want = shellQuote(filepath.Join(dir, "wavehooks-hook")) + " --socket " + shellQuote(b.sock) + " --token " + b.token + " || exit 2"
			}
			require.Equal(t, want, b.command)
			require.True(t, strings.HasPrefix(b.command, "'"), "the path is quoted for the shell: %s", b.command)
			if c.warns != "" {
				require.Contains(t, log.String(), "wavehooks-hook next to wavehooks does not run here")
				require.Contains(t, log.String(), c.warns)
			} else {
				require.NotContains(t, log.String(), "level=WARN")
			}
		})
	}
}

// A hook program that is gone when the agent runs the hook (uninstalled
// mid-session), or can no longer run, blocks the tool: the shell's 127 and
// 126 become 2, which every agent reads as a block; what the program says
// itself is unchanged.
func TestABridgeHookThatCannotRunBlocks(t *testing.T) {
	dir := t.TempDir()
	notExecutable := filepath.Join(dir, "wavehooks-hook")
	require.NoError(t, os.WriteFile(notExecutable, []byte("#!/bin/sh\nexit 0\n"), 0o644))
	for _, tc := range []struct {
		name      string
		exe       string
		client    string
		wantExit  int
		wantInErr string
	}{
		{name: "wavehooks is gone", exe: filepath.Join(dir, "gone", "wavehooks"), wantExit: 2, wantInErr: "not found"},
		{name: "wavehooks-hook is gone", client: filepath.Join(dir, "gone", "wavehooks-hook"), wantExit: 2, wantInErr: "not found"},
		{name: "wavehooks-hook cannot run", client: notExecutable, wantExit: 2, wantInErr: "denied"},
		{name: "an answer is passed on", client: hook(t, dir, "answers", `cat >/dev/null; echo '{"ok":true}'`), wantExit: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			command, _ := hookCommand(tc.exe, tc.client, filepath.Join(dir, "hook.sock"), "TOKEN")
			cmd := exec.Command("sh", "-c", command)
			cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse"}`)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.wantExit, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.wantInErr)
			if tc.wantExit == 0 {
				require.JSONEq(t, `{"ok":true}`, string(out))
			}
		})
	}
}
