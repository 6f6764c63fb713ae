//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
)

// spawnExec is the fastest start Go has: clone(CLONE_VFORK|CLONE_VM) and
// exec of /bin/sh (what glibc's posix_spawn does), then wait4; no LookPath,
// no pidfd, no os.Process.
func spawnExec(b *testing.B) {
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "true"}, &syscall.ProcAttr{Env: os.Environ()})
	if err != nil {
		b.Fatal(err)
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil || ws.ExitStatus() != 0 {
		b.Fatalf("sh -c true: %v %v", err, ws)
	}
}
