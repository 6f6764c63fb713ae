package hooks

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// MaxOutput is how much of a hook's stdout, and of its stderr, is kept.
const MaxOutput = 1 << 20

// capInterval is how often the output files of a running hook are cut back
// to MaxOutput, so a hook that floods its output holds at most what it can
// write in this time, not everything it ever wrote.
const capInterval = 20 * time.Millisecond

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

// RunHook runs one configured hook in its own process group with stdin as
// its input: `sh -c command`, or for the exec form its program with its
// arguments and no shell; cwd (inside the project root) is its working
// directory; env is added to the environment.
//
// stdin, stdout and stderr are in-memory files rather than pipes: a hook that
// never reads stdin, exits at once, or leaves a grandchild holding its
// output can block nothing, whatever the sizes; and no goroutine copies
// anything. Output past MaxOutput is cut off while the hook runs and
// reported as truncated. On timeout or cancellation the whole process group
// is killed, children and grandchildren included, and RunHook returns promptly.
func (r *Runner) RunHook(ctx context.Context, h *Hook, stdin []byte) Exec {
	var cmd *exec.Cmd
	if h.Args != nil {
		cmd = exec.Command(h.Command, h.Args...)
	} else {
		argv := shellArgv(h)
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Dir, cmd.Env = r.dir, r.env
	if h.Cwd != "" {
		cmd.Dir = filepath.Join(r.dir, h.Cwd)
	}
	if len(h.Env) > 0 {
		cmd.Env = append(r.env[:len(r.env):len(r.env)], h.Env...) // later entries win
	}
	return r.run(ctx, cmd, stdin, h.Timeout)
}

func (r *Runner) run(ctx context.Context, cmd *exec.Cmd, stdin []byte, timeout time.Duration) Exec {
	files, err := newHookFiles(stdin)
	if err != nil {
		return Exec{ExitCode: -1, StartErr: err.Error()}
	}
	// Closing an in-memory file frees its pages, which takes as long as a
	// small fork: do it after the caller has its answer.
	defer func() { go files.close() }()

	cmd.Stdin, cmd.Stdout, cmd.Stderr = files.stdin, files.stdout, files.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Exec{ExitCode: -1, StartErr: err.Error(), Duration: time.Since(start)}
	}
	// Timers rather than exec.CommandContext: no goroutine per hook, and the
	// kill reaches the whole process group, not just the shell.
	var why atomic.Int32
	kill := func(reason int32) {
		if why.CompareAndSwap(0, reason) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	timer := time.AfterFunc(timeout, func() { kill(killedByTimeout) })
	stopWatchingCtx := context.AfterFunc(ctx, func() { kill(killedByCancel) })
	stopCapping := files.capWhileRunning()
	err = cmd.Wait()
	timer.Stop()
	stopWatchingCtx()
	stopCapping()
	res := Exec{Duration: time.Since(start)}
	if why.Load() != 0 {
		// Processes that escaped into the group after the first kill.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res.Stdout, res.StdoutTruncated = files.read(files.stdout, &files.outCut)
	res.Stderr, res.StderrTruncated = files.read(files.stderr, &files.errCut)
	var exitErr *exec.ExitError
	switch {
	case why.Load() == killedByTimeout:
		res.TimedOut, res.ExitCode = true, -1
	case why.Load() == killedByCancel:
		res.Cancelled, res.ExitCode = true, -1
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	default:
		res.StartErr, res.ExitCode = err.Error(), -1
	}
	return res
}

// Why a hook's process group was killed.
const (
	killedByTimeout int32 = 1 + iota
	killedByCancel
)

// hookFiles are one hook process's stdin, stdout and stderr.
type hookFiles struct {
	stdin, stdout, stderr *os.File

	mu             sync.Mutex // guards the cut flags against the capping goroutine
	outCut, errCut bool
}

func newHookFiles(stdin []byte) (*hookFiles, error) {
	f := &hookFiles{}
	var err error
	for _, p := range []struct {
		dst  **os.File
		name string
	}{{&f.stdin, "wavehooks-stdin"}, {&f.stdout, "wavehooks-stdout"}, {&f.stderr, "wavehooks-stderr"}} {
		if *p.dst, err = spareFiles.get(p.name); err != nil {
			f.close()
			return nil, err
		}
	}
	if _, err := f.stdin.Write(stdin); err != nil {
		f.close()
		return nil, err
	}
	if _, err := f.stdin.Seek(0, io.SeekStart); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// capWhileRunning cuts stdout and stderr back to MaxOutput every
// capInterval until the returned function is called. The hook's writes go
// on succeeding (past the cut they land in a hole that holds no memory), so
// a flooding hook behaves as it would on a pipe that is read and discarded.
func (f *hookFiles) capWhileRunning() (stop func()) {
	var mu sync.Mutex // guards t and stopped
	stopped := false
	var t *time.Timer
	mu.Lock()
	defer mu.Unlock()
	t = time.AfterFunc(capInterval, func() {
		f.mu.Lock()
		f.outCut = cut(f.stdout) || f.outCut
		f.errCut = cut(f.stderr) || f.errCut
		f.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			t.Reset(capInterval)
		}
	})
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
		f.mu.Lock() // wait for a cut in progress
		f.mu.Unlock()
	}
}

func cut(file *os.File) bool {
	st, err := file.Stat()
	if err != nil || st.Size() <= MaxOutput {
		return false
	}
	return file.Truncate(MaxOutput) == nil
}

// read returns the first MaxOutput bytes a hook wrote and whether there was more.
func (f *hookFiles) read(file *os.File, wasCut *bool) (string, bool) {
	f.mu.Lock()
	truncated := *wasCut
	f.mu.Unlock()
	st, err := file.Stat()
	if err != nil {
		return "", truncated
	}
	size := st.Size()
	if size > MaxOutput {
		size, truncated = MaxOutput, true
	}
	buf := make([]byte, size)
	n, _ := file.ReadAt(buf, 0)
	return string(buf[:n]), truncated
}

func (f *hookFiles) close() {
	for _, file := range []*os.File{f.stdin, f.stdout, f.stderr} {
		if file != nil {
			_ = file.Close()
		}
	}
}

// fileSupply hands out fresh in-memory files made ahead of time, off the
// path of the event that needs them. Each file is used by one hook only: a
// grandchild may still hold it after the hook exits.
type fileSupply struct {
	ready chan *os.File
}

var spareFiles = &fileSupply{ready: make(chan *os.File, 12)}

func (s *fileSupply) get(name string) (*os.File, error) {
	select {
	case f := <-s.ready:
		go s.refill(name)
		return f, nil
	default:
		go s.refill(name)
		return newMemFile(name)
	}
}

func (s *fileSupply) refill(name string) {
	f, err := newMemFile(name)
	if err != nil {
		return
	}
	select {
	case s.ready <- f:
	default:
		_ = f.Close()
	}
}

// newTempFile returns an already-unlinked temporary file.
func newTempFile(name string) (*os.File, error) {
	file, err := os.CreateTemp("", name+"-*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(file.Name())
	return file, nil
}

// environ is the environment hooks inherit by default.
func environ() []string { return os.Environ() }
