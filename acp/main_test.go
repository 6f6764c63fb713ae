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
// runs the hook bridge's command, with wavehooks-hook beside it as a
// release installs them: the bridge's hook is then wavehooks-hook.
var wavehooksBin = sync.OnceValues(func() (string, error) {
	dir := filepath.Dir(scriptAgent)
	for _, cmd := range []string{"wavehooks", "wavehooks-hook"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, cmd), "../cmd/"+cmd).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("building %s: %v: %s", cmd, err, out)
		}
	}
	return filepath.Join(dir, "wavehooks"), nil
})

// wavehooksAloneBin is wavehooksBin's binary in a directory of its own,
// with no wavehooks-hook beside it: the bridge's hook is then `wavehooks
// acp-hook`. (A hard link where it can be: /proc/self/exe names the link,
// not the first name.)
var wavehooksAloneBin = sync.OnceValues(func() (string, error) {
	bin, err := wavehooksBin()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(bin), "alone")
	alone := filepath.Join(dir, "wavehooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if os.Link(bin, alone) == nil {
		return alone, nil
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	return alone, os.WriteFile(alone, data, 0o755)
})

// hookClients are the two programs the bridge's hook can run, each as the
// wavehooks binary that makes the bridge choose it, for the tests that
// must hold for both; log is what the proxy's log says of the choice.
func hookClients(t testing.TB) []hookClientCase {
	t.Helper()
	withClient, err := wavehooksBin()
	if err != nil {
		t.Fatal(err)
	}
	alone, err := wavehooksAloneBin()
	if err != nil {
		t.Fatal(err)
	}
	return []hookClientCase{
		{name: "wavehooks-hook", bin: withClient, log: "through `wavehooks-hook`", command: "wavehooks-hook --socket "},
		{name: "acp-hook", bin: alone, log: "through `wavehooks acp-hook`", command: "wavehooks acp-hook --socket "},
	}
}

// hookClientCase is one of hookClients: command is what the bridge's hook
// command holds.
type hookClientCase struct{ name, bin, log, command string }

func TestMain(m *testing.M) {
	os.Exit(proctest.RunWithProgram(m, "./testdata/scriptagent", "scriptagent", &scriptAgent))
}
