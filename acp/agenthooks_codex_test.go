//go:build linux

package acp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/agentexport"
	hooksettings "github.com/wavehooks/wavehooks/internal/settings"
)

// A wavehooks PreToolUse hook exported to Codex ($CODEX_HOME/hooks.json,
// agentexport: what `wavehooks hooks export --to codex` writes) is run by
// Codex itself (codex-acp, offline, a scripted model) and refuses the
// command it refuses. Codex runs a hook of hooks.json only once the user
// trusted it (hooks.state in config.toml): the test trusts it as the user
// would, by its hash.
func TestExportThenCodexDecides(t *testing.T) {
	node, entry := codexACP(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("SKIPPED: codex-acp's Linux sandbox needs bubblewrap: " + err.Error())
	}
	fake := startFakeModel(t)
	project, home, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "runs.jsonl")
	guard := filepath.Join(t.TempDir(), "guard.sh")
	require.NoError(t, os.WriteFile(guard, []byte(`#!/bin/sh
input=$(cat)
printf '%s\n' "$input" | jq -c '{hook_event_name, tool_name, command: .tool_input.command}' >> "`+log+`"
case "$(printf '%s' "$input" | jq -r '.tool_input.command // empty')" in
  *DENYME*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "exported guard: DENYME is off limits"}}' ;;
esac
`), 0o755))
	user := hooksettings.ParseFile("/u/.wave/settings.json", hooksettings.SourceUser, []byte(`{"hooks": {"PreToolUse": [{"hooks": [
	  {"type": "command", "command": "sh `+guard+`", "timeout": 30}]}]}}`), "")
	require.Empty(t, user.Diagnostics)
	entries, notes := agentexport.Build("codex", user.Hooks, "/unused")
	require.Empty(t, notes)
	codexDir := codexHome(t, fake.URL())
	hooksFile := filepath.Join(codexDir, "hooks.json")
	require.NoError(t, agentexport.Write(t.TempDir(), agentexport.Target{To: "codex", Path: hooksFile}, entries))

	// Trust it as the user would in Codex (/hooks): the hook's hash, under
	// its key "<hooks.json>:pre_tool_use:<group>:<handler>". Without it
	// Codex does not run the hook, and the DENYME command runs (measured).
	command := "sh " + guard + agentexport.Marker
	identity, err := json.Marshal(map[string]any{"event_name": "pre_tool_use",
		"hooks": []any{map[string]any{"async": false, "command": command, "timeout": 30, "type": "command"}}})
	require.NoError(t, err)
	sum := sha256.Sum256(identity)
	f, err := os.OpenFile(filepath.Join(codexDir, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, "\n[hooks.state.%q]\ntrusted_hash = %q\n", hooksFile+":pre_tool_use:0:0", "sha256:"+hex.EncodeToString(sum[:]))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// The proxy's own bridge hook runs too (before the exported one, as
	// Codex orders them): it must be the real wavehooks, not this test
	// binary, whose failure now blocks (the bridge fails closed).
	bin, err := wavehooksBin()
	require.NoError(t, err)
	r := startRig(t, rigOptions{project: project, opts: func(o *Options) {
		o.HookExe = bin
		o.Agent = []string{node, entry}
		o.AgentDir = project
		o.AgentEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8",
			"CODEX_HOME=" + codexDir, "FAKE_OPENAI_API_KEY=sk-offline", "OPENAI_API_KEY=sk-offline",
			"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1", "HTTPS_PROXY=" + fake.URL(), "HTTP_PROXY=" + fake.URL()}
		o.TrustWorkspace = true
	}})
	r.initialize(map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}, "terminal": true})
	escalated := func(c string) step {
		return use("exec_command", map[string]any{"cmd": c, "sandbox_permissions": "require_escalated", "justification": "needs to write"})
	}
	denied, allowed := filepath.Join(project, "denied.txt"), filepath.Join(project, "allowed.txt")
	for k, c := range map[string]string{"CASE-codexdeny": "echo DENYME > " + denied, "CASE-codexallow": "touch " + allowed} {
		fake.script(k, escalated(c), say("DONE-"+k))
		sess, _ := r.newSession()
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, k+": run it")))
	}
	b, _ := os.ReadFile(log)
	require.NoFileExists(t, denied, "Codex refused the DENYME command (the exported hook's runs: %s)", b)
	require.FileExists(t, allowed, "and ran the other one (the exported hook's runs: %s)", b)
	require.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 2, "Codex ran the exported hook once per call: %s", b)
	require.Contains(t, string(b), `"tool_name":"Bash"`)
	require.Equal(t, 0, r.wait())
}
