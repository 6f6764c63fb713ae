package acp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// agentProcess is the agent the proxy started: its stdin and stdout are the
// proxy's agent side; its stderr is the proxy's.
type agentProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	// exited is closed when the process ended; code is then its exit code
	// (128+signal when a signal ended it, as a shell reports it).
	exited chan struct{}
	code   int
	err    error
}

// startAgent starts the agent command in a process group of its own, so that
// ending it also ends the processes it started (node workers, shells).
func startAgent(argv []string, dir string, env []string, stderr io.Writer) (*agentProcess, error) {
	if len(argv) == 0 {
		return nil, errors.New("no agent command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
	inOwnProcessGroup(cmd)
	// A grandchild that keeps the agent's stderr open must not keep Wait
	// from reporting that the agent ended.
	cmd.WaitDelay = 2 * time.Second
	// The agent's stdin is a pipe of the proxy's own too: its write end,
	// in non-blocking mode as os.Pipe makes it, can be written to once
	// without waiting (lineWriter.tryFlush). Like exec's StdinPipe, it is
	// closed when the agent ends (wait), so that a write blocked on a pipe
	// a process the agent left still holds fails.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	// The agent's stdout is a pipe of the proxy's own, not cmd.StdoutPipe:
	// Wait, which reports the agent's end at once, closes the pipes it made,
	// and the messages the agent wrote just before it died were lost unread
	// (TestAgentDyingMidTurn, about one run in thirty). The reader closes it
	// at the end of the agent's output.
	stdout, w, err := os.Pipe()
	if err != nil {
		_, _ = stdinR.Close(), stdin.Close()
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	_, _ = stdinR.Close(), w.Close() // the agent holds its ends; EOF comes when it and its children close theirs
	if err != nil {
		_, _ = stdin.Close(), stdout.Close()
		return nil, fmt.Errorf("cannot start the agent %q: %w", argv[0], err)
	}
	a := &agentProcess{cmd: cmd, stdin: stdin, stdout: stdout, exited: make(chan struct{})}
	go a.wait()
	return a, nil
}

func (a *agentProcess) wait() {
	err := a.cmd.Wait()
	_ = a.stdin.Close() // as exec's StdinPipe: a write to an agent that ended fails, even if a process it left holds the pipe
	var ee *exec.ExitError
	switch {
	case err == nil:
		a.code = 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			a.code = 128 + int(ws.Signal())
		} else {
			a.code = ee.ExitCode()
		}
	default:
		a.code, a.err = 1, err
	}
	close(a.exited)
}

// signal sends sig to the agent's process group.
func (a *agentProcess) signal(sig syscall.Signal) {
	if a.cmd == nil || a.cmd.Process == nil {
		return // a chain's successor (chain.go) has no process
	}
	if err := signalGroup(a.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = a.cmd.Process.Signal(sig)
	}
}

// stop ends the agent: its stdin is closed (agents end on EOF; a write
// blocked on an agent that stopped reading fails at once), then, when it is
// still there after grace, it gets SIGTERM, and SIGKILL after grace more.
// Signals go to its process group.
func (a *agentProcess) stop(grace time.Duration) {
	_ = a.stdin.Close()
	if a.waitExit(grace) {
		return
	}
	a.signal(syscall.SIGTERM)
	if a.waitExit(grace) {
		return
	}
	a.signal(syscall.SIGKILL)
	<-a.exited
}

// waitExit reports whether the agent ended within d.
func (a *agentProcess) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.exited:
		return true
	case <-t.C:
		return false
	}
}

// environ is the agent's environment: the proxy's own.
func environ() []string { return os.Environ() }
