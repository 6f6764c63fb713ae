package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// RunWithProgram is a TestMain for tests that run a program of this
// module: it builds the Go package pkg (a path as `go build` takes it,
// relative to the test's package) into a temporary directory as name, sets
// *program to it, runs the tests, removes the directory, and fails a run
// that passed but leaked goroutines. It returns the exit code for os.Exit.
func RunWithProgram(m *testing.M, pkg, name string, program *string) int {
	dir, err := os.MkdirTemp("", name+"-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*program = filepath.Join(dir, name)
	build := exec.Command("go", "build", "-o", *program, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n", name, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	return code
}
