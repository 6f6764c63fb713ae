package session_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/session"
)

// Two servers with one session open (two editor windows): when one of them
// closes its copy after the other wrote, the other's messages stay in the
// file. Closing used to truncate the file to the size the closing server
// last wrote, to give back the blocks it had reserved, cutting off what the
// other server had appended.
func TestClosingAfterAnotherServerWroteKeepsItsMessages(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	open := func() *session.Store {
		st, err := session.NewStore(session.Options{WaveHome: home, ProjectRoot: root})
		require.NoError(t, err)
		return st
	}
	ctx := context.Background()
	first := open()
	sess, err := first.Create("")
	require.NoError(t, err)
	_, err = sess.UserPromptSubmit(ctx, "from the first server")
	require.NoError(t, err)

	second := open()
	other, err := second.Open(sess.ID())
	require.NoError(t, err)
	_, err = other.UserPromptSubmit(ctx, "from the second server")
	require.NoError(t, err)
	require.NoError(t, second.Close())

	require.NoError(t, first.Close()) // its reserved blocks are given back: the file must keep both prompts
	out, err := exec.Command("jq", "-r", ".state.messages[].blocks[].content", sess.TranscriptPath()).Output()
	require.NoError(t, err, "the file parses")
	require.Equal(t, "from the first server\nfrom the second server\n", string(out))
	_, err = os.Stat(sess.TranscriptPath())
	require.NoError(t, err)
}
