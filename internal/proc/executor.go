package proc

import (
	"context"
	"errors"
	"github.com/wavehooks/wavehooks/internal/settings"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	Env []string
}

// NewRunner returns a runner whose hooks run in projectRoot with the given
// environment plus WAVE_PROJECT_DIR and CLAUDE_PROJECT_DIR.
func NewRunner(projectRoot string, env []string) *Runner {
	env = append(env[:len(env):len(env)], "WAVE_PROJECT_DIR="+projectRoot, "CLAUDE_PROJECT_DIR="+projectRoot)
	return &Runner{dir: projectRoot, Env: env}
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
// reported as truncated; when the hook exits, its output files are read and
// sealed, so a background child that still holds them cannot fill memory.
// On timeout or cancellation every process of the run is killed — its
// process group and the children that left it (killRun) — and RunHook
// returns promptly. Background children of a hook that exited by itself are
// left running: a hook may start a daemon.
func (r *Runner) RunHook(ctx context.Context, h *settings.Hook, stdin []byte) Exec {
	return r.RunHookEnv(ctx, h, stdin, nil)
}

// RunHookEnv is RunHook with variables of the event ("NAME=value") added to
// the runner's environment; the hook's own env still wins.
func (r *Runner) RunHookEnv(ctx context.Context, h *settings.Hook, stdin []byte, eventEnv []string) Exec {
	return r.RunPinned(ctx, h, stdin, eventEnv, nil)
}

// RunPinned is RunHookEnv; with pin, the hook runs the sealed copy of its
// trusted script instead of the file (pinscript.go), which the child gets as
// its descriptor 3.
func (r *Runner) RunPinned(ctx context.Context, h *settings.Hook, stdin []byte, eventEnv []string, pin *PinnedRun) Exec {
	if ph := settings.PluginPlaceholder(h); ph != "" {
		pin.close()
		return Exec{ExitCode: -1, StartErr: settings.ErrPluginPlaceholder(ph).Error()}
	}
	var cmd *exec.Cmd
	if pin != nil {
		defer pin.close() // the child has its own copy once started
		cmd = exec.Command(pin.Argv[0], pin.Argv[1:]...)
		cmd.ExtraFiles = []*os.File{pin.Script}
	} else if h.Args != nil {
		prog, args := settings.ExecForm(h, r.dir) // placeholders substituted: internal/settings/placeholder.go
		cmd = exec.Command(prog, args...)
	} else {
		cmd = shellCommand(h) // sh -c, or the hook's shell; on Windows Git Bash or PowerShell (executor_windows.go)
	}
	cmd.Dir, cmd.Env = r.dir, r.Env
	if h.Cwd != "" {
		cmd.Dir = filepath.Join(r.dir, h.Cwd)
	}
	if len(h.Env) > 0 || len(eventEnv) > 0 {
		cmd.Env = append(append(r.Env[:len(r.Env):len(r.Env)], eventEnv...), h.Env...) // later entries win
	}
	return r.run(ctx, cmd, stdin, h.Timeout)
}

// runMarkerVar is the environment variable that marks every process of one
// hook run, so that killRun finds those that left the run's process group.
const runMarkerVar = "WAVEHOOKS_HOOK_RUN"

// runSeq numbers hook runs for their markers.
var runSeq atomic.Uint64

func (r *Runner) run(ctx context.Context, cmd *exec.Cmd, stdin []byte, timeout time.Duration) Exec {
	files, err := newHookFiles(stdin)
	if err != nil {
		return Exec{ExitCode: -1, StartErr: err.Error()}
	}
	// Closing an in-memory file frees its pages, which takes as long as a
	// small fork, and making the next hook's files is as long again: do both
	// after the caller has its answer, on one goroutine, not while the hook
	// starts (docs/performance.md).
	defer func() { go files.closeAndRestock() }()

	marker := strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(runSeq.Add(1), 10)
	// Last, so that it wins over a hook's own env of the same name.
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], runMarkerVar+"="+marker)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files.stdin, files.stdout, files.stderr
	tree := newProcessTree(cmd) // a process group; on Windows a Job Object

	start := time.Now()
	if err := hookChildren.start(cmd); err != nil {
		return Exec{ExitCode: -1, StartErr: err.Error(), Duration: time.Since(start)}
	}
	if err := tree.started(cmd); err != nil {
		hookChildren.done(cmd.Process.Pid)
		return Exec{ExitCode: -1, StartErr: err.Error(), Duration: time.Since(start)}
	}
	// Timers rather than exec.CommandContext: no goroutine per hook, and the
	// kill reaches every process of the run, not just the shell. killMu
	// makes a kill in progress finish before RunHook returns, and keeps a
	// late timer from killing anything once the hook has been waited for.
	var why atomic.Int32
	var killMu sync.Mutex
	waited := false
	kill := func(reason int32) {
		killMu.Lock()
		defer killMu.Unlock()
		if !waited && why.CompareAndSwap(0, reason) {
			killRun(cmd.Process, marker, false) // first: it finds escapees by their parent, the hook
			tree.kill()                         // on Windows the job; on Unix the group, already gone
		}
	}
	timer := time.AfterFunc(timeout, func() { kill(killedByTimeout) })
	stopWatchingCtx := context.AfterFunc(ctx, func() { kill(killedByCancel) })
	stopCapping := files.capWhileRunning()
	err = waitProcess(cmd)
	hookChildren.done(cmd.Process.Pid)
	killMu.Lock()
	waited = true
	killMu.Unlock()
	timer.Stop()
	stopWatchingCtx()
	stopCapping()
	res := Exec{Duration: time.Since(start)}
	if why.Load() != 0 {
		// Marked processes that a fork in progress hid from the first search.
		killRun(cmd.Process, marker, true)
	}
	tree.release()
	res.Stdout, res.StdoutTruncated = files.collect(files.stdout, &files.outCut)
	res.Stderr, res.StderrTruncated = files.collect(files.stderr, &files.errCut)
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

	// toEmpty are the output files whose growth is sealed and whose
	// contents were read: closeAndRestock empties and seals them for good.
	toEmpty []*os.File
}

