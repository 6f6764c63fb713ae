package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Hooks that misbehave in every way a process can. engine_test.go covers
// the timeout of a process tree, huge stdin a hook never reads, and flooded
// output; these are the rest.

// waitPidFile waits for a hook to write a pid file and returns the pid.
func waitPidFile(t *testing.T, path string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond, "no pid in %s", path)
	t.Cleanup(func() { killPid(pid) })
	return pid
}

// A hook that starts a background child and exits: the event does not wait
// for the child (it holds the hook's stdout, which is a file, not a pipe
// whose end must be reached), and the child keeps running: only a timeout
// or a cancellation kills a hook's process group.
func TestFaultBackgroundChildOutlivesItsHook(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	e, root := setup(t, one(event.Stop, `sleep 30 & echo $! > `+pidFile+`; echo '{"systemMessage":"parent done"}'`))
	start := time.Now()
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.Less(t, time.Since(start), 5*time.Second, "the event waited for the background child")
	require.Equal(t, []string{"parent done"}, res.Warnings)
	require.Equal(t, 0, res.Runs[0].ExitCode)
	pid := waitPidFile(t, pidFile)
	require.True(t, alive(pid), "the background child of a hook that exited normally keeps running")
}

// A background child that writes after its hook exited changes nothing: the
// result is what the hook wrote before it exited.
func TestFaultLateOutputOfAChildIsIgnored(t *testing.T) {
	e, root := setup(t, one(event.UserPromptSubmit, `cat >/dev/null; (sleep 0.3; echo late) & echo early`))
	res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
	require.Equal(t, []string{"early"}, res.Context)
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, "early\n", res.Runs[0].Stdout)
}

// A hook that times out has its whole process group killed, background
// children included, and a child that left the group with setsid too
// (proc_test.go has every way out). The event still returns at the timeout.
func TestFaultTimedOutHookAndItsChildren(t *testing.T) {
	dir := t.TempDir()
	inGroup, escaped := filepath.Join(dir, "in-group.pid"), filepath.Join(dir, "escaped.pid")
	cmd := `sleep 60 & echo $! > ` + inGroup + `; setsid sh -c 'echo $$ > ` + escaped + `; exec sleep 60' & sleep 60`
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + jsonString(cmd) + `,"timeout":1}]}]}}`
	e, root := setup(t, settings)
	start := time.Now()
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.Less(t, time.Since(start), 5*time.Second)
	require.True(t, res.Runs[0].TimedOut)
	require.Contains(t, strings.Join(res.Errors, "\n"), "hook timed out after 1s")
	groupPid, escapedPid := waitPidFile(t, inGroup), waitPidFile(t, escaped)
	require.Eventually(t, func() bool { return !alive(groupPid) }, 5*time.Second, 10*time.Millisecond, "a child in the hook's group survived")
	require.Eventually(t, func() bool { return !alive(escapedPid) }, 5*time.Second, 10*time.Millisecond, "a child that called setsid survived")
}

// A hook that closes its stdin, or reads a little of it and exits, is a
// normal hook; one that fails because stdin is closed is a non-blocking error.
func TestFaultHooksThatCloseOrStopReadingStdin(t *testing.T) {
	cases := []struct {
		name, command string
		check         func(t *testing.T, res hooks.Result)
	}{
		{"closes stdin and answers", `exec 0<&-; echo '{"systemMessage":"closed stdin"}'`, func(t *testing.T, res hooks.Result) {
			require.Equal(t, []string{"closed stdin"}, res.Warnings)
		}},
		{"closes stdin then reads it", `exec 0<&-; cat; echo "cat said $?" >&2; exit 1`, func(t *testing.T, res hooks.Result) {
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], "cat said 1")
		}},
		{"reads 10 bytes of 4 MB and exits", `head -c 10 >/dev/null; echo '{"systemMessage":"enough"}'`, func(t *testing.T, res hooks.Result) {
			require.Equal(t, []string{"enough"}, res.Warnings)
		}},
		{"exits before reading", `exit 0`, func(t *testing.T, res hooks.Result) {
			require.Empty(t, res.Errors)
			require.Equal(t, 0, res.Runs[0].ExitCode)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(event.PreToolUse, c.command))
			in := input(event.PreToolUse, root)
			in.ToolInput, _ = json.Marshal(map[string]string{"content": strings.Repeat("z", 4<<20)})
			start := time.Now()
			res := e.Fire(context.Background(), in)
			require.Less(t, time.Since(start), 10*time.Second)
			c.check(t, res)
		})
	}
}

// A hook that floods stdout and never ends: killed at its timeout with 1 MiB
// of output kept (the rest was cut while it ran), and the event says so.
func TestFaultEndlessOutputUntilTimeout(t *testing.T) {
	settings := `{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"cat >/dev/null; yes flood","timeout":1}]}]}}`
	e, root := setup(t, settings)
	res := e.Fire(context.Background(), input(event.PostToolUse, root))
	r := res.Runs[0]
	require.True(t, r.TimedOut)
	require.Len(t, r.Stdout, proc.MaxOutput)
	require.True(t, r.StdoutTruncated)
	require.Contains(t, strings.Join(res.Warnings, "\n"), "truncated")
	require.Contains(t, strings.Join(res.Errors, "\n"), "timed out")
}

