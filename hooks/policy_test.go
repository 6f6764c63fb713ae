package hooks_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// marker is a settings file whose one Stop hook leaves a file named after
// it in the project root, plus the extra top-level keys given.
func marker(name, extra string) string {
	cmd := fmt.Sprintf(`jq -r .hook_event_name > \"$WAVE_PROJECT_DIR/ran-%s\"`, name)
	if extra != "" {
		extra = ", " + extra
	}
	return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}` + extra + `}`
}

// ranMarkers lists the hooks that left their file.
func ranMarkers(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "ran-*"))
	require.NoError(t, err)
	out := []string{}
	for _, f := range files {
		out = append(out, strings.TrimPrefix(filepath.Base(f), "ran-"))
	}
	sort.Strings(out)
	return out
}

func TestPolicy(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		trusted bool
		ran     []string
		// skipped maps a hook's marker to a part of why it did not run.
		skipped map[string]string
		// ignored lists the files (as in files) that get a hooks-ignored diagnostic.
		ignored []string
	}{{
		name: "managed hooks run beside every other source",
		files: map[string]string{"managed": marker("managed", ""), "home/settings.json": marker("user", ""),
			".wave/settings.json": marker("project", ""), ".wave/settings.local.json": marker("local", "")},
		trusted: true,
		ran:     []string{"local", "managed", "project", "user"},
	}, {
		name:    "managed hooks need no workspace trust",
		files:   map[string]string{"managed": marker("managed", ""), ".wave/settings.json": marker("project", "")},
		ran:     []string{"managed"},
		skipped: map[string]string{"project": "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor"},
	}, {
		name: "disableAllHooks in user settings turns off all but managed hooks",
		files: map[string]string{"managed": marker("managed", ""), "home/settings.json": marker("user", `"disableAllHooks": true`),
			".wave/settings.json": marker("project", "")},
		trusted: true,
		ran:     []string{"managed"},
		skipped: map[string]string{"user": "disableAllHooks is set in the user settings ", "project": "only managed hooks run"},
		ignored: []string{"home/settings.json", ".wave/settings.json"},
	}, {
		name: "disableAllHooks in project settings turns off all but managed hooks",
		files: map[string]string{"managed": marker("managed", ""), "home/settings.json": marker("user", ""),
			".wave/settings.json": marker("project", `"disableAllHooks": true`)},
		trusted: true,
		ran:     []string{"managed"},
		skipped: map[string]string{"user": "disableAllHooks is set in the project settings "},
		ignored: []string{"home/settings.json", ".wave/settings.json"},
	}, {
		name: "disableAllHooks in local settings turns off all but managed hooks",
		files: map[string]string{"managed": marker("managed", ""), "home/settings.json": marker("user", ""),
			".wave/settings.local.json": `{"disableAllHooks": true}`},
		trusted: true,
		ran:     []string{"managed"},
		skipped: map[string]string{"user": "disableAllHooks is set in the local settings "},
		ignored: []string{"home/settings.json"},
	}, {
		name: "an imported Claude Code file cannot disable managed hooks either",
		files: map[string]string{"managed": marker("managed", ""), "home/settings.json": marker("user", `"importClaudeHooks": true`),
			".claude/settings.json": `{"disableAllHooks": true}`},
		trusted: true,
		ran:     []string{"managed"},
		skipped: map[string]string{"user": "disableAllHooks is set in the claude-project settings "},
		ignored: []string{"home/settings.json"},
	}, {
		name: "allowManagedHooksOnly ignores every other source",
		files: map[string]string{"managed": marker("managed", `"allowManagedHooksOnly": true`),
			"home/settings.json": marker("user", `"importVSCodeHooks": true`), ".wave/settings.json": marker("project", ""),
			".github/hooks/vscode.json": `{"hooks": {"Stop": [{"type": "command", "command": "touch \"$WAVE_PROJECT_DIR/ran-vscode\""}]}}`},
		trusted: true,
		ran:     []string{"managed"},
		skipped: map[string]string{"user": "allowManagedHooksOnly is set in the managed settings ", "project": "only managed hooks run, project hooks are ignored",
			"vscode": "vscode hooks are ignored"},
		ignored: []string{"home/settings.json", ".wave/settings.json", ".github/hooks/vscode.json"},
	}, {
		name: "allowManagedHooksOnly outside the managed file changes nothing",
		files: map[string]string{"home/settings.json": marker("user", `"allowManagedHooksOnly": true`),
			".wave/settings.json": marker("project", "")},
		trusted: true,
		ran:     []string{"project", "user"},
	}, {
		name:    "disableAllHooks in the managed file turns off every hook",
		files:   map[string]string{"managed": marker("managed", `"disableAllHooks": true`), "home/settings.json": marker("user", "")},
		trusted: true,
		ran:     []string{},
		skipped: map[string]string{"managed": "disableAllHooks is set in the managed settings", "user": "disableAllHooks is set in the managed settings"},
		ignored: []string{"home/settings.json", "managed"},
	}, {
		name:    "no managed file: the other sources as usual",
		files:   map[string]string{"home/settings.json": marker("user", "")},
		trusted: true,
		ran:     []string{"user"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, c.files)
			cfg := settings.Load(l.paths(), nil)
			e := hooks.NewEngine(cfg)
			e.SetWorkspaceTrusted(c.trusted)
			res := e.Fire(context.Background(), input(event.Stop, l.root))
			require.Empty(t, res.Errors)
			require.Equal(t, c.ran, ranMarkers(t, l.root))
			checked := 0
			for _, r := range res.Runs {
				name := r.Command[strings.Index(r.Command, "ran-")+4:]
				name = strings.Trim(name, `"\`)
				if want, ok := c.skipped[name]; ok {
					require.Contains(t, r.Skipped, want, "hook %s", name)
					require.False(t, r.Ran)
					checked++
				}
				if r.Source == settings.SourceManaged {
					require.Equal(t, l.managed, r.File)
				}
			}
			require.Equal(t, len(c.skipped), checked)
			var ignored []string
			for _, d := range cfg.Diagnostics() {
				require.NotEqual(t, settings.SeverityError, d.Severity, "%s", d)
				if d.Code == settings.CodeHooksIgnored {
					require.Equal(t, settings.SeverityInfo, d.Severity)
					for name := range c.files {
						if l.path(name) == d.File {
							ignored = append(ignored, name)
						}
					}
				}
			}
			sort.Strings(ignored)
			want := append([]string(nil), c.ignored...)
			sort.Strings(want)
			require.Equal(t, want, ignored)
		})
	}
}

