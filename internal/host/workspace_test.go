package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guard is a PreToolUse hook script that reads its stdin with jq and denies
// any Bash command that deletes recursively.
const guard = `#!/bin/sh
cmd=$(jq -r '.tool_input.command // empty')
case "$cmd" in
  *"rm -rf"*) echo "recursive delete refused by $0" >&2; exit 2 ;;
esac
exit 0
`

// guardSettings registers the guard script of the project for Bash.
const guardSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "sh \"${CLAUDE_PROJECT_DIR}/.wave/guard.sh\""}]}]}}`

// project makes a project whose own settings run guard.sh, and a WAVE_HOME.
func project(t *testing.T) (home, root string) {
	t.Helper()
	home, root = t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".wave"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "settings.json"), []byte(guardSettings), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "guard.sh"), []byte(guard), 0o755))
	return home, root
}

func rmrf(root string) event.Input {
	return event.Input{Event: event.PreToolUse, SessionID: "s1", Cwd: root, ToolName: "Bash", ToolUseID: "t1",
		ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)}
}

func open(t *testing.T, c host.Config, root string, o host.Options) *host.Workspace {
	t.Helper()
	ws := host.New(c).Open(root, o)
	t.Cleanup(func() { require.NoError(t, ws.Close()) })
	return ws
}

// A workspace's own hooks run only when the workspace is trusted: by the
// user's answer in the trust store, or by --trust-workspace.
func TestOpenDecidesTrust(t *testing.T) {
	for _, tc := range []struct {
		name     string
		always   bool
		byStore  bool
		wantDeny bool
	}{
		{name: "not trusted: the guard does not run"},
		{name: "--trust-workspace", always: true, wantDeny: true},
		{name: "trusted by the user", byStore: true, wantDeny: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, root := project(t)
			if tc.byStore {
				first := open(t, host.Config{WaveHome: home}, root, host.Options{NoStore: true})
				require.NoError(t, first.Trust.Trust(root, first.Loaded().Hash))
			}
			ws := open(t, host.Config{WaveHome: home, TrustWorkspace: tc.always}, root, host.Options{NoStore: true})
			require.Equal(t, tc.wantDeny, ws.Loaded().Trusted)
			res := ws.Engine.Fire(context.Background(), rmrf(root))
			if tc.wantDeny {
				require.Equal(t, hooks.PermissionDeny, res.Permission)
				require.Contains(t, res.Reason, "recursive delete refused")
			} else {
				require.NotEqual(t, hooks.PermissionDeny, res.Permission)
			}
		})
	}
}

// When a trusted script changes, the event refuses the workspace's hooks
// and the host decides trust again at once, whichever adapter opened the
// workspace: the changed script is not trusted until the user says so
// (before the host, only the LSP server did this; the ACP proxy waited for
// the next prompt, and `run` and `demo` never did).
func TestChangedScriptIsJudgedAgain(t *testing.T) {
	home, root := project(t)
	first := open(t, host.Config{WaveHome: home}, root, host.Options{NoStore: true})
	require.NoError(t, first.Trust.Trust(root, first.Loaded().Hash))

	ws := open(t, host.Config{WaveHome: home}, root, host.Options{NoStore: true})
	require.True(t, ws.Loaded().Trusted)
	require.Equal(t, hooks.PermissionDeny, ws.Engine.Fire(context.Background(), rmrf(root)).Permission)

	require.NoError(t, os.WriteFile(filepath.Join(root, ".wave", "guard.sh"), []byte("#!/bin/sh\necho changed >&2\nexit 2\n"), 0o755))
	res := ws.Engine.Fire(context.Background(), rmrf(root))
	require.NotEqual(t, hooks.PermissionDeny, res.Permission, "the changed script must not run")
	require.False(t, ws.Loaded().Trusted, "the workspace is judged again: the changed script is not trusted")
	require.NotEqual(t, first.Loaded().Hash, ws.Loaded().Hash)
}

// A workspace whose sessions directory cannot be made still runs every
// hook, on sessions kept in memory, and says why.
func TestStoreErrorKeepsSessionsInMemory(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -e '.tool_input.command | test(\"rm -rf\") | not' >/dev/null || { echo refused >&2; exit 2; }"}]}]}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(home, "sessions"), []byte("not a directory"), 0o644))

	ws := open(t, host.Config{WaveHome: home}, root, host.Options{})
	require.Error(t, ws.StoreErr)
	require.Nil(t, ws.Store)
	sess, inMemory := ws.OpenSession("s1")
	require.ErrorIs(t, inMemory, ws.StoreErr)
	out, err := sess.PreToolUse(context.Background(), "t1", "Bash", json.RawMessage(`{"command":"rm -rf /"}`), nil)
	require.NoError(t, err)
	require.Equal(t, "deny", out.Permission)
	require.Contains(t, out.Reason, "refused")
}

// The run history has one record per event that had hooks, with what
// happened after them; an event no hook was configured for leaves none.
func TestRecord(t *testing.T) {
	h := host.New(host.Config{HistorySize: 10})
	res := hooks.Result{Event: event.PreToolUse, Permission: hooks.PermissionAsk,
		Runs: []hooks.Run{{Command: "ask.sh"}}}
	for _, tc := range []struct {
		name, note string
		res        hooks.Result
		want       string
		recorded   bool
	}{
		{name: "no hook configured", res: hooks.Result{Event: event.PreToolUse}},
		{name: "no note", res: res, recorded: true},
		{name: "a note", res: res, note: "asked: allowed", recorded: true, want: "; asked: allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := h.History.Len()
			run, ok := h.Record("s1", "Bash", &tc.res, tc.note)
			require.Equal(t, tc.recorded, ok)
			if !tc.recorded {
				require.Equal(t, before, h.History.Len())
				return
			}
			require.Equal(t, before+1, h.History.Len())
			require.Equal(t, hooks.NewEventRun("s1", "Bash", &tc.res).Outcome+tc.want, run.Outcome)
			require.Equal(t, []hooks.EventRun{run}, h.History.List("s1", event.PreToolUse, 1))
		})
	}
}

// An async hook's run is recorded in the host's history when it ends, with
// the adapter's note, and the adapter is told.
func TestAsyncRunIsRecorded(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "async": true, "command": "jq -r .prompt > \"$WAVE_PROJECT_DIR/seen\""}]}]}}`), 0o644))
	told := make(chan hooks.EventRun, 1)
	h := host.New(host.Config{WaveHome: home})
	ws := h.Open(root, host.Options{NoStore: true, AsyncNote: "async",
		OnAsyncRun: func(_ event.Input, _ hooks.Result, run hooks.EventRun) { told <- run }})
	defer ws.Close()

	ws.Engine.Fire(context.Background(), event.Input{Event: event.UserPromptSubmit, SessionID: "s1", Cwd: root, Prompt: "hello"})
	run := <-told
	require.Contains(t, run.Outcome, "; async")
	require.Equal(t, []hooks.EventRun{run}, h.History.List("s1", event.UserPromptSubmit, 10))
	seen, err := os.ReadFile(filepath.Join(root, "seen"))
	require.NoError(t, err)
	require.Equal(t, "hello\n", string(seen))
}
