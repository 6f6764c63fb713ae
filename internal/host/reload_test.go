package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/host"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// reloadRig is a workspace with every kind of settings file the host reads
// (WAVE_HOME's, the project's, Claude Code's, VS Code's, the managed
// file), whose UserPromptSubmit hooks each append their name to one log.
type reloadRig struct {
	t                           *testing.T
	home, root, claude, managed string
	log                         string
	ws                          *host.Workspace
}

func newReloadRig(t *testing.T) *reloadRig {
	dir := t.TempDir()
	r := &reloadRig{t: t, home: filepath.Join(dir, "home"), root: filepath.Join(dir, "project"), claude: filepath.Join(dir, "claude"),
		managed: filepath.Join(dir, "etc", "managed-settings.json"), log: filepath.Join(dir, "ran.log")}
	for _, d := range []string{r.home, r.root, r.claude, filepath.Dir(r.managed)} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	return r
}

// hookCommand is a hook that reads its input with jq and logs its name.
func (r *reloadRig) hookCommand(name string) string {
	return fmt.Sprintf(`jq -e '.prompt == "go"' >/dev/null && echo %s >> '%s'`, name, r.log)
}

// hookSettings is a settings file (wave's or Claude Code's format) whose
// one UserPromptSubmit hook logs name; extra are more top-level members.
func (r *reloadRig) hookSettings(name, extra string) string {
	cmd, err := json.Marshal(r.hookCommand(name))
	require.NoError(r.t, err)
	return fmt.Sprintf(`{%s"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": %s}]}]}}`, extra, cmd)
}

// vscodeSettings is a VS Code hook file whose hook logs name.
func (r *reloadRig) vscodeSettings(name string) string {
	cmd, err := json.Marshal(r.hookCommand(name))
	require.NoError(r.t, err)
	return fmt.Sprintf(`{"version": 1, "hooks": {"UserPromptSubmit": [{"type": "command", "command": %s}]}}`, cmd)
}

// path is a file of the rig: home/…, project/…, claude/… or the managed file.
func (r *reloadRig) path(rel string) string {
	if rel == "managed" {
		return r.managed
	}
	return filepath.Join(filepath.Dir(r.home), rel)
}

func (r *reloadRig) write(rel, text string) {
	p := r.path(rel)
	require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(r.t, os.WriteFile(p, []byte(text), 0o644))
}

func (r *reloadRig) open(always bool) {
	r.ws = open(r.t, host.Config{WaveHome: r.home, ClaudeHome: r.claude, ManagedFile: r.managed, TrustWorkspace: always},
		r.root, host.Options{NoStore: true})
}

// prompt reloads as the ACP proxy does at a prompt, fires UserPromptSubmit
// and returns the names of the hooks that ran, sorted.
func (r *reloadRig) prompt() []string {
	r.t.Helper()
	_ = os.Remove(r.log)
	r.ws.ReloadIfChanged()
	r.ws.Engine.Fire(context.Background(), event.Input{Event: event.UserPromptSubmit, SessionID: "s1", Cwd: r.root, Prompt: "go"})
	b, err := os.ReadFile(r.log)
	if os.IsNotExist(err) {
		return []string{}
	}
	require.NoError(r.t, err)
	names := strings.Fields(string(b))
	sort.Strings(names) // the hooks of an event run in parallel
	return names
}

// settle waits until a reload finds the inputs' stamps trustworthy (their
// files are older than the racy margin) and skips the load; from then on an
// unchanged workspace is not read again.
func (r *reloadRig) settle() {
	r.t.Helper()
	require.Eventually(r.t, func() bool {
		before := r.ws.Loads()
		r.ws.ReloadIfChanged()
		return r.ws.Loads() == before
	}, 10*time.Second, 5*time.Millisecond, "the reload never trusted the stamps of an unchanged workspace")
	before := r.ws.Loads()
	for range 3 {
		r.ws.ReloadIfChanged()
	}
	require.Equal(r.t, before, r.ws.Loads(), "an unchanged workspace is read again")
}

// trustAsAnotherProcess records trust as `wavehooks trust --yes` does, with
// a trust store of its own.
func (r *reloadRig) trustAsAnotherProcess() {
	store := trust.NewTrustStore(r.home)
	l := store.Decide(r.root, settings.Load(settings.Paths{WaveHome: r.home, ProjectRoot: r.root, ClaudeHome: r.claude, ManagedFile: r.managed}, nil), false)
	require.True(r.t, l.NeedsTrust())
	require.NoError(r.t, store.Trust(r.root, l.Hash))
}

