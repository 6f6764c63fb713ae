package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wavehooks/wavehooks/internal/proctest"
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
	os.Exit(proctest.RunWithProgram(m, "./testdata/scriptagent", "scriptagent", &scriptAgent))
}
