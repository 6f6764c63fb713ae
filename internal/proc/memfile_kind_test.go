//go:build linux

package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The files a hook's stdin, stdout and stderr are on Linux: memfds, or with
// -tags wavehooks_nomemfd (make test-fallback) the unlinked temporary files
// macOS uses, so that the rest of this package's tests run that path.
func TestMemFileKind(t *testing.T) {
	f, err := NewMemFile("wavehooks-kind")
	require.NoError(t, err)
	defer f.Close()
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	require.NoError(t, err)
	if nomemfd {
		require.True(t, strings.HasPrefix(target, filepath.Join(os.TempDir(), "wavehooks-kind-")), target)
		require.True(t, strings.HasSuffix(target, " (deleted)"), "the temporary file is unlinked: %s", target)
	} else {
		require.Equal(t, "/memfd:wavehooks-kind (deleted)", target)
	}
}
