package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hookTestSettings are the user's hooks the cases below test: real sh
// scripts reading stdin with jq.
const hookTestSettings = `{"hooks": {
  "PreToolUse": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]},
    {"matcher": "Write", "hooks": [{"type": "command", "command": "jq '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"allow\", updatedInput: (.tool_input + {content: (.tool_input.content | ascii_upcase)})}}' # upcase"}]}
  ],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$SCRIPTS/prompt-context.sh"}]}]
}}`

// writeCases writes case files into a new directory and returns it.
func writeCases(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func TestHookTestCases(t *testing.T) {
	env := newCLIEnv(t, hookTestSettings)
	rm := `"event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}`
	write := `"event": "PreToolUse", "input": {"tool_name": "Write", "tool_input": {"file_path": "/p/a.txt", "content": "hi"}}`
	for _, tc := range []struct {
		name, cases string
		code        int
		lines       []string // the output, line by line
	}{
		{"deny with a substring reason", `{"name": "rm", ` + rm + `, "expect": {"permission": "deny", "reason": "recursive delete"}}`,
			0, []string{"PASS rm", "1 passed, 0 failed"}},
		{"a wrong permission fails and says what came", `{"name": "rm", ` + rm + `, "expect": {"permission": "allow"}}`,
			1, []string{"FAIL rm: expected permission allow, got deny", "0 passed, 1 failed"}},
		{"a regex reason", `[{"name": "re", ` + rm + `, "expect": {"reason": "/^Refusing to run 'rm -rf [a-z]+'/"}},
		  {"name": "re no", ` + rm + `, "expect": {"reason": "/^rm/"}}]`,
			1, []string{"PASS re", `FAIL re no: expected a reason matching "/^rm/", got "Refusing to run 'rm -rf build': recursive delete is blocked by policy"`, "1 passed, 1 failed"}},
		{"updatedInput equals as JSON, key order aside", `{"up": {` + write + `, "expect": {"permission": "allow", "updatedInput": {"content": "HI", "file_path": "/p/a.txt"}}},
		  "up wrong": {` + write + `, "expect": {"updatedInput": {"file_path": "/p/a.txt", "content": "hi"}}},
		  "no rewrite": {` + rm + `, "expect": {"updatedInput": null}}}`,
			1, []string{"PASS up", `FAIL up wrong: expected updatedInput {"file_path":"/p/a.txt","content":"hi"}, got {"file_path":"/p/a.txt","content":"HI"}`, "PASS no rewrite", "2 passed, 1 failed"}},
		{"ran and not ran", `{"r": {` + write + `, "expect": {"ran": "# upcase", "notRan": "deny-rm.sh"}},
		  "r wrong": {` + write + `, "expect": {"ran": "deny-rm.sh"}}}`,
			1, []string{"PASS r", `FAIL r wrong: expected a hook "deny-rm.sh" to run, got ran ["jq '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"allow\", updatedInput: (.tool_input + {content: (.tool_input.content | ascii_upcase)})}}' # upcase"]`, "1 passed, 1 failed"}},
		{"context contains, and blocked", `{"name": "ctx", "event": "UserPromptSubmit", "input": {"prompt": "hello"}, "expect": {"blocked": false, "context": ["tabs for Go", "(prompt had 5 characters)"]}}`,
			0, []string{"PASS ctx", "1 passed, 0 failed"}},
		{"a name is escaped", `{"name": "evil\u001b]52;c;eA==\u0007", ` + rm + `, "expect": {"permission": "deny"}}`,
			0, []string{`PASS evil\u001b]52;c;eA==\u0007`, "1 passed, 0 failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCases(t, map[string]string{"a.test.json": tc.cases})
			out, stderr, code := env.run(t, "", "test", dir)
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
			require.Equal(t, tc.lines, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
		})
	}
}

// A bad case file is exit 2, with where the problem is.
func TestHookTestBadCaseFile(t *testing.T) {
	env := newCLIEnv(t, hookTestSettings)
	for _, tc := range []struct {
		name, text, want string
	}{
		{"syntax", "{\"event\": \"Stop\",\n  \"expect\": {\"blocked\": true},}}", "a.test.jsonc:2:32: invalid JSON"},
		{"unknown event", "// a comment\n{\"event\": \"Nope\", \"expect\": {\"blocked\": true}}", `a.test.jsonc:2:11: case "a": unknown event "Nope"`},
		{"unknown field", "[{\"event\": \"Stop\", \"expect\": {\"blocked\": true}},\n {\"event\": \"Stop\", \"expct\": {}}]", `a.test.jsonc:2:2: case "a#2": unknown field "expct"`},
		{"nothing checked", `{"event": "Stop", "expect": {}}`, `a.test.jsonc:1:29: case "a": expect checks nothing`},
		{"bad regex", `{"event": "Stop", "expect": {"reason": "/(/"}}`, `a.test.jsonc:1:40: case "a": expect.reason: bad regular expression`},
		{"bad input", `{"event": "PreToolUse", "input": {"tool_name": 3}, "expect": {"blocked": true}}`, `a.test.jsonc:1:1: case "a": input: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCases(t, map[string]string{"a.test.jsonc": tc.text})
			out, stderr, code := env.run(t, "", "test", dir)
			require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
			require.Contains(t, stderr, filepath.Join(dir, tc.want))
			require.Empty(t, out, "no case runs when a case file is bad")
		})
	}
}

// A workspace's own hooks run in a test only when it is trusted, and the
// output says which.
func TestHookTestWorkspaceTrust(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	require.NoError(t, os.MkdirAll(filepath.Join(env.project, ".wave"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(env.project, ".wave", "settings.json"), []byte(strings.ReplaceAll(
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$SCRIPTS/deny-rm.sh"}]}]}}`,
		"$SCRIPTS", scriptsDir)), 0o644))
	dir := writeCases(t, map[string]string{"t.test.json": `{"name": "workspace guard", "event": "PreToolUse",
		"input": {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}, "expect": {"permission": "deny", "ran": "deny-rm.sh"}}`})
	out, _, code := env.run(t, "", "test", dir)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "workspace hooks of "+env.project+" skipped as untrusted: 1 hook(s) did not run (--trust-workspace runs them)\n")
	require.Contains(t, out, "FAIL workspace guard: expected permission deny, got none")

	out, _, code = env.run(t, "", "test", dir, "--trust-workspace")
	require.Equal(t, 0, code, out)
	require.Equal(t, "workspace hooks trusted for this run (--trust-workspace)\nPASS workspace guard\n1 passed, 0 failed\n", out)
}

