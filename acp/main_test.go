package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// scriptAgent is the scripted ACP agent (testdata/scriptagent), built once
// for the package's tests.
var scriptAgent string

// wavehooksBin builds the wavehooks command once, for the tests whose agent
// runs its acp-hook (the hook bridge).
var wavehooksBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(scriptAgent), "wavehooks")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/wavehooks").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building wavehooks: %v: %s", err, out)
	}
	return bin, nil
})

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
