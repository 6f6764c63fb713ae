package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// guardedTurn is a turn in which the agent tries everything a deny-everything
// guard must stop: a terminal, a file write and a tool it asks permission for.
func guardedTurn(target string) string {
	return `[{"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf","/"]}},
	  "ifOK":[{"say":"terminal ran"}],"ifError":[{"say":"terminal refused: $error"}]},` +
		fsWrite(target, "pwned") + `,
	 {"permission":{"toolCallId":"t1","title":"rm -rf /","kind":"execute","rawInput":{"command":"rm -rf /"}},
	  "ifAllowed":[{"say":"permission allowed"}],"ifRejected":[{"say":"permission rejected"}],"ifCancelled":[{"say":"permission cancelled"}]},
	 {"stop":"end_turn"}]`
}

// A session whose transcript cannot be kept — a read-only sessions
// directory, a sessions "directory" that is a file, a session file that
// cannot be created, a sessions directory that goes away mid-session — still
// runs every hook, on the session kept in memory: a deny-everything
// PreToolUse guard refuses the terminal, the file write and the permission
// request, none of them reaches the editor, and the editor is told that the
// transcript is not kept. (Before, the proxy kept no state for such a
// session and passed all three to the editor unchecked.)
func TestSessionWithoutTranscriptStillRunsEveryHook(t *testing.T) {
	cases := []struct {
		name string
		// before prepares $WAVE_HOME before the proxy starts; after breaks
		// it once the session has started.
		before, after func(t *testing.T, home string)
		notice        string
	}{
		{name: "read-only sessions directory", notice: "this session's transcript cannot be kept",
			before: func(t *testing.T, home string) {
				if os.Geteuid() == 0 {
					t.Skip("root writes to a read-only directory; the cases below cover the same failure")
				}
				dir := filepath.Join(home, "sessions")
				require.NoError(t, os.MkdirAll(dir, 0o700))
				require.NoError(t, os.Chmod(dir, 0o500))
				t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
			}},
		{name: "sessions is a file", notice: "this session's transcript cannot be kept",
			before: func(t *testing.T, home string) {
				require.NoError(t, os.WriteFile(filepath.Join(home, "sessions"), []byte("not a directory"), 0o600))
			}},
		{name: "the session file cannot be created", notice: "this session's transcript cannot be kept",
			before: func(t *testing.T, home string) {
				// A directory where not even root can create a file.
				const procDir = "/proc/sys/fs"
				if _, err := os.Stat(procDir); err != nil {
					t.Skip("no " + procDir + " here")
				}
				require.NoError(t, os.Symlink(procDir, filepath.Join(home, "sessions")))
			}},
		{name: "the sessions directory goes away mid-session", notice: "this session's transcript can no longer be written",
			after: func(t *testing.T, home string) {
				dir := filepath.Join(home, "sessions")
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.WriteFile(dir, []byte("not a directory"), 0o600))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ran := filepath.Join(dir, "ran")
			guard := hook(t, dir, "guard.sh", `jq -c '[.tool_name, .session_id, .tool_input.command // .tool_input.file_path]' >> `+ran+`
jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "nothing runs here"}}'`)
			target := filepath.Join(t.TempDir(), "x.txt")
			r := startRig(t, rigOptions{
				settings: settings([3]string{"PreToolUse", "", guard}),
				script:   script(guardedTurn(target)),
				opts: func(o *Options) {
					if c.before != nil {
						c.before(t, o.WaveHome)
					}
				},
			})
			sess := r.handshake()
			if c.after != nil {
				c.after(t, r.home)
			}
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "clean up")))

			require.Equal(t, `["Bash","sess-1","rm -rf /"]`+"\n"+`["Write","sess-1",`+string(mustRaw(target))+`]`+"\n"+
				`["Bash","sess-1","rm -rf /"]`+"\n", readFile(t, ran), "the guard ran for each, with the session's own id")
			require.Empty(t, r.noted(methodTerminalCreate), "the editor never got the terminal")
			require.Empty(t, r.noted(methodWriteTextFile), "the editor never got the write")
			require.Empty(t, r.noted(methodRequestPermission), "the editor never got the permission request")
			_, err := os.Stat(target)
			require.True(t, os.IsNotExist(err))
			texts := r.chunkTexts()
			require.Contains(t, texts, "terminal refused: Denied by a PreToolUse hook: nothing runs here")
			require.Contains(t, texts, "error: Denied by a PreToolUse hook: nothing runs here")
			require.Contains(t, texts, "permission rejected")
			var told []string
			for _, text := range texts {
				if strings.HasPrefix(text, "\n\n[wavehooks] error: "+c.notice) {
					told = append(told, text)
				}
			}
			require.Len(t, told, 1, "the editor is told once: %q", texts)
		})
	}
}
