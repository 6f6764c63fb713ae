package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
)

// Every way a hook's child can leave the hook's process group, for
// TestEveryProcessOfARunIsKilled. Each escapee writes its pid to $1.
var escapes = []struct{ name, command string }{
	// A child in a new session and group, whose parent (the hook) is alive.
	{"setsid", `setsid sh -c 'echo $$ > "$1"; exec sleep 1000' sh "$F" &`},
	// A double fork: the escapee's parent exits at once, so it is
	// reparented away from the hook; the run's marker finds it.
	{"setsid after a double fork", `(setsid sh -c 'echo $$ > "$1"; exec sleep 1000' sh "$F" &)`},
	// No marker in its environment, but still a child of the live hook.
	{"setsid without the marker", `setsid env -u WAVEHOOKS_HOOK_RUN sh -c 'echo $$ > "$1"; exec sleep 1000' sh "$F" &`},
	// A grandchild of an escapee: it stays in the escapee's new group.
	{"the child of an escapee", `setsid sh -c 'sleep 1000 & echo $! > "$1"; wait' sh "$F" &`},
}

// escapingHook is a hook that starts an escapee, then sleeps until it is killed.
func escapingHook(command, pidFile string) string {
	return `jq -r .hook_event_name >/dev/null; F=` + pidFile + "\n" + command + "\nsleep 1000"
}

// A hook's children that left its process group (setsid) are killed with
// it on timeout, on cancellation and when the engine closes: a kill of the
// group alone cannot reach them (issue #12, item 12).
func TestEveryProcessOfARunIsKilled(t *testing.T) {
	for _, esc := range escapes {
		t.Run(esc.name+", timeout", func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "escapee.pid")
			settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{
				map[string]any{"type": "command", "command": escapingHook(esc.command, pidFile), "timeout": 5}}}}}}) // long enough to start the escapee on a busy machine
			e, root := setup(t, string(settings))
			res := e.Fire(context.Background(), input(event.Stop, root))
			require.True(t, res.Runs[0].TimedOut)
			requireKilled(t, waitPidFile(t, pidFile))
		})
		t.Run(esc.name+", cancelled", func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "escapee.pid")
			e, root := setup(t, one(event.Stop, escapingHook(esc.command, pidFile)))
			ctx, cancel := context.WithCancel(context.Background())
			var res hooks.Result
			done := make(chan struct{})
			go func() {
				defer close(done)
				res = e.Fire(ctx, input(event.Stop, root))
			}()
			pid := waitPidFile(t, pidFile)
			cancel()
			<-done
			require.Contains(t, res.Errors[0], "cancelled")
			requireKilled(t, pid)
		})
	}
	t.Run("engine closed with an async hook running", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "escapee.pid")
		settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": escapingHook(escapes[1].command, pidFile), "async": true}}}}}})
		e, root := setup(t, string(settings))
		e.Fire(context.Background(), input(event.Stop, root))
		pid := waitPidFile(t, pidFile)
		e.Close()
		requireKilled(t, pid)
	})
}

// requireKilled waits for pid to be gone; only the kill can end a sleep 1000.
func requireKilled(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool { return !alive(pid) }, 10*time.Second, 10*time.Millisecond,
		"process %d outlived the run it belongs to", pid)
}

// Background children of a hook that exited by itself keep running, in
// its group or out of it: a hook may start a daemon.
func TestBackgroundChildrenOfAHookThatExitedKeepRunning(t *testing.T) {
	dir := t.TempDir()
	inGroup, escaped := filepath.Join(dir, "in-group.pid"), filepath.Join(dir, "escaped.pid")
	e, root := setup(t, one(event.Stop, `jq -r .hook_event_name >/dev/null; sleep 1000 >/dev/null 2>&1 & echo $! > `+inGroup+
		`; (setsid sh -c 'echo $$ > "$1"; exec sleep 1000' sh `+escaped+` >/dev/null 2>&1 &); exit 0`))
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.Equal(t, 0, res.Runs[0].ExitCode)
	require.Empty(t, res.Errors)
	for _, f := range []string{inGroup, escaped} {
		require.True(t, alive(waitPidFile(t, f)), "%s: a daemon of a hook that exited normally was killed", filepath.Base(f))
	}
}

// With the engine's process as the subreaper (wavehooks serve), orphans of
// hooks become its children and are reaped when they end, while the hooks
// themselves keep their exit statuses: the reaper never takes one from
// os/exec, even with many hooks starting and ending around it.
func TestOrphansAreAdoptedAndReaped(t *testing.T) {
	stop, err := proc.AdoptOrphans()
	require.NoError(t, err)
	defer stop()
	dir := t.TempDir()
	// Each hook leaves an orphan (double fork) that lives a moment, and
	// exits with a code of its own that the result must show.
	e, root := setup(t, one(event.Stop, `jq -r .hook_event_name >/dev/null; (sleep 0.2 & echo $! > `+dir+`/orphan-$$.pid); exit 3`))
	var wg sync.WaitGroup
	results := make([]hooks.Result, 24)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.Fire(context.Background(), input(event.Stop, root))
		}()
	}
	wg.Wait()
	for _, r := range results {
		require.Equal(t, 3, r.Runs[0].ExitCode, "a hook lost its exit status: %+v", r.Runs[0])
	}
	pids, err := filepath.Glob(filepath.Join(dir, "orphan-*.pid"))
	require.NoError(t, err)
	require.Len(t, pids, len(results))
	self := os.Getpid()
	adopted := 0
	for _, f := range pids {
		pid := waitPidFile(t, f)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && parentOf(string(b)) == self {
			adopted++
		}
		// Gone, not a zombie: reaped.
		require.Eventually(t, func() bool {
			_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
			return os.IsNotExist(err)
		}, 10*time.Second, 10*time.Millisecond, "orphan %d was not reaped", pid)
	}
	require.Positive(t, adopted, "no orphan was adopted by this process")
}

// parentOf reads the parent pid from the text of /proc/PID/stat.
func parentOf(stat string) int {
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
