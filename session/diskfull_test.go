//go:build linux

package session_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/wavehooks/wavehooks/session"
)

// TestFailedWriteLeavesTheLastCompleteFile: a write that fails half-way (a
// file size limit: the kernel writes what fits, then EFBIG, as a disk that
// fills up mid-write does) leaves the session file byte for byte as it was
// — for an append, and for a rewrite of acknowledged bytes, which goes
// through the journal — and the event fails saying so. cmd/wavehooks's
// diskfault_test.go does the same through the real server, with ENOSPC
// from a full tmpfs as well.
func TestFailedWriteLeavesTheLastCompleteFile(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			st, err := session.NewStore(session.Options{WaveHome: t.TempDir(), Format: format})
			require.NoError(t, err)
			defer st.Close()
			s, err := st.Create("")
			require.NoError(t, err)
			ctx := context.Background()
			// A long first prompt, so that a journal record of the last
			// message fits under the limit while the file does not.
			_, err = s.UserPromptSubmit(ctx, strings.Repeat("p", 20000))
			require.NoError(t, err)
			require.NoError(t, s.AddAssistantMessage([]session.Block{
				session.ToolBlock(session.Tool{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)})}))
			path := s.TranscriptPath()
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			limitFileSize(t, uint64(len(before))+1000)
			for _, change := range []struct {
				name string
				do   func() error
			}{
				{"a rewrite of the tool block", func() error {
					_, err := s.PostToolUse(ctx, "t1", "Bash", json.RawMessage(`{"command":"ls"}`),
						json.RawMessage(`"`+strings.Repeat("r", 8000)+`"`))
					return err
				}},
				{"an append", func() error {
					return s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: strings.Repeat("a", 8000)}})
				}},
			} {
				err := change.do()
				require.Error(t, err, change.name)
				require.Contains(t, err.Error(), "file too large", change.name)
				require.Contains(t, err.Error(), "the file keeps its last complete version", change.name)
				after, rerr := os.ReadFile(path)
				require.NoError(t, rerr)
				require.Equal(t, string(before), string(after), "%s: the file changed", change.name)
				if j, err := os.ReadFile(path + ".journal"); err == nil {
					require.Empty(t, j, "%s: a journal would replay the failed write on the next load", change.name)
				}
			}
			limitFileSize(t, unix.RLIM_INFINITY)
			require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "room again"}}))
			require.NoError(t, s.Close())

			reopened, err := st.Open(s.ID())
			require.NoError(t, err)
			msgs := reopened.Messages()
			last := msgs[len(msgs)-1]
			require.Equal(t, "room again", last.Blocks[len(last.Blocks)-1].Content)
			for _, m := range msgs {
				for _, b := range m.Blocks {
					require.NotContains(t, b.Content+b.Tool().Result, "aaaa", "a change whose save failed reached the file")
				}
			}
		})
	}
}

// limitFileSize sets this process's file size limit (RLIMIT_FSIZE), and
// puts the old one back when the test ends. Go ignores SIGXFSZ, so a write
// past the limit fails with EFBIG instead of killing the test.
func limitFileSize(t *testing.T, n uint64) {
	t.Helper()
	var old unix.Rlimit
	require.NoError(t, unix.Getrlimit(unix.RLIMIT_FSIZE, &old))
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_FSIZE, &old) })
	lim := old
	lim.Cur = min(n, old.Max)
	require.NoError(t, unix.Setrlimit(unix.RLIMIT_FSIZE, &lim))
}
