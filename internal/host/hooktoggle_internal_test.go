package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/settings"
)

// toggleSettings is a user settings file with two guards, as a user wrote
// it (a comment, its own layout).
const toggleSettings = `{
  // the user's guards
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./guard.sh"},
    {"type": "command", "command": "./audit.sh"}
  ]}]}
}
`

// TestSetHookEnabledKeepsAConcurrentSave: an editor's save that lands
// between the toggle's read of the settings file and its rename (#35 item
// 7) is never lost: the toggle starts over from the saved text and turns
// the hook off in it, or, when the file keeps changing or the save moved
// another hook to its place, refuses with nothing written. The file's mode
// is kept.
func TestSetHookEnabledKeepsAConcurrentSave(t *testing.T) {
	guard2 := strings.Replace(toggleSettings, "./guard.sh", "./guard2.sh", 1)
	cases := []struct {
		name string
		// save is the text the editor saves during the given attempt, ""
		// for none; keepTimes puts the file's times back after it.
		save      func(attempt int) string
		keepTimes bool
		// wantErr is what the refusal says (nil when the toggle succeeds);
		// want the file's commands and whether each is off afterwards;
		// attempts how many attempts got as far as the rename.
		wantErr  []string
		want     map[string]bool
		attempts int
	}{
		{name: "no save", save: func(int) string { return "" },
			want: map[string]bool{"./guard.sh": false, "./audit.sh": true}, attempts: 1},
		{name: "one save of another hook: kept, and the hook is turned off in it",
			save: func(a int) string {
				if a == 1 {
					return guard2
				}
				return ""
			},
			want: map[string]bool{"./guard2.sh": false, "./audit.sh": true}, attempts: 2},
		{name: "a save that keeps the size and the times: the content hash sees it",
			save: func(a int) string {
				if a == 1 {
					return strings.Replace(toggleSettings, "./guard.sh", "./gaurd.sh", 1)
				}
				return ""
			}, keepTimes: true,
			want: map[string]bool{"./gaurd.sh": false, "./audit.sh": true}, attempts: 2},
		{name: "saves on every attempt: refused, the last save kept",
			save: func(a int) string {
				return strings.Replace(toggleSettings, "./guard.sh", "./guard-v"+string(rune('0'+a))+".sh", 1)
			},
			wantErr:  []string{"changed while it was being edited, 3 times in a row", "nothing was written"},
			want:     map[string]bool{"./guard-v3.sh": false, "./audit.sh": false},
			attempts: 3},
		{name: "a save that moves another hook to its place: refused, the save kept",
			save: func(a int) string {
				if a == 1 {
					return strings.Replace(toggleSettings, `{"type": "command", "command": "./audit.sh"}`,
						`{"type": "command", "command": "./lint.sh"},
    {"type": "command", "command": "./audit.sh"}`, 1)
				}
				return ""
			},
			wantErr:  []string{"changed while it was being edited, and the hook's place in it now holds another hook", "nothing was written"},
			want:     map[string]bool{"./guard.sh": false, "./lint.sh": false, "./audit.sh": false},
			attempts: 1}, // the second attempt refuses before it writes a copy
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "settings.json")
			require.NoError(t, os.WriteFile(path, []byte(toggleSettings), 0o640))
			require.NoError(t, os.Chmod(path, 0o640)) // whatever the umask
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			require.NoError(t, os.Chtimes(path, old, old))
			cfg := settings.Load(settings.Paths{WaveHome: home, ProjectRoot: t.TempDir()}, nil)
			var h *settings.Hook
			for i := range cfg.Hooks {
				if cfg.Hooks[i].Command == "./audit.sh" {
					h = &cfg.Hooks[i]
				}
			}
			require.NotNil(t, h)

			attempts := 0
			_, err := setHookEnabled(h, false, func(attempt int) {
				attempts = attempt
				text := c.save(attempt)
				if text == "" {
					return
				}
				info, err := os.Stat(path)
				require.NoError(t, err)
				// An editor's save: written in place, as many editors do.
				require.NoError(t, os.WriteFile(path, []byte(text), 0o640))
				if c.keepTimes {
					require.Len(t, text, int(info.Size()))
					require.NoError(t, os.Chtimes(path, info.ModTime(), info.ModTime()))
				}
			})
			require.Equal(t, c.attempts, attempts)
			if c.wantErr != nil {
				require.Error(t, err)
				require.Contains(t, err.Error(), path, "the message names the file")
				for _, w := range c.wantErr {
					require.Contains(t, err.Error(), w)
				}
			} else {
				require.NoError(t, err)
			}

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Contains(t, string(data), "// the user's guards", "comments and layout are kept")
			f := settings.ParseFile(path, settings.SourceUser, data, home)
			got := map[string]bool{}
			for _, fh := range f.Hooks {
				got[fh.Command] = fh.Disabled
			}
			require.Equal(t, c.want, got, string(data))
			info, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o640), info.Mode().Perm(), "the file's mode is kept")
			left, err := filepath.Glob(filepath.Join(home, ".settings.json.*.tmp"))
			require.NoError(t, err)
			require.Empty(t, left, "no temporary file is left behind")
		})
	}
}
