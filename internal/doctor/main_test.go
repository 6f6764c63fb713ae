package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// wavehooksBin is the real wavehooks binary, built once: the probes of
// `wavehooks acp` and `wavehooks serve` run it, as the doctor runs itself.
var wavehooksBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "doctor-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wavehooksBin = filepath.Join(dir, "wavehooks")
	build := exec.Command("go", "build", "-o", wavehooksBin, "../../cmd/wavehooks")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building wavehooks:", err)
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
