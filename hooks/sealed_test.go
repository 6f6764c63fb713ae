//go:build linux && !wavehooks_nomemfd

package hooks_test

// Only memfds can be sealed: with the temporary files of the fallback
// (macOS, and make test-fallback) a hook's background child can still grow
// them, as docs/security.md says.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
)

// A background child of a hook that exited cannot fill memory through the
// hook's stdout, stderr or stdin (issue #12: `(head -c 1000000000
// /dev/zero; sleep 8) & exit 0` grew shared memory by 954 MB): the hook's
// files are sealed once it has exited, so every write past their end fails
// with EPERM, and what the child holds stays empty.
func TestBackgroundChildCannotFillMemory(t *testing.T) {
	for _, fd := range []int{1, 2, 3} { // 3 is a copy of stdin: sh gives a background job /dev/null as stdin
		t.Run(fmt.Sprintf("fd %d", fd), func(t *testing.T) {
			dir := t.TempDir()
			// The child waits for the test to say go (after Fire returned),
			// writes 200 MB, and records how head ended.
			child := fmt.Sprintf(`while [ ! -e %[1]s/go ]; do sleep 0.01; done; head -c 200000000 /dev/zero >&%[2]d 2>%[1]s/head.err; `+
				`echo $? > %[1]s/status.tmp; mv %[1]s/status.tmp %[1]s/status; exec sleep 1000`, dir, fd)
			e, root := setup(t, one(event.PostToolUse, `jq -r .tool_name >/dev/null; exec 3<&0; (`+child+`) & echo $! > `+dir+`/child.pid; echo answered; exit 0`))
			res := e.Fire(context.Background(), input(event.PostToolUse, root))
			require.Equal(t, 0, res.Runs[0].ExitCode)
			require.Equal(t, "answered\n", res.Runs[0].Stdout)
			pid := waitPidFile(t, filepath.Join(dir, "child.pid"))

			require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
			var status string
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(filepath.Join(dir, "status"))
				status = strings.TrimSpace(string(b))
				return err == nil
			}, 30*time.Second, 10*time.Millisecond)
			herr, _ := os.ReadFile(filepath.Join(dir, "head.err"))
			require.NotEqual(t, "0", status, "head wrote 200 MB to the hook's file")
			require.Contains(t, string(herr), "Operation not permitted")
			for _, n := range []int{1, 2, 3} {
				st, err := os.Stat(fmt.Sprintf("/proc/%d/fd/%d", pid, n))
				require.NoError(t, err)
				require.LessOrEqual(t, st.Size(), int64(proc.MaxOutput), "fd %d of the child holds %d bytes", n, st.Size())
			}
		})
	}
}