func TestHookTestFormats(t *testing.T) {
	env := newCLIEnv(t, hookTestSettings)
	rm := `"event": "PreToolUse", "input": {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}`
	dir := writeCases(t, map[string]string{
		"a.test.json": `{"pass": {` + rm + `, "expect": {"permission": "deny"}}, "fail <&>": {` + rm + `, "expect": {"permission": "ask"}}}`,
		"b.test.json": `{"name": "b", ` + rm + `, "expect": {"blocked": false}}`,
	})

	out, stderr, code := env.run(t, "", "test", "--format", "json", dir)
	require.Equal(t, 1, code, stderr)
	var rep struct {
		Cases []struct {
			Name     string   `json:"name"`
			File     string   `json:"file"`
			Line     int      `json:"line"`
			Passed   bool     `json:"passed"`
			Failures []string `json:"failures"`
			Got      struct {
				Permission string `json:"permission"`
			} `json:"got"`
		} `json:"cases"`
		Passed, Failed int
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Equal(t, 2, rep.Passed)
	require.Equal(t, 1, rep.Failed)
	require.Len(t, rep.Cases, 3)
	require.Equal(t, "fail <&>", rep.Cases[1].Name)
	require.False(t, rep.Cases[1].Passed)
	require.Equal(t, []string{"expected permission ask, got deny"}, rep.Cases[1].Failures)
	require.Equal(t, "deny", rep.Cases[1].Got.Permission)
	require.Equal(t, filepath.Join(dir, "b.test.json"), rep.Cases[2].File)

	out, stderr, code = env.run(t, "", "test", "--format", "junit", dir)
	require.Equal(t, 1, code, stderr)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal([]byte(out), &suites), out)
	require.Equal(t, 3, suites.Tests)
	require.Equal(t, 1, suites.Failures)
	require.Len(t, suites.Suites, 2)
	require.Equal(t, filepath.Join(dir, "a.test.json"), suites.Suites[0].Name)
	require.Equal(t, 2, suites.Suites[0].Tests)
	require.Nil(t, suites.Suites[0].Cases[0].Failure)
	require.Equal(t, "fail <&>", suites.Suites[0].Cases[1].Name)
	require.Equal(t, "expected permission ask, got deny", suites.Suites[0].Cases[1].Failure.Message)

	_, stderr, code = env.run(t, "", "test", "--format", "tap", dir)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown --format "tap"`)
}

// The example case files of the demo's hooks pass through the real binary,
// as CI runs them (make test-hooks): with --trust-workspace, since they and
// the scripts they run are this repository's content (issue #35).
func TestHookTestsExamples(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	out, stderr, code := env.run(t, "", "test", filepath.Join(root, "testdata", "hooktests"), "--trust-workspace")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	require.Regexp(t, regexp.MustCompile(`(?m)^([1-9][0-9]*) passed, 0 failed\n\z`), out)
	require.NotContains(t, out, "FAIL")
}

// The examples' settings are the demo's, with $HOOKS found from the project.
func TestHookTestsSettingsAreTheDemos(t *testing.T) {
	demo, err := os.ReadFile("../../testdata/demo/settings.json")
	require.NoError(t, err)
	tests, err := os.ReadFile("../../testdata/hooktests/settings.json")
	require.NoError(t, err)
	hooksOf := func(text string) string {
		return text[strings.Index(text, `"hooks"`):]
	}
	require.Equal(t, strings.ReplaceAll(hooksOf(string(demo)), "$HOOKS", "$CLAUDE_PROJECT_DIR/testdata/hooks"), hooksOf(string(tests)))
}

// A real decision of serve, recorded from the run history, is a test that
// passes as long as the hooks decide the same, and fails when they change.
func TestHookTestRecordRoundTrip(t *testing.T) {
	env := newCLIEnv(t, hookTestSettings)
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	sid := p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)["sessionId"].(string)
	deny := p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t1", "toolName": "Bash",
		"toolInput": map[string]any{"command": "rm -rf build"}}, "")["result"].(map[string]any)
	require.Equal(t, "deny", deny["permission"])
	p.call("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": "t2", "toolName": "Write",
		"toolInput": map[string]any{"file_path": filepath.Join(env.project, "a.txt"), "content": "hi"}}, "")
	p.call("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"}, "")
	require.Contains(t, p.call("shutdown", nil, ""), "result")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	require.NoError(t, p.cmd.Wait())

	rec := filepath.Join(t.TempDir(), "recorded")
	out, stderr, code := env.run(t, "", "test", "--record", "--session", sid, "--limit", "3", "-o", rec)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 3, out)
	require.Contains(t, out, "PreToolUse Bash: deny")
	files, err := filepath.Glob(filepath.Join(rec, "*.test.json"))
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		text, _ := os.ReadFile(f)
		t.Logf("%s:\n%s", filepath.Base(f), text)
	}

	out, stderr, code = env.run(t, "", "test", rec)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	require.True(t, strings.HasSuffix(out, "3 passed, 0 failed\n"), out)

	var write struct {
		Expect struct {
			UpdatedInput map[string]any `json:"updatedInput"`
		} `json:"expect"`
	}
	for _, f := range files {
		if strings.Contains(f, "PreToolUse_Write") {
			text, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(text, &write))
		}
	}
	require.Equal(t, "HI", write.Expect.UpdatedInput["content"], "the rewrite is recorded")

	// The guard is lost: the recorded decision catches it.
	require.NoError(t, os.WriteFile(filepath.Join(env.home, "settings.json"), []byte(strings.ReplaceAll(
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$SCRIPTS/prompt-context.sh"}]}]}}`,
		"$SCRIPTS", scriptsDir)), 0o644))
	out, _, code = env.run(t, "", "test", rec)
	require.Equal(t, 1, code, out)
	require.Regexp(t, `(?m)^FAIL PreToolUse Bash \(recorded [^)]*\): expected permission deny, got none;`, out)
	require.True(t, strings.HasSuffix(out, "1 passed, 2 failed\n"), out)
}

