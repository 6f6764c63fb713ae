package writebehind

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a write function that keeps what it was given.
type recorder struct {
	mu      sync.Mutex
	got     []int
	batches int
}

func (r *recorder) write(batch []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, batch...)
	r.batches++
}

func (r *recorder) written() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.got...)
}

func TestFlushWaitsForEveryRecordInOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		puts int
	}{
		{"one", 0, 1},
		{"many", 0, 10_000},
		{"past a small bound", 3, 1_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recorder
			q := New(r.write, tc.max)
			want := make([]int, tc.puts)
			for i := range want {
				want[i] = i
				q.Put(i)
			}
			q.Flush()
			require.Equal(t, want, r.written())
		})
	}
}

func TestConcurrentPutsKeepEachWritersOrder(t *testing.T) {
	var r recorder
	q := New(r.write, 8)
	const writers, each = 4, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				q.Put(w*each + i)
			}
		}()
	}
	wg.Wait()
	q.Flush()
	got := r.written()
	require.Len(t, got, writers*each)
	last := map[int]int{}
	for _, v := range got {
		w := v / each
		if prev, ok := last[w]; ok {
			require.Greater(t, v, prev, "writer %d's records out of order", w)
		}
		last[w] = v
	}
}

func TestPutWaitsWhileTheQueueIsFull(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	var r recorder
	q := New(func(batch []int) {
		started <- struct{}{}
		<-release
		r.write(batch)
	}, 2)
	q.Put(0)
	<-started // the writer holds [0] and waits on release
	q.Put(1)
	q.Put(2) // the queue now holds two: full
	putDone := make(chan struct{})
	go func() { q.Put(3); close(putDone) }()
	select {
	case <-putDone:
		t.Fatal("Put returned while the queue was full")
	case <-time.After(50 * time.Millisecond):
	}
	go func() {
		for range started { // later batches
		}
	}()
	close(release)
	<-putDone
	q.Flush()
	close(started)
	require.Equal(t, []int{0, 1, 2, 3}, r.written())
}

func TestAPanickingWriteLosesOnlyItsBatch(t *testing.T) {
	var r recorder
	first := true
	q := New(func(batch []int) {
		if first {
			first = false
			panic("disk on fire")
		}
		r.write(batch)
	}, 0)
	q.Put(1)
	q.Flush()
	q.Put(2)
	q.Flush()
	require.Equal(t, []int{2}, r.written())
}

func TestFlushOfAnEmptyQueueReturns(t *testing.T) {
	q := New(func([]int) {}, 0)
	q.Flush()
}
