package hooks

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// MaxOutput is how much of a hook's stdout, and of its stderr, is kept.
const MaxOutput = 1 << 20

// waitDelay bounds how long a finished hook's inherited pipes may stay open
// (a background grandchild holding stdout) before the engine stops reading.
const waitDelay = 2 * time.Second

// Exec is the raw outcome of running one hook process.
type Exec struct {
	ExitCode        int
	Stdout          string
	Stderr          string
	StdoutTruncated bool
	StderrTruncated bool
	Duration        time.Duration
	TimedOut        bool
	// Cancelled is true when the caller cancelled the event (not a timeout).
	Cancelled bool
	// StartErr is set when the process could not be started at all.
	StartErr string
}

// Runner runs hook commands. The zero value is not usable; use NewRunner.
type Runner struct {
	dir string
	env []string
}

// NewRunner returns a runner whose hooks run in projectRoot with the given
// environment plus WAVE_PROJECT_DIR and CLAUDE_PROJECT_DIR.
func NewRunner(projectRoot string, env []string) *Runner {
	env = append(env[:len(env):len(env)], "WAVE_PROJECT_DIR="+projectRoot, "CLAUDE_PROJECT_DIR="+projectRoot)
	return &Runner{dir: projectRoot, env: env}
}

// Run runs `sh -c command` in its own process group with stdin as its input.
// On timeout or cancellation the whole group is killed, children and
// grandchildren included, and Run returns promptly. A hook that never reads
// stdin, or exits at once, cannot block Run: stdin is written concurrently
// and a broken pipe is ignored.
func (r *Runner) Run(ctx context.Context, command string, stdin []byte, timeout time.Duration) Exec {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	stdout := &cappedBuffer{limit: MaxOutput}
	stderr := &cappedBuffer{limit: MaxOutput}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.Stdin = &stdinReader{b: stdin}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The negative pid addresses the whole process group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay

	start := time.Now()
	err := cmd.Run()
	res := Exec{Duration: time.Since(start)}
	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	if cmd.Process != nil && ctx.Err() != nil {
		// The group may still hold processes that escaped the first kill.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut, res.ExitCode = true, -1
	case ctx.Err() != nil:
		res.Cancelled, res.ExitCode = true, -1
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if res.ExitCode < 0 { // killed by a signal
			res.ExitCode = 128 + int(exitErr.Sys().(syscall.WaitStatus).Signal())
		}
	case errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = cmd.ProcessState.ExitCode()
	default:
		res.StartErr, res.ExitCode = err.Error(), -1
	}
	return res
}

// stdinReader hides the payload's concrete type from os/exec, so that exec
// always copies it in its own goroutine and ignores EPIPE from a hook that
// stopped reading, whatever the payload size.
type stdinReader struct {
	b []byte
}

func (r *stdinReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest.
type cappedBuffer struct {
	mu        sync.Mutex
	limit     int
	buf       []byte
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
	} else {
		if room > 0 {
			b.buf = append(b.buf, p[:room]...)
		}
		b.truncated = true
	}
	return len(p), nil
}

func (b *cappedBuffer) result() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf), b.truncated
}

// environ is the environment hooks inherit by default.
func environ() []string { return os.Environ() }
