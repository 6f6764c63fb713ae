package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestToolClockIsBounded: a session remembers at most maxTimedTools started
// calls, forgetting the oldest, and a call's start is used once.
func TestToolClockIsBounded(t *testing.T) {
	var c toolClock
	t0 := time.Unix(1000, 0)
	for i := 0; i < 3*maxTimedTools; i++ {
		c.start(fmt.Sprintf("toolu_%d", i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	require.Len(t, c.started, maxTimedTools)
	require.LessOrEqual(t, len(c.order), 2*maxTimedTools+1, "the order list is compacted too")
	require.Nil(t, c.take("toolu_0", t0), "the oldest calls are forgotten")
	last := fmt.Sprintf("toolu_%d", 3*maxTimedTools-1)
	got := c.take(last, t0.Add(time.Duration(3*maxTimedTools-1)*time.Millisecond+1500*time.Millisecond))
	require.NotNil(t, got)
	require.Equal(t, int64(1500), *got)
	require.Nil(t, c.take(last, t0), "used once")
	require.Len(t, c.started, maxTimedTools-1)
}
