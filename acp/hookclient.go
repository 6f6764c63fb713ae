package acp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// The bridge's command hook is a process per tool call (codex-acp has no
// other kind of hook). The whole wavehooks binary spends most of its start
// in the init of packages `acp-hook` never uses, so the release ships
// wavehooks-hook beside it: the same client (internal/hookclient), linked
// alone (issue #39 item 4). The proxy gives the agent that program when it
// is installed next to wavehooks and runs here, else `wavehooks acp-hook`.

// hookClientName is the small client's file name, next to wavehooks.
func hookClientName() string {
	if runtime.GOOS == "windows" {
		return "wavehooks-hook.exe"
	}
	return "wavehooks-hook"
}

// hookClientProbe bounds the one `wavehooks-hook --version` the proxy runs
// before it hands the program to an agent.
const hookClientProbe = 10 * time.Second

// hookPrograms are the programs the bridge's hook may run: wavehooks
// (HookExe, else this process's own executable) and wavehooks-hook beside
// it, "" when there is none or it does not run here (the log says so).
func (p *Proxy) hookPrograms() (exe, client string, err error) {
	exe = p.opts.HookExe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return "", "", fmt.Errorf("the hook bridge needs wavehooks' own path: %w", err)
		}
	}
	client = hookClientBeside(exe)
	if client == "" {
		return exe, "", nil
	}
	if err := probeHookClient(client); err != nil {
		p.log.Warn("wavehooks-hook next to wavehooks does not run here; the bridge uses `wavehooks acp-hook`",
			"path", client, "err", err)
		return exe, "", nil
	}
	return exe, client, nil
}

// hookCommand is the bridge's hook command, as a shell runs it, and the
// program it starts, for the log: client when there is one, else
// `wavehooks acp-hook`. Any failure of it exits 2, which blocks: both
// clients exit 2 on every error of their own, but a program that is gone
// (uninstalled mid-session) makes the shell exit 127, and a file that can
// no longer run 126, which agents read as a hook error that does not
// block — the tool would run unjudged.
func hookCommand(exe, client, sock, token string) (command, name string) {
	args := " --socket " + shellQuote(sock) + " --token " + token + " || exit 2"
	if client != "" {
		return shellQuote(client) + args, "`wavehooks-hook`"
	}
	return shellQuote(exe) + " acp-hook" + args, "`wavehooks acp-hook`"
}

// hookClientBeside is the path of wavehooks-hook next to wavehooks at exe,
// "" when there is no such executable file.
func hookClientBeside(exe string) string {
	c := filepath.Join(filepath.Dir(exe), hookClientName())
	fi, err := os.Stat(c)
	if err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0) {
		return ""
	}
	return c
}

// probeHookClient runs `wavehooks-hook --version` once. A client that does
// not start here (built for another system, damaged) must not become the
// hook: a shell that cannot run it exits 126 or 127, which an agent reads
// as a hook error that does not block, and the tool would run unjudged.
func probeHookClient(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), hookClientProbe)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(out, []byte("wavehooks-hook ")) {
		return fmt.Errorf("its --version said %q, not wavehooks-hook", out)
	}
	return nil
}
