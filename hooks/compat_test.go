package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// Claude Code compatibility details (docs/parity.md): each feature through
// the real engine, with sh + jq hooks.

// A hook meant for git commands ("if": "Bash(git *)") must not deny ls: the
// rule narrows the matcher group to the calls it names, and the run says why
// the hook was skipped.
func TestIfRuleNarrowsAHook(t *testing.T) {
	guard := `cmd=$(jq -r .tool_input.command); echo "$cmd" >> "$CLAUDE_PROJECT_DIR/ran.txt"; echo "no git: $cmd" >&2; exit 2`
	ts := `jq -r .tool_input.file_path >> "$CLAUDE_PROJECT_DIR/ts.txt"`
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{
			map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": guard, "if": "Bash(git *)"}}},
			map[string]any{"matcher": "Edit|Write", "hooks": []any{map[string]any{"type": "command", "command": ts, "if": "Edit(*.ts)"}}},
		}}})
	e, root := setup(t, string(settings))
	fire := func(tool, toolInput string) hooks.Result {
		in := input(event.PreToolUse, root)
		in.ToolName, in.ToolInput = tool, json.RawMessage(toolInput)
		return e.Fire(context.Background(), in)
	}

	res := fire("Bash", `{"command":"ls -la"}`)
	require.Equal(t, hooks.PermissionNone, res.Permission, "ls is not a git command")
	require.False(t, res.Runs[0].Ran)
	require.Equal(t, "Bash(git *)", res.Runs[0].If)
	require.Contains(t, res.Runs[0].Skipped, `its "if" rule does not match: no subcommand of "ls -la" matches git *`)
	require.NoFileExists(t, filepath.Join(root, "ran.txt"), "the hook process never started")

	for _, cmd := range []string{"git push", "npm test && git push", "FOO=1 git commit -m x"} {
		res = fire("Bash", `{"command":"`+cmd+`"}`)
		require.Equal(t, hooks.PermissionDeny, res.Permission, cmd)
		require.Equal(t, "no git: "+cmd, res.Reason)
	}
	ran, err := os.ReadFile(filepath.Join(root, "ran.txt"))
	require.NoError(t, err)
	require.Equal(t, "git push\nnpm test && git push\nFOO=1 git commit -m x\n", string(ran))

	fire("Edit", `{"file_path":"`+root+`/src/a.js"}`)
	fire("Write", `{"file_path":"`+root+`/src/b.ts"}`)
	fire("Edit", `{"file_path":"`+root+`/src/c.ts"}`)
	got, err := os.ReadFile(filepath.Join(root, "ts.txt"))
	require.NoError(t, err)
	require.Equal(t, root+"/src/c.ts\n", string(got), "Edit(*.ts): neither a .js file nor a Write")
}

// A hook with "if" on an event that is not a tool event never runs, as in
// Claude Code, and the file says so.
func TestIfRuleOnANonToolEvent(t *testing.T) {
	settingsJSON := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ran > stop.txt", "if": "Bash"}]}]}}`
	f := settings.ParseFile("settings.json", settings.SourceUser, []byte(settingsJSON), t.TempDir())
	require.Len(t, f.Diagnostics, 1)
	require.Equal(t, settings.CodeBadIf, f.Diagnostics[0].Code)
	require.Contains(t, f.Diagnostics[0].Message, "on Stop a hook with \"if\" never runs")

	home, root := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "settings.json"), []byte(settingsJSON), 0o644))
	e := hooks.NewEngine(settings.Load(settings.Paths{WaveHome: home, ProjectRoot: root}, nil))
	res := e.Fire(context.Background(), input(event.Stop, root))
	require.False(t, res.Ran())
	require.Contains(t, res.Runs[0].Skipped, "only evaluated on tool events")
	require.NoFileExists(t, filepath.Join(root, "stop.txt"))
}