// A reload at every prompt (the ACP proxy's) reads nothing while nothing
// changed, and any change of any input — a settings file of each kind
// edited, appearing or removed, a symlink retargeted, the trust given or
// taken from another process — makes the next prompt run exactly the new
// hooks.
func TestReloadIfChangedSeesEveryInput(t *testing.T) {
	for _, tc := range []struct {
		name          string
		always        bool // --trust-workspace
		setup, change func(r *reloadRig)
		before, after []string
	}{
		{
			name:   "the user settings file edited to the same size with another hook",
			setup:  func(r *reloadRig) { r.write("home/settings.json", r.hookSettings("userA", "")) },
			change: func(r *reloadRig) { sameSize(r, "home/settings.json", r.hookSettings("userB", "")) },
			before: []string{"userA"}, after: []string{"userB"},
		},
		{
			name: "a project settings file appears", always: true,
			setup:  func(r *reloadRig) { r.write("home/settings.json", r.hookSettings("user", "")) },
			change: func(r *reloadRig) { r.write("project/.wave/settings.json", r.hookSettings("project", "")) },
			before: []string{"user"}, after: []string{"project", "user"},
		},
		{
			name: "the local settings file removed", always: true,
			setup: func(r *reloadRig) {
				r.write("project/.wave/settings.json", r.hookSettings("project", ""))
				r.write("project/.wave/settings.local.json", r.hookSettings("local", ""))
			},
			change: func(r *reloadRig) { require.NoError(r.t, os.Remove(r.path("project/.wave/settings.local.json"))) },
			before: []string{"local", "project"}, after: []string{"project"},
		},
		{
			name: "Claude Code's settings file changed while importClaudeHooks is on",
			setup: func(r *reloadRig) {
				r.write("home/settings.json", `{"importClaudeHooks": true}`)
				r.write("claude/settings.json", r.hookSettings("claudeA", ""))
			},
			change: func(r *reloadRig) { sameSize(r, "claude/settings.json", r.hookSettings("claudeB", "")) },
			before: []string{"claudeA"}, after: []string{"claudeB"},
		},
		{
			name: "a VS Code hook file added while importVSCodeHooks is on", always: true,
			setup: func(r *reloadRig) {
				r.write("home/settings.json", `{"importVSCodeHooks": true}`)
				r.write("project/.github/hooks/a.json", r.vscodeSettings("vscodeA"))
			},
			change: func(r *reloadRig) { r.write("project/.github/hooks/b.json", r.vscodeSettings("vscodeB")) },
			before: []string{"vscodeA"}, after: []string{"vscodeA", "vscodeB"},
		},
		{
			name:   "the managed file changed",
			setup:  func(r *reloadRig) { r.write("managed", r.hookSettings("managedA", "")) },
			change: func(r *reloadRig) { sameSize(r, "managed", r.hookSettings("managedB", "")) },
			before: []string{"managedA"}, after: []string{"managedB"},
		},
		{
			name: "the user settings file is a symlink, retargeted",
			setup: func(r *reloadRig) {
				r.write("home/a.json", r.hookSettings("userA", ""))
				r.write("home/b.json", r.hookSettings("userB", ""))
				require.NoError(r.t, os.Symlink("a.json", r.path("home/settings.json")))
			},
			change: func(r *reloadRig) {
				link := r.path("home/settings.json.new")
				require.NoError(r.t, os.Symlink("b.json", link))
				require.NoError(r.t, os.Rename(link, r.path("home/settings.json")))
			},
			before: []string{"userA"}, after: []string{"userB"},
		},
		{
			name:   "trust granted from another process",
			setup:  func(r *reloadRig) { r.write("project/.wave/settings.json", r.hookSettings("project", "")) },
			change: func(r *reloadRig) { r.trustAsAnotherProcess() },
			before: []string{}, after: []string{"project"},
		},
		{
			name: "trust revoked from another process",
			setup: func(r *reloadRig) {
				r.write("project/.wave/settings.json", r.hookSettings("project", ""))
				r.trustAsAnotherProcess()
			},
			change: func(r *reloadRig) {
				had, err := trust.NewTrustStore(r.home).Revoke(r.root)
				require.NoError(r.t, err)
				require.True(r.t, had)
			},
			before: []string{"project"}, after: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReloadRig(t)
			tc.setup(r)
			r.open(tc.always)
			host.SetRacyMargin(r.ws, 20*time.Millisecond)
			require.Equal(t, tc.before, r.prompt())
			r.settle()
			require.Equal(t, tc.before, r.prompt(), "the hooks in force are kept")

			loads := r.ws.Loads()
			tc.change(r)
			require.Equal(t, tc.after, r.prompt(), "the next prompt runs exactly the new hooks")
			require.Equal(t, loads+1, r.ws.Loads(), "the change was read once")
		})
	}
}

