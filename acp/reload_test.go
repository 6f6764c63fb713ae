package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The proxy reloads the settings at every prompt, reading them only when an
// input of the last load changed (host.Workspace.ReloadIfChanged). Once the
// files are old enough for their stamps to count, an unchanged workspace is
// not read at a prompt; and then a settings file edited to the same size,
// or the trust given or revoked by `wavehooks trust` in another process,
// makes the very next prompt run exactly the new hooks.
func TestPromptSeesWhatChangedSinceTheLastPrompt(t *testing.T) {
	bin, err := wavehooksBin()
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		project bool // the hook is the project's own, not the user's
		trusted bool // trusted before the proxy starts
		change  func(t *testing.T, r *rig, hooks string)
		before  string
		after   string // "" when no hook runs
	}{
		{
			name: "the user settings file edited to the same size with another hook", before: "A",
			change: func(t *testing.T, r *rig, hooks string) {
				path := filepath.Join(r.home, "settings.json")
				old := readFile(t, path)
				edited := strings.Replace(old, filepath.Join(hooks, "a.sh"), filepath.Join(hooks, "b.sh"), 1)
				require.Len(t, edited, len(old))
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = f.WriteAt([]byte(edited), 0)
				require.NoError(t, err)
				require.NoError(t, f.Close())
			},
			after: "B",
		},
		{
			name: "trust granted by `wavehooks trust --yes`", project: true, before: "",
			change: func(t *testing.T, r *rig, _ string) { trustCommand(t, bin, r, "--yes") },
			after:  "A",
		},
		{
			name: "trust revoked by `wavehooks trust --revoke`", project: true, trusted: true, before: "A",
			change: func(t *testing.T, r *rig, _ string) { trustCommand(t, bin, r, "--revoke") },
			after:  "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hooks, project := t.TempDir(), t.TempDir()
			ran := filepath.Join(hooks, "ran")
			a := hook(t, hooks, "a.sh", `jq -r '"A " + .prompt' >> `+ran)
			hook(t, hooks, "b.sh", `jq -r '"B " + .prompt' >> `+ran)
			ro := rigOptions{project: project, fixed: true, script: `{"every": [{"stop":"end_turn"}]}`}
			cfg := settings([3]string{"UserPromptSubmit", "", a})
			if tc.project {
				require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"), []byte(cfg), 0o600))
			} else {
				ro.settings = cfg
			}
			r := startRig(t, ro)
			if tc.trusted {
				trustCommand(t, bin, r, "--yes")
			}
			sess := r.handshake()
			ranFor := func(prompt string) string {
				var who []string
				for _, line := range strings.Split(readFile(t, ran), "\n") {
					if by, p, ok := strings.Cut(line, " "); ok && p == prompt {
						who = append(who, by)
					}
				}
				return strings.Join(who, ",")
			}
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "FIRST")))
			require.Equal(t, tc.before, ranFor("FIRST"))

			// Prompt until one is answered without reading the settings:
			// the stamps count once the files are 2 s old.
			ws := r.proxy.workspace(project)
			deadline := time.Now().Add(waitFor)
			for n := 0; ; n++ {
				require.True(t, time.Now().Before(deadline), "every prompt read the unchanged settings again")
				loads := ws.Loads()
				require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "SETTLE")))
				if ws.Loads() == loads {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			loads := ws.Loads()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "UNCHANGED")))
			require.Equal(t, tc.before, ranFor("UNCHANGED"))
			require.Equal(t, loads, ws.Loads(), "an unchanged workspace is not read at a prompt")

			tc.change(t, r, hooks)
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "AFTER")))
			require.Equal(t, tc.after, ranFor("AFTER"), "the next prompt runs exactly the new hooks")
			require.Equal(t, loads+1, ws.Loads(), "the change was read at that prompt")
		})
	}
}

// trustCommand runs `wavehooks trust` on the rig's project, as a user in
// another terminal does.
func trustCommand(t *testing.T, bin string, r *rig, arg string) {
	t.Helper()
	cmd := exec.Command(bin, "trust", arg, "--project", r.project, "--wave-home", r.home)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "WAVE_MANAGED_SETTINGS="+filepath.Join(t.TempDir(), "none.json"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "wavehooks trust %s: %s", arg, out)
}
