package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

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