// sameSize rewrites a file in place with text of the same length.
func sameSize(r *reloadRig, rel, text string) {
	p := r.path(rel)
	old, err := os.ReadFile(p)
	require.NoError(r.t, err)
	require.Len(r.t, text, len(old), "the edit keeps the size")
	require.NotEqual(r.t, string(old), text)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(r.t, err)
	_, err = f.WriteAt([]byte(text), 0)
	require.NoError(r.t, err)
	require.NoError(r.t, f.Close())
}

// On a file system of coarse times (a second on HFS+ or ext3), a settings
// file rewritten with the same size right after a load keeps its size and
// times: its stamp cannot tell the two texts apart. The racy rule never
// trusts a stamp that young, so the next prompt reads the file again and
// runs the second text's hook.
func TestSameTickRewriteIsSeen(t *testing.T) {
	r := newReloadRig(t)
	first, second := r.hookSettings("userA", ""), r.hookSettings("userB", "")
	r.write("home/settings.json", first)
	r.open(false)
	host.SetTimeGranularity(r.ws, time.Second)
	p := r.path("home/settings.json")
	coarse := func() int64 { // a write sets the modification and change times together
		fi, err := os.Stat(p)
		require.NoError(t, err)
		return fi.ModTime().Unix()
	}
	for attempt := 0; ; attempt++ {
		require.Less(t, attempt, 20, "the second write never fell within the first's second")
		sameSizeText(t, p, first)
		require.Equal(t, []string{"userA"}, r.prompt())
		was := coarse()
		sameSizeText(t, p, second)
		if coarse() != was {
			continue // a second boundary passed between the writes: try again
		}
		require.Equal(t, []string{"userB"}, r.prompt(), "the rewrite within the same tick is read")
		return
	}
}

// sameSizeText rewrites the file p in place with text (same inode).
func sameSizeText(t *testing.T, p, text string) {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(text), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// Reload, which serve, the trust prompt and a changed script use, always
// reads; so does ReloadIfChanged for a workspace whose settings texts come
// from the editor (Options.Texts), which no stamp covers.
func TestReloadAlwaysReads(t *testing.T) {
	r := newReloadRig(t)
	r.write("home/settings.json", r.hookSettings("user", ""))
	r.open(false)
	host.SetRacyMargin(r.ws, 20*time.Millisecond)
	r.settle()
	before := r.ws.Loads()
	r.ws.Reload()
	r.ws.Reload()
	require.Equal(t, before+2, r.ws.Loads())

	texts := map[string][]byte{filepath.Join(r.home, "settings.json"): []byte(r.hookSettings("texts", ""))}
	ws := open(t, host.Config{WaveHome: r.home}, r.root, host.Options{NoStore: true, Texts: func() map[string][]byte { return texts }})
	host.SetRacyMargin(ws, 0)
	before = ws.Loads()
	for range 3 {
		ws.ReloadIfChanged()
	}
	require.Equal(t, before+3, ws.Loads(), "texts from the editor are read at every reload")
}

// The files the workspace's hooks run are inputs of the trust decision
// (their contents are in the hash): a script changed makes the next prompt
// decide again (untrusted; Check at the event would refuse it anyway), and
// the script put back as it was trusted makes the next prompt trusted
// again, rather than keeping the untrusted decision. The hook gives the
// script to sh on its stdin, a form only the trust reads (the settings'
// own checks look at a script given as an argument).
func TestReloadIfChangedSeesTheScriptsTrustCovers(t *testing.T) {
	r := newReloadRig(t)
	script := fmt.Sprintf("echo script >> '%s'\n", r.log)
	r.write("project/.wave/hook.sh", script)
	r.write("project/.wave/settings.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh < \"${CLAUDE_PROJECT_DIR}/.wave/hook.sh\""}]}]}}`)
	r.trustAsAnotherProcess()
	r.open(false)
	host.SetRacyMargin(r.ws, 20*time.Millisecond)
	r.settle()
	require.Equal(t, []string{"script"}, r.prompt())

	r.write("project/.wave/hook.sh", script+"# changed\n")
	require.Equal(t, []string{}, r.prompt(), "a changed script is not trusted")
	require.False(t, r.ws.Loaded().Trusted)
	r.settle()

	loads := r.ws.Loads()
	r.write("project/.wave/hook.sh", script)
	require.Equal(t, []string{"script"}, r.prompt(), "the script as it was trusted is trusted again")
	require.True(t, r.ws.Loaded().Trusted)
	require.Equal(t, loads+1, r.ws.Loads())
}