// 5 MB of JSON on stdout is cut at 1 MiB: the JSON can no longer be read,
// which is an error that names the cap. For PreToolUse and
// PermissionRequest it denies (the cut answer may have been a deny: failing
// open would let a flood turn it into an allow); for other events the exit
// code decides, as for any answer that cannot be read.
func TestFaultHugeJSONOutput(t *testing.T) {
	answer := func(ev event.Event, decision string) string {
		return `cat >/dev/null; printf '{"hookSpecificOutput":{"hookEventName":"` + string(ev) + `",` + decision + `,"x":"'; head -c 5000000 /dev/zero | tr '\0' r; printf '"}}'`
	}
	cases := []struct {
		name    string
		event   event.Event
		command string
		perm    hooks.Permission
		blocked bool
	}{
		{"PreToolUse deny", event.PreToolUse, answer(event.PreToolUse, `"permissionDecision":"deny"`), hooks.PermissionDeny, false},
		{"PreToolUse allow is denied too", event.PreToolUse, answer(event.PreToolUse, `"permissionDecision":"allow"`), hooks.PermissionDeny, false},
		{"PermissionRequest", event.PermissionRequest, answer(event.PermissionRequest, `"decision":{"behavior":"allow"}`), hooks.PermissionDeny, false},
		{"Stop goes by the exit code", event.Stop, answer(event.Stop, `"additionalContext":"x"`), hooks.PermissionNone, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, root := setup(t, one(c.event, c.command))
			in := input(c.event, root)
			if c.event == event.PermissionRequest {
				in.ToolName, in.ToolInput = "Bash", json.RawMessage(`{"command":"ls"}`)
			}
			res := e.Fire(context.Background(), in)
			require.True(t, res.Runs[0].StdoutTruncated)
			require.Equal(t, c.perm, res.Permission)
			require.Equal(t, c.blocked, res.Blocked)
			require.Len(t, res.Errors, 1)
			require.Contains(t, res.Errors[0], "longer than the 1048576-byte output cap")
			if c.perm == hooks.PermissionDeny {
				require.Contains(t, res.Reason, "output cap")
				require.Contains(t, res.Errors[0], "the tool call is denied")
			}
			require.Empty(t, res.Warnings, "the error says it all; no second message about the same cut")
			require.Less(t, len(res.Errors[0]), 10<<10, "the error does not quote the output")
			require.Contains(t, res.Runs[0].Decision, "cut at the output cap")
		})
	}
}

// Invalid UTF-8 from a hook is kept as it was written here; the wire and
// the session file encode it as U+FFFD (lsp's fault tests check that).
func TestFaultInvalidUTF8Output(t *testing.T) {
	e, root := setup(t, one(event.UserPromptSubmit, `cat >/dev/null; printf 'a\377b'; printf '\300' >&2`))
	res := e.Fire(context.Background(), input(event.UserPromptSubmit, root))
	require.Equal(t, []string{"a\xffb"}, res.Context)
	b, err := json.Marshal(res.Context)
	require.NoError(t, err)
	require.Equal(t, `["a\ufffdb"]`, string(b))
}

// A hook that kills itself with a signal is a non-blocking error naming the exit status.
func TestFaultHookKilledBySignal(t *testing.T) {
	e, root := setup(t, one(event.Stop, `kill -9 $$`))
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.Equal(t, 137, res.Runs[0].ExitCode)
	require.Len(t, res.Errors, 1)
	require.Contains(t, res.Errors[0], "exit code 137")
	require.False(t, res.Blocked)
}

// A hook with a timeout too long for a Duration runs (it used to overflow
// into a negative timeout and time out at once).
func TestFaultHugeTimeoutDoesNotTimeOutAtOnce(t *testing.T) {
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo '{\"systemMessage\":\"ran\"}'","timeout":1e300}]}]}}`
	e, root := setup(t, settings)
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.False(t, res.Runs[0].TimedOut)
	require.Equal(t, []string{"ran"}, res.Warnings)
}

// A one-line settings file with many problems is diagnosed, each problem at
// its own column. (It used to take 15 s, counting every column from the
// start of the line; BenchmarkLongOneLineSettings measures it, since a
// timed assertion would fail on a busy machine rather than on slow code.)
func TestFaultLongOneLineSettings(t *testing.T) {
	text := `{"hooks":{` + strings.Repeat(`"Stöp":1,`, 40000) + `"Stop":[]}}`
	f := settings.ParseFile("settings.json", settings.SourceUser, []byte(text), t.TempDir())
	require.Len(t, f.Diagnostics, 40000)
	last := f.Diagnostics[len(f.Diagnostics)-1]
	require.Equal(t, 0, last.Range.Start.Line)
	require.Equal(t, strings.LastIndex(text, `"Stöp"`)-40000+1, last.Range.Start.Column, "columns count ö as one")
}

// BenchmarkLongOneLineSettings diagnoses a one-line file with 40,000
// problems: linear in the line's length (quadratic took 15 s).
func BenchmarkLongOneLineSettings(b *testing.B) {
	text := []byte(`{"hooks":{` + strings.Repeat(`"Stöp":1,`, 40000) + `"Stop":[]}}`)
	dir := b.TempDir()
	for b.Loop() {
		settings.ParseFile("settings.json", settings.SourceUser, text, dir)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
