package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/event"
)

// A history that persists writes each run with its decision, which the
// wire's wave/hookRuns does not carry, and reading the log gives them back.
func TestRunLogKeepsRunsAndDecisions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	h := NewHistory(10)
	h.PersistTo(NewRunLog(dir))
	res := &Result{Event: event.PreToolUse, Continue: true, Permission: PermissionDeny, Reason: "no rm",
		UpdatedInput: json.RawMessage(`{"command":"ls"}`), AdditionalContext: []string{"ctx"},
		Stdin: []byte(`{"tool_name":"Bash"}`), Runs: []Run{{Command: "deny.sh", Ran: true}}}
	added := h.Add(NewEventRun("s1", "Bash", res))

	wire, err := json.Marshal(added)
	require.NoError(t, err)
	var top map[string]any
	require.NoError(t, json.Unmarshal(wire, &top))
	require.NotContains(t, top, "decision", "the wire's history is as it was")

	h.Flush() // the line is written behind the answer
	got, err := ReadRunLog(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "s1", got[0].SessionID)
	require.Equal(t, `{"tool_name":"Bash"}`, got[0].Stdin)
	require.Equal(t, "deny.sh", got[0].Hooks[0].Command)
	require.Equal(t, &Decision{Permission: PermissionDeny, Reason: "no rm", Context: []string{"ctx"},
		UpdatedInput: json.RawMessage(`{"command":"ls"}`)}, got[0].Decision)

	st, err := os.Stat(filepath.Join(dir, "runs.jsonl"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the log holds tool inputs: the user's only")
	st, err = os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}

// However many runs are written, the log stays within two files of its
// bound, and keeps the newest runs.
func TestRunLogIsBounded(t *testing.T) {
	dir := t.TempDir()
	l := newRunLog(dir, 4<<10)
	for i := range 500 {
		require.NoError(t, l.Append(EventRun{ID: uint64(i + 1), Event: event.Stop, Stdin: strings.Repeat("x", 100), Hooks: []Run{}}))
	}
	var total int64
	for _, name := range []string{"runs.jsonl", "runs.1.jsonl"} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.LessOrEqual(t, st.Size(), l.max)
		total += st.Size()
	}
	require.LessOrEqual(t, total, 2*l.max)
	got, err := ReadRunLog(dir)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	require.Equal(t, uint64(500), got[len(got)-1].ID, "the newest run is kept")
	for i := 1; i < len(got); i++ {
		require.Equal(t, got[i-1].ID+1, got[i].ID, "oldest first, none missing in between")
	}
}

// A torn or foreign line is skipped, and a missing log is no runs.
func TestReadRunLogSkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	got, err := ReadRunLog(dir)
	require.NoError(t, err)
	require.Empty(t, got)
	text := fmt.Sprintf("%s\n{\"event\":\"Stop\",\"id\":2,\"hooks\":[]}\n{\"event\":\"Sto", `not json`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(text), 0o600))
	got, err = ReadRunLog(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, uint64(2), got[0].ID)
}

// Several servers share one wave home, and a user may delete the log: a run
// log that holds its file open still writes each line to the current file,
// after another process's rotation and after a removal, and every line is
// read back once.
func TestRunLogFollowsRotationAndRemovalByOthers(t *testing.T) {
	dir := t.TempDir()
	a := newRunLog(dir, 2<<10)
	b := newRunLog(dir, 2<<10)
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	run := func(id int) EventRun {
		return EventRun{ID: uint64(id), Event: event.Stop, Stdin: strings.Repeat("x", 100), Hooks: []Run{}}
	}
	require.NoError(t, a.Append(run(1)))
	// b rotates the file a holds open.
	id := 2
	for ; ; id++ {
		require.NoError(t, b.Append(run(id)))
		if _, err := os.Stat(filepath.Join(dir, "runs.1.jsonl")); err == nil {
			break
		}
	}
	require.NoError(t, a.Append(run(id+1)))
	cur, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(cur), fmt.Sprintf(`"id":%d,`, id+1), "a's next line goes to the new current file")
	prev, err := os.ReadFile(filepath.Join(dir, "runs.1.jsonl"))
	require.NoError(t, err)
	require.NotContains(t, string(prev), fmt.Sprintf(`"id":%d,`, id+1), "not to the rotated one")

	// The user removes the log directory; the next line makes it again.
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, a.Append(run(id+2)))
	got, err := ReadRunLog(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, uint64(id+2), got[0].ID)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
}

// A history's runs are written behind its answers, in the order they were
// added, every one of them, and whole: Flush is when a reader can count
// on them (a host flushes as it ends).
func TestRunsWrittenBehindAreAllThereAfterFlush(t *testing.T) {
	dir := t.TempDir()
	h := NewHistory(10)
	l := NewRunLog(dir)
	h.PersistTo(l)
	t.Cleanup(func() { _ = l.Close() })
	const runs = 2000
	for range runs {
		h.Add(EventRun{Event: event.Stop, Stdin: strings.Repeat("x", 100), Hooks: []Run{}})
	}
	h.Flush()
	got, err := ReadRunLog(dir)
	require.NoError(t, err)
	require.Len(t, got, runs)
	for i, r := range got {
		require.Equal(t, uint64(i+1), r.ID, "in the order added")
	}
}
