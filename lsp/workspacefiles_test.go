package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/proctest"
	"github.com/wavehooks/wavehooks/lsp"
)

// userPromptHook is the user's own hook: real sh with jq on its stdin.
const userPromptHook = `{"importVSCodeHooks": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
  "command": "jq -r '\"user hook saw: \" + .prompt'"}]}]}}`

// TestServerSurvivesHostileWorkspaceFiles plants each hostile file as the
// project's .wave/settings.json and as one of VS Code's hook files, before
// the server starts: it starts, publishes a diagnostic on the planted file
// that says what is wrong, and the user's own hook runs. Before the bounded
// reader, the nested file overflowed the stack (the test process died), the
// FIFO hung initialize and /dev/zero grew memory past a GiB.
func TestServerSurvivesHostileWorkspaceFiles(t *testing.T) {
	for _, h := range proctest.HostileFiles {
		for _, where := range []string{".wave/settings.json", ".github/hooks/planted.json"} {
			t.Run(h.Name+" at "+where, func(t *testing.T) {
				root := t.TempDir()
				planted := filepath.Join(root, where)
				require.NoError(t, h.Plant(planted))
				e := startEditor(t, editorOpts{settings: userPromptHook, root: root, serverOpt: lsp.Options{TrustWorkspace: true}})
				e.diagnosticsFor(planted, func(ds []protocol.Diagnostic) bool {
					for _, d := range ds {
						if strings.Contains(d.Message, h.Says) {
							return true
						}
					}
					return false
				})
				sid, _ := e.startSession()
				r := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"})
				require.Contains(t, fmt.Sprint(r["additionalContext"]), "user hook saw: hello")
			})
		}
	}
}

// TestSettingsStillReloadAfterAPlantInTheSessionsDirectory plants, in
// $WAVE_HOME/sessions, a FIFO or a /dev/zero symlink as a session file the
// server does not have open, and as the transcript of one it has (renamed
// over it). Reading one used to hang the watcher's delivery goroutine
// (settings stopped reloading) or fill memory; now the file is refused and
// every later settings change is still applied.
func TestSettingsStillReloadAfterAPlantInTheSessionsDirectory(t *testing.T) {
	plants := map[string]func(string) error{"a FIFO": proctest.Mkfifo}
	for _, h := range proctest.HostileFiles {
		if h.Name == "a symlink to /dev/zero" {
			plants[h.Name] = h.Plant
		}
	}
	for name, plant := range plants {
		for _, where := range []string{"session_planted.json", "session_planted.meta.json", "the open transcript"} {
			t.Run(name+" as "+where, func(t *testing.T) {
				e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo first >&2; exit 2"}})})
				settings := filepath.Join(e.home, "settings.json")
				sid, transcript := e.startSession()
				path := filepath.Join(filepath.Dir(transcript), where)
				if where == "the open transcript" {
					path = transcript + ".planted"
				}
				require.NoError(t, plant(path))
				if where == "the open transcript" {
					require.NoError(t, os.Rename(path, transcript))
				}
				for _, word := range []string{"second", "third"} {
					announced := e.countNotifications("wave/hooksChanged", "")
					require.NoError(t, os.WriteFile(settings, []byte(hookSettings(map[string][]string{"Stop": {"cat >/dev/null; echo " + word + " >&2; exit 2"}})), 0o644))
					e.waitNotificationAfter("wave/hooksChanged", announced, nil)
					require.Eventually(t, func() bool {
						var out map[string]any
						return e.call("wave/stop", map[string]any{"sessionId": sid}, &out) == nil && out["reason"] == word
					}, 20*time.Second, 20*time.Millisecond, "the settings were not reloaded after the plant")
				}
			})
		}
	}
}

// openUnder lists the files under dir this process has open descriptors on.
func openUnder(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	var open []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			open = append(open, target)
		}
	}
	return open
}

// TestEndedSessionsReleaseTheirTranscripts: each ended session kept its
// transcript open, so a long-running server met the descriptor limit and
// new sessions failed. After 60 sessions started and ended none of their
// files is open; a session resumed after its end (any event on its id)
// is loaded again from its file, conversation and all.
func TestEndedSessionsReleaseTheirTranscripts(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	for _, format := range []string{"json", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			e := startEditor(t, editorOpts{settings: `{"transcriptFormat": "` + format + `"}`})
			sessions := filepath.Join(e.home, "sessions")
			var first, firstPath string
			for i := range 60 {
				sid, path := e.startSession()
				if i == 0 {
					first, firstPath = sid, path
				}
				e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": fmt.Sprint("prompt ", i)})
				if i == 0 {
					require.Equal(t, []string{firstPath}, openUnder(t, sessions), "a session in use has its transcript open")
				}
				e.mustCall("wave/sessionEnd", map[string]any{"sessionId": sid, "reason": "logout"})
			}
			require.Empty(t, openUnder(t, sessions), "descriptors on ended sessions' files")

			e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": first, "prompt": "resumed"})
			got := fmt.Sprint(e.mustCall("wave/getSession", map[string]any{"sessionId": first}))
			require.Contains(t, got, "prompt 0")
			require.Contains(t, got, "resumed")
			open := openUnder(t, sessions)
			require.Contains(t, open, firstPath, "the resumed session's transcript")
			for _, f := range open {
				require.True(t, strings.HasPrefix(f, firstPath), "only the resumed session's files (its transcript, a journal): %s", f)
			}
		})
	}
}