func TestPolicyIsExplained(t *testing.T) {
	l := writeLayout(t, map[string]string{"managed": marker("managed", `"allowManagedHooksOnly": true`),
		"home/settings.json": marker("user", "")})
	cfg := settings.Load(l.paths(), nil)
	diags := cfg.Diagnostics()
	require.Len(t, diags, 2)
	require.Equal(t, settings.CodeManagedHook, diags[1].Code, "the managed hook is marked as such")
	require.Equal(t, l.managed, diags[1].File)
	require.Equal(t, filepath.Join(l.home, "settings.json"), diags[0].File)
	require.Equal(t, "the hooks of this user settings file do not run: allowManagedHooksOnly is set in the managed settings "+
		l.managed+": only managed hooks run, user hooks are ignored", diags[0].Message)
	require.Equal(t, settings.Range{Start: settings.Position{Line: 0, Column: 1}, End: settings.Position{Line: 0, Column: 8}}, diags[0].Range,
		"on the file's \"hooks\" key")

	res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.Stop, l.root))
	require.Equal(t, settings.SourceUser, res.Runs[0].Source)
	require.Equal(t, settings.SourceManaged, res.Runs[1].Source)
	text := hooks.Explain(hooks.NewEventRun("s", "", &res))
	require.Contains(t, text, "from user settings "+filepath.Join(l.home, "settings.json"))
	require.Contains(t, text, "did not run: allowManagedHooksOnly is set in the managed settings "+l.managed)
	require.Contains(t, text, "from managed settings "+l.managed)
	b, err := res.Runs[1].Source.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "managed", string(b))
	require.Equal(t, "vscode", settings.SourceVSCode.String())
}

func TestManagedHooksNeedNoTrustPrompt(t *testing.T) {
	l := writeLayout(t, map[string]string{"managed": marker("managed", ""), ".wave/settings.json": marker("project", `"disableAllHooks": true`)})
	cfg := settings.Load(l.paths(), nil)
	require.Empty(t, trust.WorkspaceCommands(cfg), "disabled workspace hooks need no trust")
	l = writeLayout(t, map[string]string{"managed": marker("managed", ""), ".wave/settings.json": marker("project", "")})
	cfg = settings.Load(l.paths(), nil)
	require.Len(t, trust.WorkspaceCommands(cfg), 1, "only the project's hook is the workspace's")
}

func TestDefaultManagedFile(t *testing.T) {
	t.Setenv("WAVE_MANAGED_SETTINGS", "")
	require.Equal(t, "/etc/wave/managed-settings.json", settings.DefaultManagedFile())
	t.Setenv("WAVE_MANAGED_SETTINGS", "/tmp/policy.json")
	require.Equal(t, "/tmp/policy.json", settings.DefaultManagedFile())
	// A missing managed file is no problem.
	cfg := settings.Load(settings.Paths{WaveHome: t.TempDir(), ManagedFile: filepath.Join(t.TempDir(), "none.json")}, nil)
	require.Empty(t, cfg.Diagnostics())
}
