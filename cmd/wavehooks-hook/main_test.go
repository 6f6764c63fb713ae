package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wavehooks-hook exists to start faster than wavehooks (issue #39 item 4),
// so what it links is held here: of this module only the shared client;
// on unix systems no net (whose cgo resolver makes a default build a
// dynamically linked program, which then pays the dynamic loader at every
// tool call) and no cgo at all. Its fail-closed behaviour is tested with
// `wavehooks acp-hook`'s, by cmd/wavehooks's TestACPHookFailsClosed.
func TestLinksOnlyWhatItNeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for three systems")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
			cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=1")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			deps := strings.Fields(string(out))
			var module []string
			for _, d := range deps {
				if strings.HasPrefix(d, "github.com/") && d != "github.com/wavehooks/wavehooks/cmd/wavehooks-hook" {
					module = append(module, d)
				}
			}
			require.Equal(t, []string{"github.com/wavehooks/wavehooks/internal/hookclient"}, module)
			require.NotContains(t, deps, "runtime/cgo")
			if goos != "windows" {
				require.NotContains(t, deps, "net")
			}
		})
	}
}