// promptHooks rewrite an API key out of a prompt (wavehooks' updatedPrompt)
// and block a prompt that drops a table: real sh scripts reading stdin with jq.
const promptHooks = `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "p=$(jq -r .prompt); case \"$p\" in *sk-*) jq -n --arg p \"$p\" '{hookSpecificOutput: {hookEventName: \"UserPromptSubmit\", updatedPrompt: ($p | sub(\"sk-[a-z0-9]+\"; \"[key]\"))}}';; esac"},
  {"type": "command", "command": "jq -e '.prompt | test(\"drop table\")' >/dev/null && { echo 'no schema changes from chat' >&2; exit 2; }; exit 0"}
]}]}}`

// A case checks the prompt a UserPromptSubmit hook rewrote (updatedPrompt,
// or null for none), with the hooks of a settings file the case names.
func TestHookTestUpdatedPrompt(t *testing.T) {
	env := newCLIEnv(t, `{}`)
	prompt := func(name, p, expect string) string {
		return `"` + name + `": {"event": "UserPromptSubmit", "settings": "prompt-hooks.json", "input": {"prompt": "` + p + `"}, "expect": ` + expect + `}`
	}
	for _, tc := range []struct {
		name, cases string
		code        int
		lines       []string
	}{
		{"the rewrite", `{` + prompt("key", "deploy with sk-abc123", `{"blocked": false, "updatedPrompt": "deploy with [key]"}`) + `,` +
			prompt("plain", "hello", `{"updatedPrompt": null}`) + `}`,
			0, []string{"PASS key", "PASS plain", "2 passed, 0 failed"}},
		{"a wrong rewrite and an unexpected one fail and say what came", `{` +
			prompt("key", "deploy with sk-abc123", `{"updatedPrompt": "deploy with sk-abc123"}`) + `,` +
			prompt("none", "deploy with sk-abc123", `{"updatedPrompt": null}`) + `,` +
			prompt("missing", "hello", `{"updatedPrompt": "hello"}`) + `}`,
			1, []string{`FAIL key: expected updatedPrompt "deploy with sk-abc123", got "deploy with [key]"`,
				`FAIL none: expected no updatedPrompt, got "deploy with [key]"`,
				`FAIL missing: expected updatedPrompt "hello", got none`, "0 passed, 3 failed"}},
		{"a block beats a rewrite", `{` + prompt("drop", "drop table users with sk-abc123", `{"blocked": true, "updatedPrompt": null, "reason": "no schema changes"}`) + `}`,
			0, []string{"PASS drop", "1 passed, 0 failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeCases(t, map[string]string{"p.test.jsonc": tc.cases, "prompt-hooks.json": promptHooks})
			out, stderr, code := env.run(t, "", "test", dir)
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
			require.Equal(t, tc.lines, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
		})
	}

	dir := writeCases(t, map[string]string{"p.test.json": `{"event": "UserPromptSubmit", "expect": {"updatedPrompt": 3}}`})
	out, stderr, code := env.run(t, "", "test", dir)
	require.Equal(t, 2, code, out)
	require.Contains(t, stderr, `p.test.json:1:59: case "p": expect.updatedPrompt is 3 (want the prompt as a string, or null for no rewrite)`)
}

// A prompt rewritten through serve is in the run history, and --record
// keeps it as the case's expectation: the case passes while the hook
// rewrites the same way and fails when the rewrite is gone.
func TestHookTestRecordUpdatedPrompt(t *testing.T) {
	env := newCLIEnv(t, promptHooks)
	p := startServe(t, env)
	p.call("initialize", map[string]any{"rootUri": "file://" + env.project, "capabilities": map[string]any{}}, "")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	sid := p.call("wave/sessionStart", map[string]any{}, "")["result"].(map[string]any)["sessionId"].(string)
	res := p.call("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "deploy with sk-abc123"}, "")["result"].(map[string]any)
	require.Equal(t, "deploy with [key]", res["updatedPrompt"])
	require.Contains(t, p.call("shutdown", nil, ""), "result")
	p.write(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	require.NoError(t, p.cmd.Wait())

	rec := filepath.Join(t.TempDir(), "recorded")
	out, stderr, code := env.run(t, "", "test", "--record", "--session", sid, "-o", rec)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	files, err := filepath.Glob(filepath.Join(rec, "UserPromptSubmit*.test.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, out)
	text, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.Contains(t, string(text), `"updatedPrompt": "deploy with [key]"`)

	out, _, code = env.run(t, "", "test", files[0])
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasSuffix(out, "1 passed, 0 failed\n"), out)

	require.NoError(t, os.WriteFile(filepath.Join(env.home, "settings.json"), []byte(`{}`), 0o644))
	out, _, code = env.run(t, "", "test", files[0])
	require.Equal(t, 1, code, out)
	require.Regexp(t, `(?m)^FAIL UserPromptSubmit \(recorded [^)]*\): expected updatedPrompt "deploy with \[key\]", got none;`, out)
}

// TestLintFlagsHooksThatNeverRun: through the real binary, lint prints a
// warning for each kind of hook that can never run, in line order as a
// compiler does (the shadowed hook, found once the whole file is read, is
// not printed after the lines below it), and exits 0: warnings only.
func TestLintFlagsHooksThatNeverRun(t *testing.T) {
	env := newCLIEnv(t, `{"hooks": {
  "PreToolUse": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "true"}]},
                 {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0", "if": "Write"}]},
                 {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0", "if": "Write"}]}],
  "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
}}`)
	out, stderr, code := env.run(t, "", "lint", "--project", env.project)
	require.Equal(t, 0, code, stderr)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		_, rest, _ := strings.Cut(line, "settings.json:")
		pos, _, _ := strings.Cut(rest, ": warning")
		got = append(got, pos+" "+line[strings.LastIndex(line, "["):])
	}
	require.Equal(t, []string{"2:30 [unknown-tool]", "3:95 [if-never-matches]", "4:48 [shadowed-hook]", "4:95 [if-never-matches]", "5:24 [matcher-ignored]"}, got, out)
	require.Contains(t, out, `"write_file" is no tool; did you mean "Write"?`)
	require.Contains(t, stderr, "0 error(s), 5 warning(s)")
}

// TestHookTestRecordFromACP: the ACP proxy's runs (the real `wavehooks
// acp` in front of a scripted agent) are in the run log too, and --record
// makes them cases: a prompt the hooks rewrote (updatedPrompt) and one
// they refused pass as recorded, and fail once the hooks are gone.
func TestHookTestRecordFromACP(t *testing.T) {
	agent := buildScriptAgent(t)
	env := newCLIEnv(t, promptHooks)
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(scriptFile, []byte(`{"turns": [[{"say":"deployed"},{"stop":"end_turn"}]]}`), 0o600))
	ed := startACPEditor(t, env.home, env.project, agent, scriptFile, env.home)
	sess := ed.newSession(env.project)
	prompt := func(text string) map[string]any { return ed.prompt(sess, text)["result"].(map[string]any) }
	require.Equal(t, "end_turn", prompt("deploy with sk-abc123")["stopReason"])
	require.Equal(t, "refusal", prompt("drop table users")["stopReason"])
	require.NoError(t, ed.stdin.Close())
	_, _ = io.Copy(io.Discard, ed.out)
	_ = ed.cmd.Wait() // the editor went away; the proxy's own exit status is not what this test checks

	rec := filepath.Join(t.TempDir(), "recorded")
	text, errOut, code := env.run(t, "", "test", "--record", "--limit", "2", "-o", rec)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", text, errOut)
	files, err := filepath.Glob(filepath.Join(rec, "UserPromptSubmit*.test.json"))
	require.NoError(t, err)
	require.Len(t, files, 2, text)
	all := ""
	for _, f := range files {
		all += readFileString(t, f)
	}
	require.Contains(t, all, `"updatedPrompt": "deploy with [key]"`, "the rewrite the agent got is recorded")
	require.Contains(t, all, `"blocked": true`)

	text, _, code = env.run(t, "", "test", rec)
	require.Equal(t, 0, code, text)
	require.True(t, strings.HasSuffix(text, "2 passed, 0 failed\n"), text)

	require.NoError(t, os.WriteFile(filepath.Join(env.home, "settings.json"), []byte(`{}`), 0o644))
	text, _, code = env.run(t, "", "test", rec)
	require.Equal(t, 1, code, text)
	require.True(t, strings.HasSuffix(text, "0 passed, 2 failed\n"), text)
	require.Contains(t, text, `expected updatedPrompt "deploy with [key]", got none`)
	require.Contains(t, text, "expected blocked true, got false")
}