// hookFileNames name a hook's stdin, stdout and stderr files.
var hookFileNames = [3]string{"wavehooks-stdin", "wavehooks-stdout", "wavehooks-stderr"}

func newHookFiles(stdin []byte) (*hookFiles, error) {
	f := &hookFiles{}
	var err error
	for i, dst := range []**os.File{&f.stdin, &f.stdout, &f.stderr} {
		if *dst, err = spareFiles.get(hookFileNames[i]); err != nil {
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
	sealInput(f.stdin)
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
		// Taking the lock waits for a cut in progress to end; nothing is guarded.
		f.mu.Lock()
		f.mu.Unlock() //lint:ignore SA2001 the empty section is the wait

	}
}

func cut(file *os.File) bool {
	st, err := file.Stat()
	if err != nil || st.Size() <= MaxOutput {
		return false
	}
	return file.Truncate(MaxOutput) == nil
}

// collect reads what a hook that has exited wrote to stdout or stderr,
// and seals the file: its growth first, so that a background child still
// writing to it cannot add to it while it is read, then, once read and
// the caller has its answer (closeAndRestock), its contents, emptied. The
// cap on a hook's output then holds for as long as any process has the
// file open, not only while the hook runs.
func (f *hookFiles) collect(file *os.File, wasCut *bool) (string, bool) {
	sealed := stopGrowth(file)
	out, truncated := f.read(file, wasCut)
	if sealed {
		f.toEmpty = append(f.toEmpty, file)
	}
	return out, truncated
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

// closeAndRestock empties and seals the output files that were read,
// closes the files, and makes their replacements in the supply for the
// next hook.
func (f *hookFiles) closeAndRestock() {
	for _, file := range f.toEmpty {
		sealOutput(file) // two system calls each, off the answer's path
	}
	f.close()
	for _, name := range hookFileNames {
		spareFiles.refill(name)
	}
}

func (f *hookFiles) close() {
	for _, file := range []*os.File{f.stdin, f.stdout, f.stderr} {
		if file != nil {
			_ = file.Close()
		}
	}
}

// hookChildren are the hook processes started and not yet waited for. The
// orphan reaper (AdoptOrphans) leaves them to os/exec: reaping one would
// take its exit status from cmd.Wait.
var hookChildren = &childSet{pids: map[int]struct{}{}}

// childSet is a set of child pids that the orphan reaper must not reap.
type childSet struct {
	// starting is held for reading from fork to registration, and for
	// writing by the reaper, so that it never sees a hook's child that is
	// not registered yet.
	starting sync.RWMutex
	mu       sync.Mutex // guards pids
	pids     map[int]struct{}
}

// start starts cmd and registers its process.
func (c *childSet) start(cmd *exec.Cmd) error {
	c.starting.RLock()
	defer c.starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	c.mu.Lock()
	c.pids[cmd.Process.Pid] = struct{}{}
	c.mu.Unlock()
	return nil
}

// done forgets a process that has been waited for, and has the orphan
// reaper look for what it left (reaper_linux.go).
func (c *childSet) done(pid int) {
	c.mu.Lock()
	delete(c.pids, pid)
	c.mu.Unlock()
	reapSoon()
}

func (c *childSet) has(pid int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pids[pid]
	return ok
}

// fileSupply hands out fresh in-memory files made ahead of time, off the
// path of the event that needs them. Each file is used by one hook only: a
// grandchild may still hold it after the hook exits.
type fileSupply struct {
	ready chan *os.File
}

var spareFiles = &fileSupply{ready: make(chan *os.File, 12)}

// get takes a file from the supply, or makes one when it is empty; the
// caller restocks it once its hook has run (closeAndRestock).
func (s *fileSupply) get(name string) (*os.File, error) {
	select {
	case f := <-s.ready:
		return f, nil
	default:
		return NewMemFile(name)
	}
}

func (s *fileSupply) refill(name string) {
	f, err := NewMemFile(name)
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

// Environ is the environment hooks inherit by default.
func Environ() []string { return os.Environ() }
