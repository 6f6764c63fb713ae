package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cli is the wavehooks binary, built for the test, and the environment it
// runs in: a HOME and a managed settings path of its own, so that the
// machine's ~/.claude and /etc/wave are never read.
type cli struct {
	t   *testing.T
	bin string
	env []string
}

// buildCLI uses the binary cli_test.go builds once per test run (go build):
// building it again would only cost time.
func buildCLI(t *testing.T) *cli {
	t.Helper()
	return &cli{t: t, bin: e2eBinary(t), env: append(os.Environ(), "HOME="+t.TempDir(),
		"WAVE_MANAGED_SETTINGS="+filepath.Join(t.TempDir(), "none.json"))}
}

// run runs `wavehooks run EVENT` on a project and decodes what it prints.
func (c *cli) run(event, project, home, stdin string, extraEnv ...string) (map[string]any, string) {
	c.t.Helper()
	cmd := exec.Command(c.bin, "run", event, "--project", project, "--wave-home", home, "--trust-workspace")
	cmd.Env = append(c.env[:len(c.env):len(c.env)], extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(c.t, cmd.Run(), "wavehooks run %s: %s", event, stderr.String())
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
	return out, stderr.String()
}

// copyTree copies testdata/parity/<name> into a fresh project directory.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	src, dst := filepath.Join("..", "..", "testdata", "parity", name), t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	require.NoError(t, err)
	return dst
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// subset checks that every key of want has that value in got.
func subset(t *testing.T, want, got map[string]any) {
	t.Helper()
	for k, v := range want {
		require.Equal(t, mustJSON(v), mustJSON(got[k]), "field %s of %s", k, mustJSON(got))
	}
}

// TestRun runs the built binary: hook files written in Claude Code's and
// VS Code's documented formats run unchanged, policy applies, async hooks do
// not hold up the answer, and exec-form arguments arrive as written.
func TestRun(t *testing.T) {
	c := buildCLI(t)

	t.Run("Claude Code hook files, one event each", func(t *testing.T) {
		project, home := copyTree(t, "claude"), t.TempDir()
		writeFile(t, filepath.Join(project, ".wave", "settings.json"), `{"importClaudeHooks": true}`)
		writeFile(t, filepath.Join(project, "NOTES.unsaved"), "draft")
		common := `"session_id": "sess_cc0001", "transcript_path": "/tmp/t.jsonl", `
		cases := []struct {
			event, input string
			want         map[string]any
			blocks       string // a part of the JSON of the result's blocks
		}{
			{"PreToolUse", `{` + common + `"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_1"}`,
				map[string]any{"permission": "deny", "reason": "Blocked: 'rm -rf build' deletes recursively", "continue": true},
				`"error":"Hook blocked tool execution"`},
			{"PermissionRequest", `{` + common + `"tool_name": "Bash", "tool_input": {"command": "npm test"}, "permission_suggestions": []}`,
				map[string]any{"permission": "allow", "toolInput": map[string]any{"command": "npm test -- --ci"}}, ""},
			{"PostToolUse", `{` + common + `"tool_name": "Write", "tool_input": {"file_path": "/p/a.go", "content": "// TODO"}, "tool_use_id": "t", "tool_response": {"success": true}}`,
				map[string]any{"blocked": true, "reason": "/p/a.go still has a TODO; finish it"}, `"content":"/p/a.go still has a TODO; finish it"`},
			{"PostToolUseFailure", `{` + common + `"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "t", "error": "exit status 2", "is_interrupt": false}`,
				map[string]any{"additionalContext": []string{"The command failed (exit status 2). Run make deps first."}}, `"hookEvent":"PostToolUseFailure"`},
			{"UserPromptSubmit", `{` + common + `"prompt": "fix the parser"}`,
				map[string]any{"blocked": false, "additionalContext": []string{"Current sprint: parser rewrite."}}, ""},
			{"Stop", `{` + common + `"stop_hook_active": false}`,
				map[string]any{"blocked": true, "reason": "Run the tests before you stop."}, ""},
			{"SubagentStart", `{` + common + `"agent_id": "agent_7", "agent_type": "Explore"}`,
				map[string]any{"additionalContext": []string{"You are agent_7: read files, change nothing."}, "blocks": []any{}}, ""},
			{"SubagentStop", `{` + common + `"agent_id": "agent_7", "agent_type": "Explore", "stop_hook_active": false}`,
				map[string]any{"blocked": true, "reason": "List the files you read before you stop.", "blocks": []any{}}, ""},
			{"SessionStart", `{` + common + `"source": "startup"}`,
				map[string]any{"sessionId": "sess_cc0001", "additionalContext": []string{"Session startup on branch main; tests run with make test."}}, ""},
			{"SessionEnd", `{` + common + `"reason": "logout"}`, map[string]any{}, `"content":"cleanup after logout failed: no network"`},
			{"PreCompact", `{` + common + `"trigger": "auto", "custom_instructions": ""}`,
				map[string]any{"blocked": true, "reason": "auto compaction blocked: save NOTES.unsaved first"}, `"type":"error"`},
			{"PostCompact", `{` + common + `"trigger": "manual", "compact_summary": "parser work"}`,
				map[string]any{"blocked": false}, `"content":"Compacted (manual); summary kept: parser work"`},
			{"Notification", `{` + common + `"message": "Claude needs your permission to use Bash", "title": "Permission needed", "notification_type": "permission_prompt"}`,
				map[string]any{"blocks": []any{}}, ""},
		}
		for _, tc := range cases {
			t.Run(tc.event, func(t *testing.T) {
				out, stderr := c.run(tc.event, project, home, tc.input)
				require.Empty(t, stderr, "no configuration problems")
				subset(t, tc.want, out)
				if tc.blocks != "" {
					require.Contains(t, mustJSON(out["blocks"]), tc.blocks)
				}
			})
		}
		log, err := os.ReadFile(filepath.Join(project, "notifications.log"))
		require.NoError(t, err)
		require.Equal(t, "permission_prompt: Permission needed: Claude needs your permission to use Bash\n", string(log))
	})

	t.Run("VS Code hook files, one event each", func(t *testing.T) {
		project, home := copyTree(t, "vscode"), t.TempDir()
		writeFile(t, filepath.Join(project, ".wave", "settings.json"), `{"importVSCodeHooks": true}`)
		common := `"session_id": "sess_vs0001", "transcript_path": "/tmp/t.json", `
		cases := []struct {
			event, input string
			want         map[string]any
		}{
			{"SessionStart", `{` + common + `"source": "startup"}`,
				map[string]any{"additionalContext": []string{"Session sess_vs0001 for team parsers (hook ran in scripts/)"}}},
			{"UserPromptSubmit", `{` + common + `"prompt": "hi"}`, map[string]any{"blocked": false}},
			{"PreToolUse", `{` + common + `"tool_name": "run_in_terminal", "tool_input": {"command": "psql -c 'DROP TABLE users'"}, "tool_use_id": "t1"}`,
				map[string]any{"permission": "deny", "reason": "Destructive command blocked by policy"}},
			{"PostToolUse", `{` + common + `"tool_name": "create_file", "tool_input": {"file_path": "src/a.ts"}, "tool_use_id": "t2", "tool_response": "ok"}`,
				map[string]any{"additionalContext": []string{"Formatted src/a.ts"}}},
			{"PreCompact", `{` + common + `"trigger": "auto"}`, map[string]any{"blocked": false}},
			{"SubagentStart", `{` + common + `"agent_id": "a", "agent_type": "Plan"}`, map[string]any{"additionalContext": []string{"Only read files."}}},
			{"SubagentStop", `{` + common + `"agent_id": "a", "agent_type": "Plan", "stop_hook_active": false}`,
				map[string]any{"blocked": true, "reason": "Summarise your findings first."}},
			{"Stop", `{` + common + `"stop_hook_active": true}`, map[string]any{"blocked": false}},
		}
		for _, tc := range cases {
			t.Run(tc.event, func(t *testing.T) {
				out, stderr := c.run(tc.event, project, home, tc.input)
				require.Empty(t, stderr)
				subset(t, tc.want, out)
			})
		}
		audit, err := os.ReadFile(filepath.Join(project, "audit.log"))
		require.NoError(t, err)
		require.Equal(t, `{"timestamp":"string","hookEventName":"UserPromptSubmit","sessionId":"sess_vs0001"}`+"\n"+
			`{"timestamp":"string","hookEventName":"PreCompact","sessionId":"sess_vs0001"}`+"\n", string(audit))

		// Without --trust-workspace and without stored trust, the workspace's VS Code hooks wait.
		cmd := exec.Command(c.bin, "run", "PreToolUse", "--project", project, "--wave-home", home)
		cmd.Env = c.env
		cmd.Stdin = strings.NewReader(`{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "t"}`)
		b, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(b), `"permission": "allow"`)
		require.Contains(t, string(b), "not trusted")
	})

	t.Run("managed settings", func(t *testing.T) {
		project, home := t.TempDir(), t.TempDir()
		managed := filepath.Join(t.TempDir(), "managed-settings.json")
		writeFile(t, managed, `{"allowManagedHooksOnly": true, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "jq -r .tool_input.command | grep -q curl && { echo 'no network from the agent' >&2; exit 2; }; exit 0"}]}]}}`)
		writeFile(t, filepath.Join(home, "settings.json"), `{"hooks": {"PreToolUse": [{"hooks": [
			{"type": "command", "command": "jq -n '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"allow\"}}'"}]}]}}`)
		input := `{"tool_name": "Bash", "tool_input": {"command": "curl example.com"}, "tool_use_id": "t"}`
		out, stderr := c.run("PreToolUse", project, home, input, "WAVE_MANAGED_SETTINGS="+managed)
		require.Equal(t, "deny", out["permission"])
		require.Equal(t, "no network from the agent", out["reason"])
		require.Contains(t, stderr, "the hooks of this user settings file do not run: allowManagedHooksOnly is set in the managed settings "+managed)

		cmd := exec.Command(c.bin, "run", "PreToolUse", "--project", project, "--wave-home", home, "--explain")
		cmd.Env = append(c.env, "WAVE_MANAGED_SETTINGS="+managed)
		cmd.Stdin = strings.NewReader(input)
		b, err := cmd.Output()
		require.NoError(t, err)
		require.Contains(t, string(b), "from managed settings "+managed)
		require.Contains(t, string(b), "did not run: allowManagedHooksOnly is set in the managed settings")
	})

	t.Run("exec-form args arrive as written", func(t *testing.T) {
		project, home := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [
			{"type": "command", "command": "printf", "args": ["%s|", "a b", "$HOME", ";", "$(touch pwned)"]}]}]}}`)
		out, _ := c.run("UserPromptSubmit", project, home, `{"prompt": "x"}`)
		require.Equal(t, []any{"a b|$HOME|;|$(touch pwned)|"}, out["additionalContext"])
		require.NoFileExists(t, filepath.Join(project, "pwned"))
	})

	t.Run("async hooks do not hold up the answer", func(t *testing.T) {
		project, home := t.TempDir(), t.TempDir()
		gate := filepath.Join(project, "gate")
		require.NoError(t, mkfifo(gate))
		writeFile(t, filepath.Join(home, "settings.json"), `{"hooks": {"Stop": [{"hooks": [
			{"type": "command", "command": "cat >/dev/null; cat \"$WAVE_PROJECT_DIR/gate\" >/dev/null; touch \"$WAVE_PROJECT_DIR/async-done\"; exit 2", "async": true},
			{"type": "command", "command": "cat >/dev/null; echo 'keep going' >&2; exit 2"}]}]}}`)
		cmd := exec.Command(c.bin, "run", "Stop", "--project", project, "--wave-home", home)
		cmd.Env = c.env
		cmd.Stdin = strings.NewReader(`{"session_id": "s"}`)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		// The whole answer arrives, and stdout is closed, while the async hook waits at its gate.
		b, err := io.ReadAll(stdout)
		require.NoError(t, err)
		require.NoFileExists(t, filepath.Join(project, "async-done"))
		var out map[string]any
		require.NoError(t, json.Unmarshal(b, &out))
		require.Equal(t, true, out["blocked"])
		require.Equal(t, "keep going", out["reason"], "only the foreground hook decides")
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
			t.Fatal("wavehooks run must wait for its async hook")
		default:
		}
		// Open the gate once the hook waits at it (a non-blocking open fails until then).
		require.Eventually(t, func() bool {
			f, err := os.OpenFile(gate, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return false
			}
			return f.Close() == nil
		}, 20*time.Second, 10*time.Millisecond, "the async hook never opened its gate")
		select {
		case err := <-exited:
			require.NoError(t, err)
		case <-time.After(20 * time.Second):
			t.Fatal("wavehooks run did not end after its async hook")
		}
		require.FileExists(t, filepath.Join(project, "async-done"))
	})
}

// `wavehooks run` applies the hooks' answer in memory: it writes no session
// store, no temporary directory and nothing in the wave home but the
// decision's record in the audit log, and prints the blocks the server
// would add, denial included.
func TestRunWritesNothing(t *testing.T) {
	c := buildCLI(t)
	project, home, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(project, ".wave", "settings.json"), `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no recursive deletes' >&2; exit 2; }; exit 0"}]}]}}`)
	out, _ := c.run("PreToolUse", project, home, `{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}`, "TMPDIR="+tmp)
	require.Equal(t, "deny", out["permission"])
	require.Equal(t, "no recursive deletes", out["reason"])
	require.Contains(t, mustJSON(out["blocks"]), `"type":"tool"`, "the tool block the server would add")
	require.NotContains(t, mustJSON(out), "toolu_", "the stand-in tool id is not printed")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries, "%s stays empty", tmp)
	entries, err = os.ReadDir(home)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the audit log")
	require.Equal(t, "audit", entries[0].Name())
}

// `wavehooks run` refuses a tool call the server would refuse, with the
// same message, before any hook runs.
func TestRunRefusesWhatTheServerRefuses(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/ran\""}]}]}}`)
	out, stderr, code := env.run(t, `{"tool_input": {"command": "ls"}}`, "run", "PreToolUse", "--project", env.project)
	require.Equal(t, 2, code, out)
	require.Equal(t, "wavehooks run: input.tool_name: is required\n", stderr)
	require.NoFileExists(t, filepath.Join(env.project, "ran"), "no hook ran")
}
