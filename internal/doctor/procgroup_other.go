//go:build !unix

package doctor

import (
	"context"
	"errors"
	"os/exec"
	"time"
)

// startGroup refuses: a probe needs a process group it can kill whole, and
// the doctor has that on Unix only (on Windows every path reads NOT PROBED).
func startGroup(*exec.Cmd) error {
	return errors.New("the doctor's probes run on Unix only")
}

// waitGroup is never reached on this platform (startGroup refuses).
func waitGroup(context.Context, *exec.Cmd, time.Duration) error {
	return errors.New("the doctor's probes run on Unix only")
}
