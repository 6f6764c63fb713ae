package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// vscodeGuard is a PreToolUse hook as VS Code's documentation writes them:
// it reads stdin once, records the common fields VS Code sends, and denies
// destructive commands through hookSpecificOutput.
const vscodeGuard = `#!/bin/sh
input=$(cat)
printf '%s' "$input" | jq -c '{sessionId, hookEventName, hasTimestamp: (.timestamp | type == "string"), tool_name, session_id}' > vscode-stdin.json
printf '%s|%s' "$(pwd)" "$AUDIT_LEVEL" > vscode-env.txt
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *"rm -rf"*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: "Destructive command blocked by policy"}}' ;;
esac
`

// vscodeFile is .github/hooks/security.json in VS Code's format: hook
// commands listed under the event, with per-OS commands, cwd and env.
const vscodeFile = `{
  "version": 1,
  "hooks": {
    "PreToolUse": [
      {
        "type": "command",
        "command": "./guard.sh",
        "linux": "./guard.sh",
        "osx": "./guard.sh",
        "windows": "powershell -File scripts\\guard.ps1",
        "cwd": "scripts",
        "env": { "AUDIT_LEVEL": "strict" }
      }
    ]
  }
}`

func TestVSCodeHookFiles(t *testing.T) {
	files := map[string]string{
		"scripts/guard.sh":            vscodeGuard,
		".github/hooks/security.json": vscodeFile,
		"home/settings.json":          `{"importVSCodeHooks": true}`,
	}

	t.Run("not read without importVSCodeHooks", func(t *testing.T) {
		without := map[string]string{}
		for k, v := range files {
			without[k] = v
		}
		delete(without, "home/settings.json")
		l := writeLayout(t, without)
		cfg := settings.Load(l.paths(), nil)
		require.Empty(t, cfg.Hooks)
		require.Empty(t, cfg.Diagnostics())
		for _, f := range cfg.Files {
			require.NotEqual(t, settings.SourceVSCode, f.Source)
		}
	})

	t.Run("run unchanged once trusted", func(t *testing.T) {
		l := writeLayout(t, files)
		cfg := l.load(t)
		require.Len(t, cfg.Hooks, 1)
		h := cfg.Hooks[0]
		require.Equal(t, settings.SourceVSCode, h.Source)
		require.Equal(t, filepath.Join(l.root, ".github", "hooks", "security.json"), h.File)
		require.Equal(t, 30*time.Second, h.Timeout, "VS Code's default timeout")
		require.Equal(t, []string{"AUDIT_LEVEL=strict"}, h.Env)

		e := hooks.NewEngine(cfg)
		in := input(event.PreToolUse, l.root)
		in.ToolInput = json.RawMessage(`{"command":"rm -rf /"}`)
		res := e.Fire(context.Background(), in)
		require.Equal(t, hooks.PermissionNone, res.Permission, "a workspace file waits for trust")
		require.Equal(t, "the workspace's hooks are not trusted yet — run `wavehooks trust` in the project, or trust it in the editor", res.Runs[0].Skipped)
		require.Contains(t, trust.WorkspaceCommands(cfg), "./guard.sh (in scripts, with AUDIT_LEVEL=strict)")

		e.SetWorkspaceTrusted(true)
		res = e.Fire(context.Background(), in)
		require.Equal(t, hooks.PermissionDeny, res.Permission)
		require.Equal(t, "Destructive command blocked by policy", res.Reason)
		b, err := os.ReadFile(filepath.Join(l.root, "scripts", "vscode-stdin.json"))
		require.NoError(t, err)
		require.JSONEq(t, `{"sessionId":"sess_1234abcd","hookEventName":"PreToolUse","hasTimestamp":true,
			"tool_name":"Bash","session_id":"sess_1234abcd"}`, string(b))
		b, err = os.ReadFile(filepath.Join(l.root, "scripts", "vscode-env.txt"))
		require.NoError(t, err)
		real, _ := filepath.EvalSymlinks(filepath.Join(l.root, "scripts"))
		require.Equal(t, real+"|strict", string(b))
		require.NotContains(t, string(res.Stdin), "hookEventName", "the VS Code fields are for VS Code's hooks only")
	})

	t.Run("trust covers the VS Code files", func(t *testing.T) {
		l := writeLayout(t, files)
		before := trust.WorkspaceHash(l.load(t))
		other := `{"hooks": {"PreToolUse": [{"type": "command", "command": "./guard.sh", "cwd": "scripts", "env": {"AUDIT_LEVEL": "lax"}}]}}`
		require.NoError(t, os.WriteFile(filepath.Join(l.root, ".github", "hooks", "security.json"), []byte(other), 0o644))
		require.NotEqual(t, before, trust.WorkspaceHash(l.load(t)), "a changed env must be trusted again")
	})

	t.Run("matcher groups, several files in name order, broken files", func(t *testing.T) {
		l := writeLayout(t, map[string]string{
			"home/settings.json":     `{"importVSCodeHooks": true}`,
			".github/hooks/b.json":   `{"hooks": {"SessionStart": [{"type": "command", "command": "echo from b"}]}}`,
			".github/hooks/a.json":   `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo from a"}]}, {"matcher": "resume", "hooks": [{"type": "command", "command": "echo resumed"}]}]}}`,
			".github/hooks/c.json":   `{"hooks": {"SessionStart": [ broken`,
			".github/hooks/d.json":   `{"disableAllHooks": true, "hooks": {"Stop": [{"type": "command"}]}}`,
			".github/hooks/notes.md": `not a hook file`,
		})
		cfg := settings.Load(l.paths(), nil)
		e := hooks.NewEngine(cfg)
		e.SetWorkspaceTrusted(true)
		res := e.Fire(context.Background(), input(event.SessionStart, l.root))
		require.Equal(t, []string{"from a", "from b"}, res.Context)
		var codes []string
		for _, d := range cfg.Diagnostics() {
			require.Equal(t, filepath.Dir(d.File), filepath.Join(l.root, ".github", "hooks"))
			codes = append(codes, filepath.Base(d.File)+":"+d.Code)
		}
		require.Equal(t, []string{"c.json:syntax", "d.json:empty-command"}, codes)
		require.False(t, cfg.DisableAllHooks, "a VS Code file's settings are not ours")
	})
}
