package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
)

// gatedHook is an async hook that records its stdin, then waits until the
// test opens the gate (a fifo) before it answers with exit 2: applied, that
// answer would block the prompt.
const gatedHook = `jq -r .prompt > \"$WAVE_PROJECT_DIR/async-stdin\"; cat \"$WAVE_PROJECT_DIR/gate\" > /dev/null; echo late; echo too late to block >&2; exit 2`

// makeGate makes the fifo a gated hook waits on.
func makeGate(t *testing.T, root string) string {
	t.Helper()
	gate := filepath.Join(root, "gate")
	require.NoError(t, mkfifo(gate))
	return gate
}

// openGate lets a gated hook go on: opening the fifo for writing waits for
// the hook to open it for reading, and closing it gives the hook EOF.
func openGate(t *testing.T, gate string) {
	t.Helper()
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err == nil {
			err = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the async hook never opened its gate")
	}
}

func waitAsync(t *testing.T, done <-chan hooks.Result) hooks.Result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no report of the async hook")
	}
	return hooks.Result{}
}

func TestAsyncHookDoesNotDelayTheEvent(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "` + gatedHook + `", "async": true},
		{"type": "command", "command": "jq -r .prompt > /dev/null; echo sync context"}]}]}}`})
	gate := makeGate(t, l.root)
	e := hooks.NewEngine(l.load(t))
	defer e.Close()
	done := make(chan hooks.Result, 1)
	e.OnAsyncDone(func(_ event.Input, res hooks.Result) { done <- res })

	res := e.Fire(context.Background(), input(event.UserPromptSubmit, l.root))
	// The event is back while the async hook still waits at its gate.
	select {
	case <-done:
		t.Fatal("the async hook cannot have ended: its gate is closed")
	default:
	}
	require.False(t, res.Blocked, "an async hook's answer is never applied")
	require.Equal(t, []string{"sync context"}, res.Context)
	require.True(t, res.Runs[0].Async)
	require.False(t, res.Runs[0].Ran)
	require.Contains(t, res.Runs[0].Decision, "background")
	require.True(t, res.Runs[1].Ran)
	require.Contains(t, hooks.Summary(&res), "1 started in the background")

	openGate(t, gate)
	late := waitAsync(t, done)
	require.Equal(t, event.UserPromptSubmit, late.Event)
	require.Len(t, late.Runs, 1)
	r := late.Runs[0]
	require.True(t, r.Ran)
	require.True(t, r.Async)
	require.Equal(t, 2, r.ExitCode)
	require.Equal(t, "late\n", r.Stdout)
	require.Equal(t, "exit 2: block", r.Decision)
	require.False(t, late.Blocked, "the report says what the hook did, it applies nothing")
	got, err := os.ReadFile(filepath.Join(l.root, "async-stdin"))
	require.NoError(t, err)
	require.Equal(t, "Please create a file\n", string(got))
	explained := hooks.Explain(hooks.NewEventRun("sess", "", &late))
	require.Contains(t, explained, "ran in the background (async)")
	e.Wait()
}

func TestAsyncHookTimeoutKillsItsProcessGroup(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"Stop": [{"hooks": [
		{"type": "command", "command": "$SCRIPTS/slow.sh", "async": true, "timeout": 1}]}]}}`})
	e := hooks.NewEngine(l.load(t))
	defer e.Close()
	done := make(chan hooks.Result, 1)
	e.OnAsyncDone(func(_ event.Input, res hooks.Result) { done <- res })
	res := e.Fire(context.Background(), input(event.Stop, l.root))
	require.Empty(t, res.Errors, "the event knows nothing of the hook yet")
	late := waitAsync(t, done)
	require.True(t, late.Runs[0].TimedOut)
	require.Len(t, late.Errors, 1)
	require.Contains(t, late.Errors[0], "hook timed out after 1s")
	for _, f := range []string{"child.pid", "grandchild.pid"} {
		b, err := os.ReadFile(filepath.Join(l.root, f))
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 20*time.Millisecond, "%s %d survived", f, pid)
	}
}

func TestCloseKillsAsyncHooks(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "` + gatedHook + `", "async": true}]}]}}`})
	makeGate(t, l.root)
	e := hooks.NewEngine(l.load(t))
	done := make(chan hooks.Result, 2)
	e.OnAsyncDone(func(_ event.Input, res hooks.Result) { done <- res })
	e.Fire(context.Background(), input(event.UserPromptSubmit, l.root))
	e.Close() // the gate is never opened: only the kill ends the hook
	late := waitAsync(t, done)
	require.Contains(t, late.Errors[0], "was cancelled")

	res := e.Fire(context.Background(), input(event.UserPromptSubmit, l.root))
	require.Equal(t, "async hooks are not started while the engine shuts down", res.Runs[0].Skipped)
}

func TestAsyncHookCancelledEventLeavesItRunning(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "` + gatedHook + `", "async": true}]}]}}`})
	gate := makeGate(t, l.root)
	e := hooks.NewEngine(l.load(t))
	defer e.Close()
	done := make(chan hooks.Result, 1)
	e.OnAsyncDone(func(_ event.Input, res hooks.Result) { done <- res })
	ctx, cancel := context.WithCancel(context.Background())
	e.Fire(ctx, input(event.UserPromptSubmit, l.root))
	cancel() // the event is over; the hook it started in the background is not
	openGate(t, gate)
	late := waitAsync(t, done)
	require.Equal(t, 2, late.Runs[0].ExitCode)
	require.Empty(t, late.Errors)
}
