package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// scriptAgent is the scripted ACP agent (testdata/scriptagent), built once
// for the package's tests.
var scriptAgent string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acp-scriptagent-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scriptAgent = filepath.Join(dir, "scriptagent")
	build := exec.Command("go", "build", "-o", scriptAgent, "./testdata/scriptagent")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the scripted agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}
