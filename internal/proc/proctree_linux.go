package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killRun kills every process of one hook run when it times out or is
// cancelled (or the engine closes): its process group, and the processes
// that left the group with setsid or setpgid, which a kill of the group
// cannot reach. They are found two ways, because each misses what the
// other finds:
//
//   - the run's marker (runMarkerVar in the environment, one value per run):
//     every process the hook starts inherits it, and keeps it in
//     /proc/PID/environ whatever happens to its parents — a double fork
//     `(setsid daemon &)` reparents the daemon away from the hook, but it
//     still carries the marker. A process that clears its environment
//     (`env -i`) or makes itself undumpable loses it.
//   - the hook's tree (/proc/PID/stat's parent pid): a child still attached
//     to a live ancestor is found whatever its environment.
//
// Only a process that both dropped the marker and lost its parent before
// the kill escapes (docs/security.md). Everything found is stopped
// (SIGSTOP) at once, so that it can no longer fork, and the search is
// repeated until it finds nothing new; then all of it is killed. Signals go
// through pidfds checked against the process's start time, so a pid that
// was recycled between the search and the signal is never hit.
//
// With hookGone (the hook has been waited for, so its pid, which is also
// its group's id, may already name another process) only the marker is
// searched for.
func killRun(p *os.Process, marker string, hookGone bool) {
	pgid := p.Pid
	if !hookGone {
		_ = syscall.Kill(-pgid, syscall.SIGSTOP)
		_ = p.Signal(syscall.SIGSTOP)
	}
	found := map[int]*procTarget{}
	defer func() {
		for _, t := range found {
			t.close()
		}
	}()
	needle := []byte("\x00" + runMarkerVar + "=" + marker + "\x00")
	self := os.Getpid()
	quiet := 0 // rounds in a row that found nothing new
	for round := 0; round < 64; round++ {
		procs := listProcs()
		byParent := map[int][]procStat{}
		for _, ps := range procs {
			byParent[ps.ppid] = append(byParent[ps.ppid], ps)
		}
		var fresh []procStat
		take := func(ps procStat) {
			if _, ok := found[ps.pid]; ok || ps.pid == self || ps.state == 'Z' {
				return
			}
			if t, ok := grabProc(ps); ok {
				found[ps.pid] = t
				t.signal(syscall.SIGSTOP)
				fresh = append(fresh, ps)
			}
		}
		var queue []int
		if !hookGone {
			for _, ps := range procs {
				if ps.pgrp == pgid || ps.pid == pgid {
					take(ps)
				}
			}
			queue = append(queue, pgid)
		}
		// The tree below the hook and below everything found so far.
		for pid := range found {
			queue = append(queue, pid)
		}
		seen := map[int]bool{}
		for len(queue) > 0 {
			pid := queue[0]
			queue = queue[1:]
			if seen[pid] {
				continue
			}
			seen[pid] = true
			for _, c := range byParent[pid] {
				take(c)
				queue = append(queue, c.pid)
			}
		}
		for _, ps := range procs {
			if _, ok := found[ps.pid]; !ok && ps.pid != self && hasMarker(ps.pid, needle) {
				take(ps)
			}
		}
		if len(fresh) == 0 {
			// A process in the middle of an exec shows no environment for
			// a moment, so its marker cannot be read: look twice more, a
			// moment apart, before deciding that nothing is left (on a
			// loaded machine an escapee was missed so, and outlived the run).
			if quiet++; quiet > 2 {
				break
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		quiet = 0
	}
	if !hookGone {
		_ = p.Signal(syscall.SIGKILL)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for _, t := range found {
		t.signal(syscall.SIGKILL)
	}
}

// procStat is what killRun needs of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
	start           uint64 // clock ticks after boot: with pid, names one process
}

// listProcs reads the stat of every process; processes that end meanwhile
// are left out.
func listProcs() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if ps, ok := readProcStat(pid); ok {
			out = append(out, ps)
		}
	}
	return out
}

// readProcStat parses /proc/PID/stat: "pid (comm) state ppid pgrp session
// … starttime" (starttime is field 22). comm may hold spaces and
// parentheses, so fields are counted from the last ')'.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0], start: start}, true
}

// hasMarker reports whether a process's environment holds needle
// ("\x00NAME=value\x00"). Processes of other users and undumpable ones
// cannot be read: they have no marker as far as killRun can tell.
func hasMarker(pid int, needle []byte) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil || len(b) == 0 {
		return false
	}
	env := make([]byte, 0, len(b)+2)
	env = append(append(append(env, 0), b...), 0)
	return bytes.Contains(env, needle)
}

// procTarget is one process found by killRun, held by a pidfd where the
// kernel has them (Linux 5.3), so that signals reach that process and no
// other that got its pid later.
type procTarget struct {
	pid, fd int
}

// grabProc opens a pidfd for ps and checks that it is still the process the
// scan saw (same start time); false when it is gone or its pid was reused.
func grabProc(ps procStat) (*procTarget, bool) {
	fd, err := unix.PidfdOpen(ps.pid, 0)
	if err != nil && !errors.Is(err, unix.ENOSYS) {
		return nil, false // gone
	}
	if err != nil {
		fd = -1
	}
	t := &procTarget{pid: ps.pid, fd: fd}
	if now, ok := readProcStat(ps.pid); !ok || now.start != ps.start {
		t.close()
		return nil, false
	}
	return t, true
}

func (t *procTarget) signal(sig syscall.Signal) {
	if t.fd >= 0 {
		_ = unix.PidfdSendSignal(t.fd, sig, nil, 0)
		return
	}
	_ = syscall.Kill(t.pid, sig)
}

func (t *procTarget) close() {
	if t.fd >= 0 {
		_ = unix.Close(t.fd)
		t.fd = -1
	}
}
