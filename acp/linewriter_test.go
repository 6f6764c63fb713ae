//go:build unix

package acp

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// A lineWriter on a pipe its peer does not read: tryFlush sends what the
// pipe takes and says the rest is left, without waiting; a flush waits; new
// lines are queued while it waits, and nothing waits on the peer but the
// flush. Once the peer reads, every line arrives once, whole and in order.
func TestLineWriterNeverWaitsButInFlush(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	lw := newLineWriter(w)
	require.NotNil(t, lw.raw, "os.Pipe's write end is non-blocking: writes can be tried")

	var want bytes.Buffer
	line := func(i int) []byte {
		l := []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`+"\n", i, bytes.Repeat([]byte("x"), 1000)))
		want.Write(l)
		return l
	}
	n := 0
	for ; n < 200; n++ { // 200 KB: more than a pipe takes
		require.True(t, lw.write(line(n)))
	}
	require.False(t, lw.tryFlush(), "the pipe took part; the rest is left")
	require.Positive(t, lw.pending())

	flushed := make(chan struct{})
	go func() { lw.flush(); close(flushed) }()
	require.Eventually(t, func() bool {
		lw.mu.Lock()
		defer lw.mu.Unlock()
		return lw.writing
	}, waitFor, tick, "the flush waits on the full pipe")
	for ; n < 210; n++ {
		require.True(t, lw.write(line(n)), "queued while the flush waits")
	}
	require.False(t, lw.tryFlush(), "a flush is writing: tryFlush leaves it to that one")

	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, int64(want.Len())))
		got <- b
	}()
	<-flushed
	lw.flush()
	require.Equal(t, want.String(), string(<-got))
	require.Zero(t, lw.pending())
}

// After the peer is gone, writes are dropped and say so; tryFlush does not
// keep trying.
func TestLineWriterDropsAfterThePeerIsGone(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	lw := newLineWriter(w)
	require.NoError(t, r.Close())
	require.True(t, lw.write([]byte("{}\n")))
	require.True(t, lw.tryFlush(), "nothing is left to send to a peer that is gone")
	require.False(t, lw.write([]byte("{}\n")))
	require.Zero(t, lw.pending())
}
