package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/fakemodel"
)

// geminiCLI is the Gemini CLI that testdata/gemini/install.sh installs, or
// $WAVEHOOKS_GEMINI_CLI.
func geminiCLI(t *testing.T) (node, entry string) {
	return installedAgent(t, "Gemini CLI", "WAVEHOOKS_GEMINI_CLI", "gemini",
		filepath.Join("gemini-cli", "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"))
}

// installedAgent is the node entry point of a real ACP agent: $envVar, or
// the one acp/testdata/<script>/install.sh installed under .cache
// (cached: its path under .cache). The test says SKIPPED, never passes,
// when it or node is missing.
func installedAgent(t *testing.T, name, envVar, script, cached string) (node, entry string) {
	t.Helper()
	entry = os.Getenv(envVar)
	if entry == "" {
		entry = filepath.Join("..", ".cache", cached)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("SKIPPED: %s is not installed (sh acp/testdata/%s/install.sh installs it): %v", name, script, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("SKIPPED: %s needs node: %v", name, err)
	}
	entry, err = filepath.Abs(entry)
	require.NoError(t, err)
	return node, entry
}

// geminiTurn is one scripted model answer, as Gemini CLI's
// --fake-responses-non-strict reads it.
func geminiTurn(parts ...map[string]any) string { return fakemodel.GeminiTurn(parts...) }

func geminiText(s string) map[string]any { return map[string]any{"text": s} }

func geminiWrite(path, content string) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": "write_file", "args": map[string]string{"file_path": path, "content": content}}}
}

// Gemini CLI, an ACP agent nobody here wrote, runs offline with a scripted
// model behind the proxy: a PreToolUse deny stops its write_file, an allow
// lets it through, and a prompt a UserPromptSubmit hook blocks never reaches it.
// (Gemini CLI's own tool hooks do not fire in its ACP mode; these do.)
func TestGeminiCLI(t *testing.T) {
	node, entry := geminiCLI(t)
	home, tmp, project := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".gemini"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(fakemodel.GeminiSettings), 0o600))
	allowed, denied := filepath.Join(project, "allowed.txt"), filepath.Join(project, "denied.txt")
	fake := filepath.Join(t.TempDir(), "model.jsonl")
	require.NoError(t, os.WriteFile(fake, []byte(
		geminiTurn(geminiText("Writing the first file."), geminiWrite(allowed, "allowed\n"))+
			geminiTurn(geminiText("DONE-ONE"))+
			geminiTurn(geminiText("Writing the second file."), geminiWrite(denied, "denied\n"))+
			geminiTurn(geminiText("DONE-TWO"))+
			geminiTurn(geminiText("AFTER-BLOCK"))), 0o600))

	dir := t.TempDir()
	pre := hook(t, dir, "pre.sh", `jq 'if (.tool_input.file_path | test("denied")) then
	    {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "denied files are off limits"}}
	  else {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow"}} end'`)
	gate := hook(t, dir, "gate.sh", `jq -e '.prompt | test("SECRET")' >/dev/null && { echo "no secrets" >&2; exit 2; }; exit 0`)
	r := startRig(t, rigOptions{
		project:  project,
		settings: settings([3]string{"PreToolUse", "Write", pre}, [3]string{"UserPromptSubmit", "", gate}),
		opts: func(o *Options) {
			o.Agent = []string{node, entry, "--acp", "--fake-responses-non-strict", fake}
			o.AgentDir = project
			o.AgentEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_HOME=" + home, "TMPDIR=" + tmp,
				"GEMINI_API_KEY=offline-test-key", "NO_COLOR=1"}
		},
	})
	// No fs capability: Gemini CLI then writes files itself, after the permission request.
	sess := r.handshakeWith(map[string]any{})

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "PROMPT-ONE: write allowed.txt")))
	require.Equal(t, "allowed\n", readFile(t, allowed), "the allowed write_file ran")
	require.Contains(t, r.chunkTexts(), "DONE-ONE")

	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "PROMPT-TWO: write denied.txt")))
	_, err := os.Stat(denied)
	require.True(t, os.IsNotExist(err), "the denied write_file did not run")
	require.Contains(t, r.chunkTexts(), "DONE-TWO")
	require.Empty(t, r.noted(methodRequestPermission), "the hooks decided both; the editor was never asked")
	var failed []string
	for _, u := range append(r.updates("tool_call"), r.updates("tool_call_update")...) {
		if u["status"] == "failed" {
			failed = append(failed, mustJSON(u["content"]))
		}
	}
	require.Len(t, failed, 1)
	require.Contains(t, failed[0], "Denied by a PreToolUse hook: denied files are off limits")

	require.Equal(t, "refusal", stopReason(t, r.prompt(sess, "SECRET-MARKER: the key is 1234")))
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "PROMPT-FOUR: say something")))
	require.Contains(t, r.chunkTexts(), "AFTER-BLOCK",
		"the model's next scripted answer went to the prompt after the blocked one: Gemini never saw the blocked prompt")

	tools := blocksOf(r.transcript(sess), "tool")
	require.Len(t, tools, 2)
	require.Equal(t, "Write", tools[0]["name"])
	require.Equal(t, true, tools[0]["success"])
	require.Equal(t, "Hook blocked tool execution", tools[1]["error"])

	require.Equal(t, 0, r.wait())
	// Gemini CLI records every prompt it gets in its chat log under HOME:
	// the prompts around the blocked one are there, the blocked one nowhere.
	require.NotEmpty(t, grepTree(t, home, "PROMPT-FOUR"), "Gemini CLI's chat log holds the prompts it got")
	require.Empty(t, grepTree(t, home, "SECRET-MARKER"))
	// Gemini's model read only Gemini's own refusal of the denied
	// write_file; the next prompt it got (the one after the blocked one)
	// told it why (issue #26 item 6).
	note := "[wavehooks] The tool call Write (" // the tool's title follows
	require.NotEmpty(t, grepTree(t, home, note), "Gemini's chat log holds the proxy's note")
	for _, f := range grepTree(t, home, note) {
		require.Contains(t, readFile(t, f), "was not run: Denied by a PreToolUse hook: denied files are off limits")
	}
	require.Empty(t, grepTree(t, tmp, "SECRET-MARKER"))
	require.NotContains(t, r.stderr.String(), "SECRET-MARKER")
}

// grepTree lists the files under dir that contain s.
func grepTree(t *testing.T, dir, s string) []string {
	var out []string
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), s) {
				out = append(out, path)
			}
		}
		return nil
	})
	return out
}
