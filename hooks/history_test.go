package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// TestHistoryStaysAtItsBound fires 10,000 real events (with a hook whose
// matcher never matches, so no process runs) into a history of the default
// size: it keeps exactly the newest 500, newest first, and filters by
// session, event and limit.
func TestHistoryStaysAtItsBound(t *testing.T) {
	e, root := setup(t, `{"hooks":{"PreToolUse":[{"matcher":"mcp__never__matches","hooks":[{"type":"command","command":"exit 2"}]}],
		"Stop":[{"matcher":"","hooks":[{"type":"command","command":"true"}]}]}}`)
	h := hooks.NewHistory(0)
	for i := 0; i < 10000; i++ {
		in := input(event.PreToolUse, root)
		in.SessionID = fmt.Sprintf("s%d", i%2)
		res := e.Fire(context.Background(), in)
		h.Add(hooks.NewEventRun(in.SessionID, in.MatchValue(), &res))
	}
	require.Equal(t, hooks.DefaultHistorySize, h.Len())
	all := h.List("", "", 0)
	require.Len(t, all, hooks.DefaultHistorySize)
	require.Equal(t, uint64(10000), all[0].ID, "newest first")
	require.Equal(t, uint64(10000-hooks.DefaultHistorySize+1), all[len(all)-1].ID)
	require.False(t, all[0].Hooks[0].Matched)

	require.Len(t, h.List("s1", "", 0), hooks.DefaultHistorySize/2)
	require.Len(t, h.List("", event.PreToolUse, 7), 7)
	require.Empty(t, h.List("", event.Stop, 0))
}

// Editor clients iterate every list of a run without checking for null
// (Neovim 0.12 hands a JSON null to Lua as vim.NIL, which ipairs rejects):
// no array of a recorded run is ever null on the wire.
func TestRecordedRunsHaveNoNullArrays(t *testing.T) {
	e, root := setup(t, one(event.PreToolUse, "true"))
	res := e.Fire(context.Background(), input(event.PreToolUse, root))
	run := hooks.NewEventRun("sess_1234abcd", "Bash", &res)
	for _, v := range []any{run, hooks.Run{}, hooks.EventRun{Hooks: []hooks.Run{{}}}} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		require.NotContains(t, string(b), "null", string(b))
	}
	b, err := json.Marshal(run)
	require.NoError(t, err)
	require.Contains(t, string(b), `"problems":[]`)
}

// TestHistoryHoldsItsOwnRuns: the server tells its own lines of the shared
// run log from another process's by Holds: a run it added and still keeps,
// read back through the log's JSON, is its own; a run with another
// session, event or time, one evicted by newer runs, and an id it never
// gave are not.
func TestHistoryHoldsItsOwnRuns(t *testing.T) {
	h := hooks.NewHistory(3)
	var added []hooks.EventRun
	for i := range 4 {
		added = append(added, h.Add(hooks.EventRun{SessionID: fmt.Sprint("s", i), Event: event.Stop, Time: time.Now()}))
	}
	roundTrip := func(r hooks.EventRun) hooks.EventRun {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var out hooks.EventRun
		require.NoError(t, json.Unmarshal(b, &out))
		return out
	}
	last := roundTrip(added[3])
	for _, c := range []struct {
		name string
		run  hooks.EventRun
		want bool
	}{
		{"its newest run, read back from the log", last, true},
		{"an older run it still keeps", roundTrip(added[1]), true},
		{"a run evicted by newer ones", roundTrip(added[0]), false},
		{"another session", func() hooks.EventRun { r := last; r.SessionID = "other"; return r }(), false},
		{"another event", func() hooks.EventRun { r := last; r.Event = event.PreToolUse; return r }(), false},
		{"another time", func() hooks.EventRun { r := last; r.Time = r.Time.Add(time.Nanosecond); return r }(), false},
		{"an id it never gave", func() hooks.EventRun { r := last; r.ID = 99; return r }(), false},
		{"no id", func() hooks.EventRun { r := last; r.ID = 0; return r }(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, h.Holds(&c.run))
		})
	}
}

type countingObserver struct{ runs []hooks.EventRun }

func (c *countingObserver) ObserveRun(r *hooks.EventRun) { c.runs = append(c.runs, *r) }

func TestHistoryObserversSeeEveryRunWithItsDecision(t *testing.T) {
	h := hooks.NewHistory(1)
	o := &countingObserver{}
	h.Observe(o)
	for i := 0; i < 3; i++ {
		h.Add(hooks.NewEventRun("s", "Bash", &hooks.Result{Event: "PreToolUse", Permission: hooks.PermissionDeny, Reason: "no"}))
	}
	require.Len(t, o.runs, 3, "an observer sees runs the bounded ring has let go")
	require.Equal(t, uint64(3), o.runs[2].ID)
	require.Equal(t, hooks.PermissionDeny, o.runs[2].Decision().Permission)
}

// The audit log hashes the whole input the hooks judged: an observer gets
// it unclipped, while the ring (and so the wire and the run log) keeps
// only the clip a history of 500 runs can hold.
func TestObserversGetTheWholeInputTheRingKeepsTheClip(t *testing.T) {
	big := []byte(`{"tool_input":"` + strings.Repeat("x", 100<<10) + `"}`)
	h := hooks.NewHistory(2)
	o := &countingObserver{}
	h.Observe(o)
	added := h.Add(hooks.NewEventRun("s", "Bash", &hooks.Result{Event: "PreToolUse", Stdin: big}))
	require.Equal(t, big, o.runs[0].Input(), "the observer hashes what the hooks got")
	kept := h.List("", "", 0)
	require.Len(t, kept, 1)
	require.Nil(t, kept[0].Input(), "the ring does not hold the whole input")
	require.Equal(t, kept[0], added, "Add returns the run as the history keeps it")
	require.Less(t, len(kept[0].Stdin), len(big))
}
