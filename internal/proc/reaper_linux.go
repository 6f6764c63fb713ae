package proc

import (
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// reapDelay gathers the SIGCHLDs of a burst of hooks into one look at the
// server's children: a zombie waits at most this long to be reaped.
const reapDelay = 100 * time.Millisecond

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
func AdoptOrphans() (stop func(), err error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return func() {}, err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGCHLD)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-sig:
			case <-done:
				return
			}
			select {
			case <-time.After(reapDelay):
			case <-done:
				return
			}
			reapOrphans()
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
		wg.Wait()
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		reapOrphans()
	}, nil
}

// reapOrphans reaps the zombies among this process's children that it did
// not start itself as hooks.
func reapOrphans() {
	self, group := os.Getpid(), syscall.Getpgrp()
	var zombies []int
	for _, pid := range childPids(self) {
		if hookChildren.has(pid) {
			continue
		}
		if ps, ok := readProcStat(pid); ok && ps.state == 'Z' && ps.ppid == self && ps.pgrp != group {
			zombies = append(zombies, pid)
		}
	}
	if len(zombies) == 0 {
		return
	}
	hookChildren.starting.Lock() // no hook is between fork and registration
	defer hookChildren.starting.Unlock()
	for _, pid := range zombies {
		if !hookChildren.has(pid) {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
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
