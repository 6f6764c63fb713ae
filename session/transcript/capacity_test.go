package transcript

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestCapacityFor: a resume sizes its message list from the file's newlines
// only while that costs no more memory than the file's size, so that a file
// of blank or tiny lines cannot make it allocate many times the file.
func TestCapacityFor(t *testing.T) {
	per := int64(unsafe.Sizeof(Message{}) + 8)
	for _, tc := range []struct {
		name  string
		lines int
		size  int64
		want  int
	}{
		{"no newline", 0, 100, 0},
		{"100,000 messages of ~240 bytes", 100002, 24_000_000, 100002},
		{"lines exactly as long as a message's memory", 1000, 1000 * per, 1000},
		{"a byte shorter", 1000, 1000*per - 1, 0},
		{"a million blank lines", 1_000_000, 1_000_000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, capacityFor(tc.lines, tc.size))
		})
	}
}
