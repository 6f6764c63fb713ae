package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/proctest"
)

// TestReadFileRefusesWhatIsNotASmallRegularFile: every hostile plant is
// refused with the reason, a file at the cap is read whole and one byte
// more is refused, and a symlink to a regular file is followed.
func TestReadFileRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev are Unix's")
	}
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	require.NoError(t, os.WriteFile(at("ok"), []byte("12345"), 0o600))
	require.NoError(t, os.Symlink(at("ok"), at("link")))
	require.NoError(t, os.WriteFile(at("big"), []byte("123456"), 0o600))
	require.NoError(t, proctest.Mkfifo(at("fifo")))
	require.NoError(t, os.Symlink("/dev/zero", at("zero")))
	require.NoError(t, os.Symlink("/dev/stdin", at("stdin")))
	cases := []struct {
		name, want string
		err        error
	}{
		{"ok", "12345", nil},
		{"link", "12345", nil},
		{"big", "", &TooLargeError{}},
		{"fifo", "", ErrNotRegular},
		{"zero", "", ErrNotRegular},
		{"stdin", "", nil}, // a pipe, a terminal or a socket: refused, or (a file) read within the cap
		{".", "", ErrNotRegular},
		{"missing", "", fs.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := ReadFile(at(c.name), 5)
			switch e := c.err.(type) {
			case nil:
				if c.name == "stdin" {
					require.LessOrEqual(t, len(b), 5)
					return
				}
				require.NoError(t, err)
				require.Equal(t, c.want, string(b))
			case *TooLargeError:
				var tl *TooLargeError
				require.ErrorAs(t, err, &tl)
				require.Equal(t, int64(6), tl.Size)
				require.Contains(t, err.Error(), "larger than 5 bytes")
			default:
				require.ErrorIs(t, err, e)
			}
		})
	}
}

// A file that grows after its size was taken is cut off at the cap plus
// one byte: the memory read never exceeds it.
func TestReadStopsAtTheCapWhenTheFileGrows(t *testing.T) {
	r := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	_, err := readAll(r, 0, 1000)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	require.Equal(t, int64(1001), tl.Size)
	require.Equal(t, 1001, r.n)

	b, err := readAll(strings.NewReader("abc"), 100, 1000) // shrank: what is there is read
	require.NoError(t, err)
	require.Equal(t, "abc", string(b))
	require.False(t, errors.Is(err, ErrNotRegular))
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4 MiB", 1 << 30: "1 GiB", 1 << 10: "1 KiB", 1000: "1000 bytes", 3<<20 + 1: "3145729 bytes"} {
		require.Equal(t, want, FormatSize(n))
	}
}
