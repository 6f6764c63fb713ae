package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapDelay is how long after a hook process ends the server looks for
// orphans among its children; reapMaxDelay bounds how long it waits between
// two looks while adopted orphans are still running. A zombie waits at most
// reapMaxDelay to be reaped, reapDelay when a hook just ended.
const (
	reapDelay    = 100 * time.Millisecond
	reapMaxDelay = 2 * time.Second
)

// AdoptOrphans makes this process the child subreaper of the hooks it runs
// (PR_SET_CHILD_SUBREAPER) and reaps the orphans that become its children,
// until stop is called. `wavehooks serve` calls it; nothing else should,
// since it changes what happens to every orphaned descendant of the process.
//
// A hook's background children outlive it when it exits normally (a hook
// may start a daemon), and a double fork orphans them even while it runs.
// Without a subreaper they go to PID 1, which in a container (an editor's
// dev container, say) often reaps nothing: each one that exits stays a
// zombie for as long as the container runs. As the subreaper, the server
// adopts them and reaps them. It reaps only zombies among its children that
// are not hook processes the engine still waits for (registered around
// cmd.Start, under a lock the reaper also takes) and not in the server's
// own process group, so it never takes os/exec's exit status from it.
//
// It looks for them reapDelay after each hook process ends (orphans appear
// only when a hook or one of its descendants exits), and then again, at
// doubling intervals up to reapMaxDelay, for as long as adopted orphans are
// still running. It does not listen for SIGCHLD: every hook's exit would
// wake the signal goroutine and the reaper's while the answer is being made,
// which cost a hooked call 36-47 µs (docs/performance.md).
func AdoptOrphans() (stop func(), err error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return func() {}, err
	}
	reaper.mu.Lock()
	reaper.on, reaper.delay = true, reapDelay
	reaper.mu.Unlock()
	return func() {
		reaper.mu.Lock()
		reaper.on = false
		if reaper.pending && reaper.timer.Stop() {
			reaper.pending = false
			reaper.scans.Done() // the scan will not run
		}
		reaper.mu.Unlock()
		reaper.scans.Wait()
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		reapOrphans()
	}, nil
}

// reaper is the state of AdoptOrphans: whether it is on, and the next look.
var reaper struct {
	mu      sync.Mutex
	on      bool
	pending bool // a look is scheduled on timer
	timer   *time.Timer
	delay   time.Duration  // until the next look while orphans run
	scans   sync.WaitGroup // looks scheduled or running
}

// reapSoon is called when a hook process has been waited for: the orphans
// it left, if any, are the server's children now.
func reapSoon() {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	reaper.delay = reapDelay
	scheduleReapLocked(reapDelay)
}

// scheduleReapLocked schedules a look after d, unless one is scheduled or
// AdoptOrphans is off. The caller holds reaper.mu.
func scheduleReapLocked(d time.Duration) {
	if !reaper.on || reaper.pending {
		return
	}
	reaper.pending = true
	reaper.scans.Add(1)
	reaper.timer = time.AfterFunc(d, scheduledReap)
}

func scheduledReap() {
	defer reaper.scans.Done()
	reaper.mu.Lock()
	reaper.pending = false
	on := reaper.on
	reaper.mu.Unlock()
	if !on {
		return
	}
	if running := reapOrphans(); running > 0 {
		reaper.mu.Lock()
		reaper.delay = min(2*reaper.delay, reapMaxDelay)
		scheduleReapLocked(reaper.delay)
		reaper.mu.Unlock()
	}
}

// reapOrphans reaps the zombies among this process's children that it did
// not start itself as hooks, and returns how many such children still run.
func reapOrphans() (running int) {
	self, group := os.Getpid(), syscall.Getpgrp()
	var zombies []int
	for _, pid := range childPids(self) {
		if hookChildren.has(pid) {
			continue
		}
		ps, ok := readProcStat(pid)
		if !ok || ps.ppid != self || ps.pgrp == group {
			continue
		}
		if ps.state == 'Z' {
			zombies = append(zombies, pid)
		} else {
			running++
		}
	}
	if len(zombies) == 0 {
		return running
	}
	hookChildren.starting.Lock() // no hook is between fork and registration
	defer hookChildren.starting.Unlock()
	for _, pid := range zombies {
		if !hookChildren.has(pid) {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
	return running
}

// childPids lists this process's children: /proc/self/task/*/children, or
// where the kernel lacks those files, every process whose parent it is.
func childPids(self int) []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []int
	if len(tasks) > 0 {
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
		return out
	}
	for _, ps := range listProcs() {
		if ps.ppid == self {
			out = append(out, ps.pid)
		}
	}
	return out
}
