package doctor

import (
	"os"
	"testing"

	"github.com/wavehooks/wavehooks/internal/proctest"
)

// wavehooksBin is the real wavehooks binary, built once: the probes of
// `wavehooks acp` and `wavehooks serve` run it, as the doctor runs itself.
var wavehooksBin string

func TestMain(m *testing.M) {
	os.Exit(proctest.RunWithProgram(m, "../../cmd/wavehooks", "wavehooks", &wavehooksBin))
}
