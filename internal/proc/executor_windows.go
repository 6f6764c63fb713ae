//go:build windows

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"github.com/wavehooks/wavehooks/internal/settings"
	"golang.org/x/sys/windows"
)

// This file is cross-compiled and vetted in CI (make cross) and runs under
// Wine (make test-wine), not on Windows itself: the project has no Windows
// machine (README, "What is tested where").

// shellCommand runs a hook's shell-form command in Git Bash or PowerShell
// (windowsShellFor, in winshell.go).
func shellCommand(h *settings.Hook) *exec.Cmd {
	bash := gitBash()
	if windowsShellFor(h, bash) == shellGitBash {
		return exec.Command(bash, "-c", h.Command)
	}
	return exec.Command(powerShell(), powerShellArgs(h.Command)...)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Looked up once: installing Git while the server runs takes a restart.
var (
	gitBash    = sync.OnceValue(func() string { return findGitBash(os.Getenv, exec.LookPath, isFile) })
	powerShell = sync.OnceValue(func() string { return findPowerShell(os.Getenv, exec.LookPath, isFile) })
)

// processTree is a hook's process and everything it starts, held in a Job
// Object: Windows has no process groups that a kill reaches, but every
// process a job member creates joins the job, and TerminateJobObject ends
// them all. The job is also set to kill what it holds when its last handle
// closes, so hooks still running die with the server however it ends.
//
// The race: a process can only be put in a job once it exists, and by then
// it may already have started a child, which would stay outside the job.
// The hook is therefore created suspended (CREATE_SUSPENDED): it runs no
// instruction, so starts nothing, until it is in the job and started resumes
// its thread.
type processTree struct {
	// mu orders a timer's kill against release: a kill after the handle
	// is closed does nothing, rather than reach whatever reuses its value.
	mu  sync.Mutex
	job windows.Handle
}

// newProcessTree makes cmd start suspended and without a console window
// (a hook has no terminal; without the flag a console program started by a
// windowless server would open one), and with cmd.exe's own command line
// when it is the program (cmdExeLine).
func newProcessTree(cmd *exec.Cmd) *processTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW,
		CmdLine: cmdExeLine(cmd.Path, cmd.Args)} // "" (Go's own quoting) unless the program is cmd.exe: winshell.go
	return &processTree{}
}

// started puts the suspended process in a new job and lets it run. If that
// fails the process is killed before it ran anything: a hook that could not
// be contained does not run.
func (t *processTree) started(cmd *exec.Cmd) error {
	err := t.contain(uint32(cmd.Process.Pid))
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.release()
		return fmt.Errorf("could not start the hook in a job object: %w", err)
	}
	return nil
}

func (t *processTree) contain(pid uint32) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	t.job = job
	if err := setKillOnClose(job, true); err != nil {
		return err
	}
	// os.Process holds a handle to the process, so pid still names it.
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		return err
	}
	return resumeProcess(pid)
}

func setKillOnClose(job windows.Handle, on bool) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if on {
		info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// resumeProcess resumes the threads of a process created suspended (one:
// os.StartProcess closes the thread handle CreateProcess returned, so it is
// found by enumeration).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return err
	}
	if resumed == 0 {
		return errors.New("the hook's process has no thread to resume")
	}
	return nil
}

// kill ends every process in the job.
func (t *processTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
	}
}

// release closes the job once the hook has been waited for. Background
// processes of a hook that exited by itself are left running, as elsewhere
// (a hook may start a daemon): kill-on-close is turned off first.
func (t *processTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job == 0 {
		return
	}
	_ = setKillOnClose(t.job, false)
	_ = windows.CloseHandle(t.job)
	t.job = 0
}