// A typo in a key is reported, with the key meant, where it is.
func TestUnknownKeysAreReportedWithTheKeyMeant(t *testing.T) {
	settingsJSON := `{
  "disableAllHook": true,
  "permissions": {"allow": ["Bash"]},
  "hooks": {"PreToolUse": [{"matchers": "Bash", "hooks": [
    {"type": "command", "command": "true", "timout": 5, "Async": true, "once": true, "colour": "red"}]}]}
}`
	f := settings.ParseFile("settings.json", settings.SourceUser, []byte(settingsJSON), t.TempDir())
	var got []string
	for _, d := range f.Diagnostics {
		require.Equal(t, settings.CodeUnknownKey, d.Code)
		require.Equal(t, settings.SeverityWarning, d.Severity)
		got = append(got, strings.TrimPrefix(d.String(), "settings.json:"))
	}
	require.Equal(t, []string{
		`2:3: warning: unknown key "disableAllHook" in a setting; did you mean "disableAllHooks"? It is ignored as written [unknown-key]`,
		`4:29: warning: unknown key "matchers" in a matcher group; did you mean "matcher"? It is ignored as written [unknown-key]`,
		`5:44: warning: unknown key "timout" in a hook; did you mean "timeout"? It is ignored as written [unknown-key]`,
		`5:57: warning: unknown key "Async" in a hook; did you mean "async"? It is ignored as written [unknown-key]`,
		`5:86: warning: unknown key "colour" in a hook; it is ignored [unknown-key]`,
	}, got, "Claude Code's own settings (permissions) and keys it accepts (once) are not typos")
	require.Equal(t, settings.DefaultTimeout, f.Hooks[0].Timeout, "the misspelt timeout did not apply")
}