// TestSessionStartWatchPathsAreCapped: a SessionStart hook asking to watch
// 12,000 files gets the first hooks.MaxWatchPaths watched (a count, not a
// time: the quadratic handling took 3.6 s of CPU for 28,000) and a warning
// that says the rest are not; a change to the last one watched fires
// FileChanged, one to the first left out does not.
func TestSessionStartWatchPathsAreCapped(t *testing.T) {
	e := startEditor(t, editorOpts{settings: mustJSON(map[string]any{"hooks": map[string]any{
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq -c '.cwd as $c | {hookSpecificOutput: {hookEventName: "SessionStart", watchPaths: [range(0; 12000) | $c + "/w/f\(.)"]}}'`}}}},
		"FileChanged": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq -r '.event + " " + .file_path' >> "$WAVE_PROJECT_DIR/changes.log"`}}}},
	}})})
	out := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	watched, ok := out["watchPaths"].([]any)
	require.True(t, ok, "%.2000s", mustJSON(out))
	require.Len(t, watched, hooks.MaxWatchPaths)
	path := func(i int) string { return filepath.Join(e.root, "w", fmt.Sprint("f", i)) }
	require.Equal(t, path(hooks.MaxWatchPaths-1), watched[len(watched)-1])
	require.Contains(t, mustJSON(out), fmt.Sprintf("watchPaths lists more than %d paths: only the first %d are watched", hooks.MaxWatchPaths, hooks.MaxWatchPaths))

	require.NoError(t, os.MkdirAll(filepath.Join(e.root, "w"), 0o755))
	log := filepath.Join(e.root, "changes.log")
	require.NoError(t, os.WriteFile(path(hooks.MaxWatchPaths), nil, 0o644)) // left out
	require.NoError(t, os.WriteFile(path(hooks.MaxWatchPaths-1), nil, 0o644))
	logged := func(line string) func() bool {
		return func() bool {
			b, _ := os.ReadFile(log)
			return slices.Contains(strings.Split(string(b), "\n"), line)
		}
	}
	require.Eventually(t, logged("add "+path(hooks.MaxWatchPaths-1)), 20*time.Second, 10*time.Millisecond)
	require.NoError(t, os.WriteFile(path(0), nil, 0o644)) // after the one left out: its event, if any, came first
	require.Eventually(t, logged("add "+path(0)), 20*time.Second, 10*time.Millisecond)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		require.False(t, strings.HasSuffix(line, " "+path(hooks.MaxWatchPaths)), "the path past the cap fired FileChanged: %s", line)
	}
}

// TestClaudeSettingsAreOpenedOnlyWhenImported: a FIFO at
// .claude/settings.json hung the server at start (it read every settings
// file whatever importClaudeHooks said). With the import off the file is
// never opened and nothing is said about it; with it on, the file is
// refused with a diagnostic. Either way the user's hook runs.
func TestClaudeSettingsAreOpenedOnlyWhenImported(t *testing.T) {
	for _, imported := range []bool{false, true} {
		t.Run(fmt.Sprint("importClaudeHooks ", imported), func(t *testing.T) {
			root := t.TempDir()
			planted := filepath.Join(root, ".claude", "settings.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(planted), 0o755))
			require.NoError(t, proctest.Mkfifo(planted))
			settings := fmt.Sprintf(`{"importClaudeHooks": %v, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
  "command": "jq -r '\"user hook saw: \" + .prompt'"}]}]}}`, imported)
			e := startEditor(t, editorOpts{settings: settings, root: root, keep: true})
			sid, _ := e.startSession()
			r := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"})
			require.Contains(t, fmt.Sprint(r["additionalContext"]), "user hook saw: hello")
			if imported {
				e.diagnosticsFor(planted, func(ds []protocol.Diagnostic) bool {
					return len(ds) == 1 && strings.Contains(ds[0].Message, "a FIFO")
				})
				return
			}
			for _, m := range e.messages() {
				require.NotContains(t, mustJSON(m), ".claude", "a file whose import is off is not read, nor mentioned")
			}
		})
	}
}
