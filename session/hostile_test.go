package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/session"
)

// Resuming a session whose transcript was replaced by something that is not
// a regular file within MaxSessionFileBytes fails at once — with the reason
// (jsonl), or as not found (json, whose file says which session it is) —
// instead of hanging (a FIFO), reading without end (/dev/zero) or
// allocating the size of a sparse file of more than a GiB.
func TestResumeRefusesATranscriptThatIsNotASmallRegularFile(t *testing.T) {
	plants := []struct {
		name, says string
		plant      func(path string) error
	}{
		{"a FIFO", "a FIFO", proctest.Mkfifo},
		{"a symlink to /dev/zero", "not a regular file", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"a sparse file past the cap", "larger than 1 GiB", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(session.MaxSessionFileBytes + 1)
		}},
	}
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		for _, p := range plants {
			t.Run(string(format)+"/"+p.name, func(t *testing.T) {
				e := newEnv(t, format)
				s := e.create(t)
				id, path := s.ID(), s.TranscriptPath()
				planted := filepath.Join(filepath.Dir(path), "planted")
				require.NoError(t, p.plant(planted))
				require.NoError(t, os.Rename(planted, path))

				_, err := e.newStore(t, "").Open(id)
				if format == session.FormatJSON {
					// a json file names its session inside: one that cannot be read names none
					require.ErrorIs(t, err, session.ErrNotFound)
					return
				}
				require.ErrorContains(t, err, p.says)
			})
		}
	}
}

// An event that started before SessionEnd (a FileChanged the server fired
// for the session, a slow prompt hook) finishes as if the session were
// open; the session's files are released when it ends, not before, and a
// later event loads the session again from its file.
func TestSessionEndWaitsForTheEventsInFlight(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	require.NoError(t, proctest.Mkfifo(gate))
	started := filepath.Join(t.TempDir(), "started")
	e := newEnv(t, session.FormatJSONL, hook{event: event.UserPromptSubmit,
		command: "cat >/dev/null; touch " + quote(started) + "; cat " + quote(gate) + "; echo 'context after the gate'"})
	s := e.create(t)
	done := make(chan error, 1)
	go func() {
		_, err := s.UserPromptSubmit(context.Background(), "slow")
		done <- err
	}()
	require.Eventually(t, func() bool { _, err := os.Stat(started); return err == nil }, 20*time.Second, 5*time.Millisecond)

	_, err := s.SessionEnd(context.Background(), "logout")
	require.NoError(t, err)
	again, err := e.store.Open(s.ID())
	require.NoError(t, err)
	require.Same(t, s, again, "still open: an event is running on it")

	require.NoError(t, os.WriteFile(gate, nil, 0o600)) // opens the FIFO for writing: the hook's cat ends
	require.NoError(t, <-done, "the event that started before the end finishes")
	msgs := s.Messages()
	require.Equal(t, "context after the gate", msgs[len(msgs)-1].Blocks[len(msgs[len(msgs)-1].Blocks)-1].Content)

	resumed, err := e.store.Open(s.ID())
	require.NoError(t, err)
	require.NotSame(t, s, resumed, "closed once the last event ended, loaded again from its file")
	require.Equal(t, "slow", resumed.Messages()[0].Blocks[0].Content)
}