// A guard copied from Claude Code's docs in the exec form starts: the
// program and its arguments get ${CLAUDE_PROJECT_DIR} substituted, so the
// guard runs and denies, instead of failing to start and letting the tool run.
func TestExecFormSubstitutesTheProjectDir(t *testing.T) {
	guard := `#!/bin/sh
cmd=$(jq -r .tool_input.command)
printf '%s\n' "$@" > "$1/args.txt"
case "$cmd" in *"rm -rf"*) echo "blocked: $cmd" >&2; exit 2 ;; esac
`
	l := writeLayout(t, map[string]string{
		".claude/hooks/guard.sh": guard,
		"home/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
			"command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh", "args": ["${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${HOME}"]}]}]}}`,
	})
	e := hooks.NewEngine(l.load(t))
	in := input(event.PreToolUse, l.root)
	in.ToolInput = json.RawMessage(`{"command":"rm -rf build"}`)
	res := e.Fire(context.Background(), in)
	require.Empty(t, res.Errors)
	require.Equal(t, hooks.PermissionDeny, res.Permission)
	require.Equal(t, "blocked: rm -rf build", res.Reason)
	args, err := os.ReadFile(filepath.Join(l.root, "args.txt"))
	require.NoError(t, err)
	require.Equal(t, l.root+"\n$CLAUDE_PROJECT_DIR\n${HOME}\n", string(args),
		"only the braced placeholder is substituted, as Claude Code does; nothing else is expanded")
}

// ${CLAUDE_PLUGIN_ROOT} only exists in a Claude Code plugin's hooks: such a
// hook does not start, in either form, and says why (Claude Code's words).
func TestPluginPlaceholderOutsideAPlugin(t *testing.T) {
	for _, hook := range []string{
		`{"type": "command", "command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/format.js"]}`,
		`{"type": "command", "command": "touch ran; \"${CLAUDE_PLUGIN_ROOT}\"/format.sh"}`,
	} {
		l := writeLayout(t, map[string]string{"home/settings.json": `{"hooks": {"Stop": [{"hooks": [` + hook + `]}]}}`})
		cfg := settings.Load(l.paths(), nil)
		require.Len(t, cfg.Diagnostics(), 1)
		require.Equal(t, settings.CodePluginPlaceholder, cfg.Diagnostics()[0].Code)
		res := hooks.NewEngine(cfg).Fire(context.Background(), input(event.Stop, l.root))
		require.Len(t, res.Errors, 1)
		require.Contains(t, res.Errors[0], "references ${CLAUDE_PLUGIN_ROOT} but the hook is not associated with a plugin")
		require.NoFileExists(t, filepath.Join(l.root, "ran"))
	}
}

// rawStdinHook saves the bytes of its stdin, untouched, to $WAVE_PROJECT_DIR/stdin.raw.
const rawStdinHook = `cat > "$WAVE_PROJECT_DIR/stdin.raw"`

// fireRaw runs ev's rawStdinHook with in and returns the bytes it read.
func fireRaw(t *testing.T, in event.Input) string {
	t.Helper()
	e, root := setup(t, one(in.Event, rawStdinHook))
	in.Cwd = cmpOr(in.Cwd, root)
	res := e.Fire(context.Background(), in)
	require.Empty(t, res.Errors)
	b, err := os.ReadFile(filepath.Join(root, "stdin.raw"))
	require.NoError(t, err)
	return string(b)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// What Claude Code sent a hook (testdata/claude-stdin, recorded from the real
// CLI), replayed through `wavehooks run` / wave/runHooks, reaches the hook as
// the same bytes: the same keys in the same order, values as sent. The only
// additions are Wave's older names of two fields, right after them.
func TestClaudeCodesStdinReachesTheHookUnchanged(t *testing.T) {
	for _, ev := range []event.Event{event.PreToolUse, event.PostToolUse, event.UserPromptSubmit, event.Stop, event.SessionStart, event.SessionEnd} {
		t.Run(string(ev), func(t *testing.T) {
			recorded, err := os.ReadFile(filepath.Join("../testdata/claude-stdin", string(ev)+".json"))
			require.NoError(t, err)
			in, err := event.ParseInput(ev, recorded)
			require.NoError(t, err)
			want := string(recorded)
			switch ev {
			case event.UserPromptSubmit:
				want = strings.Replace(want, `"prompt":"run it"`, `"prompt":"run it","user_prompt":"run it"`, 1)
			case event.SessionEnd:
				want = strings.Replace(want, `"reason":"other"`, `"reason":"other","end_source":"other"`, 1)
			}
			require.Equal(t, want, fireRaw(t, in))
		})
	}
}

// The stdin built from the wire's typed fields has Claude Code's keys, in
// its order: permission_mode (default "default") where Claude Code sends
// it, prompt_id and effort when the client gave them, duration_ms on
// PostToolUse, last_assistant_message and the task lists on Stop.
func TestStdinFromTypedFieldsInClaudeCodesOrder(t *testing.T) {
	ms := int64(243)
	base := event.Input{SessionID: "s1", TranscriptPath: "/t.json", Cwd: "/p", PromptID: "p-1", Effort: "high"}
	cases := []struct {
		in   func(in event.Input) event.Input
		want string
	}{
		{func(in event.Input) event.Input {
			in.Event, in.ToolName, in.ToolUseID, in.PermissionMode = event.PreToolUse, "Bash", "t1", "plan"
			in.ToolInput = json.RawMessage(`{"z": 1, "a": "<&>"}`)
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"plan","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"z":1,"a":"<&>"},"tool_use_id":"t1"}`},
		{func(in event.Input) event.Input {
			in.Event, in.ToolName, in.ToolUseID, in.DurationMs = event.PostToolUse, "Bash", "t1", &ms
			in.ToolInput, in.ToolResponse = json.RawMessage(`{"command":"ls"}`), json.RawMessage(`{"stdout":"a"}`)
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"},"tool_use_id":"t1","duration_ms":243}`},
		{func(in event.Input) event.Input {
			in.Event, in.Prompt = event.UserPromptSubmit, "hi"
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"hi","user_prompt":"hi"}`},
		{func(in event.Input) event.Input {
			in.Event, in.LastAssistantMessage = event.Stop, "done"
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done","background_tasks":[],"session_crons":[]}`},
		{func(in event.Input) event.Input {
			in.Event, in.Source, in.PromptID = event.SessionStart, "startup", ""
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}`},
		{func(in event.Input) event.Input {
			in.Event, in.Reason = event.SessionEnd, "clear"
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","hook_event_name":"SessionEnd","reason":"clear","end_source":"clear"}`},
		// The later events as Claude Code 2.1.330 sends them (docs/conformance.md):
		// UserPromptExpansion has permission_mode, PostToolBatch both,
		// StopFailure effort only, the task events neither.
		{func(in event.Input) event.Input {
			in.Event = event.UserPromptExpansion
			in.Extra = map[string]json.RawMessage{"command_name": json.RawMessage(`"greet"`)}
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"default","hook_event_name":"UserPromptExpansion","expansion_type":"","command_name":"greet","command_args":"","command_source":"","prompt":""}`},
		{func(in event.Input) event.Input {
			in.Event = event.PostToolBatch
			in.Extra = map[string]json.RawMessage{"tool_calls": json.RawMessage(`[]`)}
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolBatch","tool_calls":[]}`},
		{func(in event.Input) event.Input {
			in.Event = event.StopFailure
			in.Extra = map[string]json.RawMessage{"error": json.RawMessage(`"rate_limit"`)}
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","effort":{"level":"high"},"hook_event_name":"StopFailure","error":"rate_limit"}`},
		{func(in event.Input) event.Input {
			in.Event = event.TaskCreated
			in.Extra = map[string]json.RawMessage{"task_id": json.RawMessage(`"1"`), "task_subject": json.RawMessage(`"Write tests"`)}
			return in
		}, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","prompt_id":"p-1","hook_event_name":"TaskCreated","task_id":"1","task_subject":"Write tests"}`},
	}
	for _, c := range cases {
		in := c.in(base)
		t.Run(string(in.Event), func(t *testing.T) {
			require.Equal(t, c.want+"\n", fireRaw(t, in))
		})
	}
}

// A client that sends some keys gets them in its order, the others where
// Claude Code puts them; a client written for Wave's earlier release may
// still send user_prompt / end_source.
func TestStdinKeepsTheClientsOrder(t *testing.T) {
	in, err := event.ParseInput(event.PreToolUse, []byte(`{"tool_input": {"b": [2, 1], "a": {"y": 1, "x": 2}}, "tool_name": "Bash", "extra_b": 1, "extra_a": 2}`))
	require.NoError(t, err)
	in.SessionID, in.TranscriptPath, in.Cwd, in.ToolUseID = "s1", "/t.json", "/p", "t1"
	require.Equal(t, `{"session_id":"s1","transcript_path":"/t.json","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse",`+
		`"tool_input":{"b":[2,1],"a":{"y":1,"x":2}},"tool_use_id":"t1","tool_name":"Bash","extra_b":1,"extra_a":2}`+"\n", fireRaw(t, in))

	in, err = event.ParseInput(event.SessionStart, []byte(`{"source": "startup", "permission_mode": "plan"}`))
	require.NoError(t, err)
	require.Contains(t, fireRaw(t, in), `"source":"startup","permission_mode":"plan"`, "what the client sent is kept, on any event")

	in, err = event.ParseInput(event.UserPromptSubmit, []byte(`{"user_prompt": "from an older client"}`))
	require.NoError(t, err)
	require.Equal(t, "from an older client", in.Prompt)
	in, err = event.ParseInput(event.SessionEnd, []byte(`{"end_source": "logout"}`))
	require.NoError(t, err)
	require.Equal(t, "logout", in.Reason)
	_, err = event.ParseInput(event.Stop, []byte(`{"effort": "high"}`))
	require.ErrorContains(t, err, `effort must be an object like {"level": "high"}`)
}

// The differential run's SessionStart script: set -u, appends to
// $CLAUDE_ENV_FILE, prints context. It must run (it failed with exit 1 when
// the variable was unset), and the variables it wrote come back in the
// result for the agent's later tool runs; a second hook's value wins.
func TestSessionStartEnvFile(t *testing.T) {
	script := `#!/bin/sh
set -eu
echo 'export NODE_ENV=production' >> "$CLAUDE_ENV_FILE"
echo 'export PATH="$PATH:./node_modules/.bin"' >> "$CLAUDE_ENV_FILE"
echo "export WHO=\$(whoami)" >> "$CLAUDE_ENV_FILE"
echo "Loaded the project environment"
`
	l := writeLayout(t, map[string]string{
		"env-setup.sh": script,
		"home/settings.json": `{"hooks": {"SessionStart": [{"hooks": [
			{"type": "command", "command": "$ROOT/env-setup.sh"},
			{"type": "command", "command": "[ -f \"$CLAUDE_ENV_FILE\" ] && echo 'export NODE_ENV=test' > \"$CLAUDE_ENV_FILE\"; echo \"$CLAUDE_ENV_FILE\" > $ROOT/env-file"},
			{"type": "command", "command": "echo \"$CLAUDE_ENV_FILE\" > $ROOT/async-env-file", "async": true}]}],
			"Stop": [{"hooks": [{"type": "command", "command": "echo \"${CLAUDE_ENV_FILE-unset}\" > $ROOT/stop-env-file"}]}]}}`,
	})
	e := hooks.NewEngine(l.load(t))
	res := e.Fire(context.Background(), input(event.SessionStart, l.root))
	require.Empty(t, res.Errors)
	require.Equal(t, []string{"Loaded the project environment"}, res.Context)
	require.Equal(t, map[string]string{"NODE_ENV": "test", "PATH": os.Getenv("PATH") + ":./node_modules/.bin"}, res.Env)
	require.Len(t, res.Warnings, 1)
	require.Contains(t, res.Warnings[0], "command substitution ($(…)) is not run, so `export WHO=$(whoami)` was not applied")
	e.Wait()
	b, err := os.ReadFile(filepath.Join(l.root, "async-env-file"))
	require.NoError(t, err)
	require.Equal(t, os.DevNull+"\n", string(b), "a background hook's file is not read: its writes go nowhere")
	b, err = os.ReadFile(filepath.Join(l.root, "env-file"))
	require.NoError(t, err)
	require.Regexp(t, `/wavehooks-env-[0-9]+/sessionstart-hook-1\.sh\n$`, string(b), "a file per hook, named as Claude Code names them")
	require.NoDirExists(t, filepath.Dir(strings.TrimSpace(string(b))), "the event's files are removed once read")

	res = e.Fire(context.Background(), input(event.Stop, l.root))
	require.Nil(t, res.Env)
	b, err = os.ReadFile(filepath.Join(l.root, "stop-env-file"))
	require.NoError(t, err)
	require.Equal(t, "unset\n", string(b), "only SessionStart, Setup, CwdChanged and FileChanged hooks get CLAUDE_ENV_FILE, as in Claude Code")
}

// Setup, CwdChanged and FileChanged hooks get a CLAUDE_ENV_FILE too, as
// the hooks reference says, and what they write comes back as env.
func TestEnvFileEvents(t *testing.T) {
	for _, ev := range []event.Event{event.SessionStart, event.Setup, event.CwdChanged, event.FileChanged} {
		t.Run(string(ev), func(t *testing.T) {
			e, root := setup(t, one(ev, `set -u; jq -r .hook_event_name | sed 's/^/export FROM=/' >> "$CLAUDE_ENV_FILE"`))
			res := e.Fire(context.Background(), input(ev, root))
			require.Empty(t, res.Errors)
			require.Empty(t, res.Warnings)
			require.Equal(t, map[string]string{"FROM": string(ev)}, res.Env)
		})
	}
}

// A hook that replaces its CLAUDE_ENV_FILE with something that is not a
// small regular file — a FIFO (reading it hung the event), a symlink to
// /dev/zero (memory without bound), a file past MaxEnvFileBytes — gets a
// warning naming it and sets nothing; the next hook's file still counts.
func TestEnvFileThatIsNotASmallRegularFile(t *testing.T) {
	cases := []struct{ name, replace, says string }{
		{"a FIFO", `rm "$CLAUDE_ENV_FILE"; mkfifo "$CLAUDE_ENV_FILE"`, "a FIFO"},
		{"a symlink to /dev/zero", `ln -sf /dev/zero "$CLAUDE_ENV_FILE"`, "not a regular file"},
		{"a 2 MiB file", `head -c 2097152 /dev/zero > "$CLAUDE_ENV_FILE"`, "larger than 1 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := writeLayout(t, map[string]string{"home/settings.json": fmt.Sprintf(`{"hooks": {"SessionStart": [{"hooks": [
				{"type": "command", "command": %q},
				{"type": "command", "command": "jq -r .hook_event_name | sed 's/^/export FROM=/' >> \"$CLAUDE_ENV_FILE\""}]}]}}`, c.replace)})
			e := hooks.NewEngine(l.load(t))
			res := e.Fire(context.Background(), input(event.SessionStart, l.root))
			require.Empty(t, res.Errors)
			require.Equal(t, map[string]string{"FROM": "SessionStart"}, res.Env)
			require.Len(t, res.Warnings, 1)
			require.Contains(t, res.Warnings[0], "CLAUDE_ENV_FILE of")
			require.Contains(t, res.Warnings[0], c.says)
		})
	}
}

// The variables Claude Code sets for its hooks, which scripts written for it
// read (under set -u too): CLAUDECODE, CLAUDE_CODE_SESSION_ID, CLAUDE_PID,
// and CLAUDE_EFFORT when the effort is known.
func TestHooksGetClaudeCodesVariables(t *testing.T) {
	e, root := setup(t, one(event.PreToolUse, `set -u; cat >/dev/null; echo "$CLAUDECODE|$CLAUDE_CODE_SESSION_ID|$CLAUDE_PID|${CLAUDE_EFFORT-none}" > "$CLAUDE_PROJECT_DIR/vars"`))
	in := input(event.PreToolUse, root)
	e.Fire(context.Background(), in)
	b, err := os.ReadFile(filepath.Join(root, "vars"))
	require.NoError(t, err)
	require.Equal(t, "1|sess_1234abcd|"+strconv.Itoa(os.Getpid())+"|none\n", string(b))
	in.Effort = "high"
	e.Fire(context.Background(), in)
	b, err = os.ReadFile(filepath.Join(root, "vars"))
	require.NoError(t, err)
	require.Equal(t, "1|sess_1234abcd|"+strconv.Itoa(os.Getpid())+"|high\n", string(b))
}
