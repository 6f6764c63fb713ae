package lsp_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/lsp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// copyParity copies testdata/parity/<name> into dir.
func copyParity(t *testing.T, name, dir string) {
	t.Helper()
	src := filepath.Join("..", "testdata", "parity", name)
	require.NoError(t, filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	}))
}

// waitRequest waits for a request the server sent the editor whose params satisfy match.
func (e *editor) waitRequest(method string, match func(json.RawMessage) bool) json.RawMessage {
	e.tb.Helper()
	var found json.RawMessage
	require.Eventually(e.tb, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, r := range e.requests {
			if r.Method == method && (match == nil || match(r.Params)) {
				found = r.Params
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "no %s request", method)
	return found
}

// waitLines waits until a file has n complete lines and returns them all.
func waitLines(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 || b[len(b)-1] != '\n' {
			return false // not there, or a line is still being written
		}
		lines = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		return len(lines) >= n
	}, 10*time.Second, 5*time.Millisecond, "%s never got %d lines", path, n)
	return lines
}

// TestRunHooksLaterEvents fires each of Claude Code's later events through
// wave/runHooks into testdata/parity/claude-later, a workspace whose hooks
// are written as Claude Code's reference writes them, and checks the wire
// result each event answers with and that the hook read the session's stdin.
func TestRunHooksLaterEvents(t *testing.T) {
	e := startEditor(t, editorOpts{project: `{"importClaudeHooks": true}`, initOpts: map[string]any{"trustWorkspaceHooks": true}})
	copyParity(t, "claude-later", e.root)
	e.waitNotification("wave/hooksChanged", func(p json.RawMessage) bool { return strings.Contains(string(p), `"hooks":18`) })
	sid, transcript := e.startSession()
	cases := []struct {
		event  string
		input  map[string]any
		want   map[string]any
		blocks string
	}{
		{"Setup", map[string]any{"trigger": "init"}, map[string]any{"additionalContext": []string{"Dependencies installed (init)."}, "env": map[string]string{"SETUP_TRIGGER": "init"}}, `"hookEvent":"Setup"`},
		{"UserPromptExpansion", map[string]any{"command_name": "deploy", "command_args": "prod", "prompt": "/deploy prod"},
			map[string]any{"blocked": true, "reason": "Deploying to prod needs approvals/prod"}, `"type":"error"`},
		{"PermissionDenied", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls -la"}, "tool_use_id": "toolu_3", "reason": "Blocked by classifier"},
			map[string]any{"retry": true}, `may be retried`},
		{"PostToolBatch", map[string]any{"tool_calls": []any{map[string]any{"tool_name": "Read", "tool_input": map[string]any{}, "tool_use_id": "t1", "tool_response": "x"}}},
			map[string]any{"additionalContext": []string{"1 tool calls ran: Read"}}, ""},
		{"MessageDisplay", map[string]any{"delta": "**Done.**\n", "index": 0, "final": true},
			map[string]any{"displayContent": "Done.\n", "blocks": []any{}}, ""},
		{"TaskCreated", map[string]any{"task_id": "t-1", "task_subject": "[TICKET-7] Add login"}, map[string]any{"blocked": false}, ""},
		{"TaskCompleted", map[string]any{"task_id": "t-2", "task_subject": "WIP parser"},
			map[string]any{"blocked": true, "reason": "t-2 is still WIP: finish it first", "blocks": []any{}}, ""},
		{"StopFailure", map[string]any{"error": "overloaded", "error_details": "529"}, map[string]any{"blocks": []any{}}, ""},
		{"TeammateIdle", map[string]any{"teammate_name": "tester", "team_name": "x"},
			map[string]any{"blocked": true, "reason": "Build artifact missing, tester: run the build before stopping."}, ""},
		{"InstructionsLoaded", map[string]any{"file_path": filepath.Join(e.root, "CLAUDE.md"), "memory_type": "Project", "load_reason": "session_start"},
			map[string]any{"blocks": []any{}}, ""},
		{"ConfigChange", map[string]any{"source": "local_settings"}, map[string]any{"blocked": true, "blocks": []any{}}, ""},
		{"CwdChanged", map[string]any{"new_cwd": filepath.Join(e.root, "src")},
			map[string]any{"watchPaths": []string{filepath.Join(e.root, "src", ".envrc")}, "env": map[string]string{"PROJECT_CWD": filepath.Join(e.root, "src")}}, ""},
		{"DirectoryAdded", map[string]any{"directory": "/srv/repo", "source": "slash_command"},
			map[string]any{"additionalContext": []string{"Installed the dependencies of /srv/repo"}}, ""},
		{"FileChanged", map[string]any{"file_path": filepath.Join(e.root, ".env"), "event": "unlink"}, map[string]any{}, `".env unlink: run direnv allow"`},
		{"WorktreeCreate", map[string]any{"name": "wt-1"}, map[string]any{"worktreePath": filepath.Join(e.root, ".worktrees", "wt-1")}, ""},
		{"WorktreeRemove", map[string]any{"worktree_path": filepath.Join(e.root, ".worktrees", "wt-1")}, map[string]any{"blocks": []any{}}, ""},
		{"Elicitation", map[string]any{"mcp_server_name": "my-server", "message": "Log in", "mode": "url", "url": "https://auth.example/x"},
			map[string]any{"action": "decline"}, ""},
		{"ElicitationResult", map[string]any{"mcp_server_name": "my-server", "action": "accept", "content": map[string]any{"username": "ada"}},
			map[string]any{"blocked": false, "action": "accept", "content": map[string]any{"username": "ada"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.event, func(t *testing.T) {
			out := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": c.event, "input": c.input})
			for k, v := range c.want {
				require.Equal(t, mustJSON(v), mustJSON(out[k]), "field %s of %s", k, mustJSON(out))
			}
			if c.blocks != "" {
				require.Contains(t, mustJSON(out["blocks"]), c.blocks)
			}
			raw, err := os.ReadFile(filepath.Join(e.root, "stdin", c.event+".json"))
			require.NoError(t, err, "the hook ran")
			var stdin map[string]any
			require.NoError(t, json.Unmarshal(raw, &stdin))
			require.Equal(t, sid, stdin["session_id"])
			require.Equal(t, transcript, stdin["transcript_path"])
			require.Equal(t, c.event, stdin["hook_event_name"])
			for k, v := range c.input {
				require.Equal(t, mustJSON(v), mustJSON(stdin[k]), "stdin field %s", k)
			}
		})
	}
	require.NoDirExists(t, filepath.Join(e.root, ".worktrees", "wt-1"), "WorktreeRemove's hook removed what WorktreeCreate's made")
	var cwd map[string]any
	raw, err := os.ReadFile(filepath.Join(e.root, "stdin", "CwdChanged.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cwd))
	require.Equal(t, e.root, cwd["old_cwd"], "old_cwd is the session's cwd before")
	require.Equal(t, filepath.Join(e.root, "src"), cwd["cwd"])
}

// TestConfigChangeHoldsBackABlockedChange: a ConfigChange hook that exits 2
// keeps a project settings change from taking effect (real fsnotify), the
// file says so, and the next change it allows applies.
func TestConfigChangeHoldsBackABlockedChange(t *testing.T) {
	guard := `{"hooks": {"ConfigChange": [{"matcher": "project_settings", "hooks": [{"type": "command", "command": "$SCRIPTS/config-guard.sh"}]}]}}`
	e := startEditor(t, editorOpts{settings: guard, initOpts: map[string]any{"trustWorkspaceHooks": true}})
	sid, _ := e.startSession()
	log := filepath.Join(e.root, "config-changes.log")
	project := filepath.Join(e.root, ".wave", "settings.json")
	prompt := func() []any {
		out := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hi"})
		return out["additionalContext"].([]any)
	}

	locked := filepath.Join(e.root, ".wave", "locked")
	require.NoError(t, os.MkdirAll(filepath.Dir(project), 0o755))
	require.NoError(t, os.WriteFile(locked, nil, 0o644))
	settings := hookSettings(map[string][]string{"UserPromptSubmit": {"cat >/dev/null; echo project context"}})
	require.NoError(t, os.WriteFile(project, []byte(settings), 0o644))
	lines := waitLines(t, log, 1)
	var in map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &in))
	require.Equal(t, "ConfigChange", in["hook_event_name"])
	require.Equal(t, "project_settings", in["source"])
	require.Equal(t, project, in["file_path"])
	require.Equal(t, sid, in["session_id"], "observed events run for the active session")
	e.diagnosticsFor(project, hasCode("config-change-blocked"))
	require.Empty(t, prompt(), "the blocked change is not in force")

	require.NoError(t, os.Remove(locked))
	require.NoError(t, os.WriteFile(project, []byte(settings+"\n"), 0o644))
	waitLines(t, log, 2)
	e.diagnosticsFor(project, func(ds []protocol.Diagnostic) bool { return !hasCode("config-change-blocked")(ds) })
	require.Eventually(t, func() bool { return len(prompt()) == 1 }, 10*time.Second, 20*time.Millisecond,
		"the allowed change takes effect")
	require.Equal(t, []any{"project context"}, prompt())

	// A change to a file whose source the matcher does not name runs no hook.
	userSettings := strings.Replace(strings.ReplaceAll(guard, "$SCRIPTS", scripts), `{"hooks"`, `{"transcriptFormat": "json", "hooks"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"), []byte(userSettings), 0o644))
	e.waitNotification("wave/hookRun", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"event":"ConfigChange"`) && strings.Contains(string(p), `"matched":false`)
	})
	require.Len(t, waitLines(t, log, 2), 2)
}

// TestFileChangedFromTheEditor: an editor that registers file watchers on
// request is asked to watch the FileChanged matchers' files, and the
// changes it reports fire FileChanged; a CwdChanged hook's watchPaths
// change what it is asked to watch.
func TestFileChangedFromTheEditor(t *testing.T) {
	record := func(name string) string {
		return `jq -c '{file_path, event, session_id}' >> "$WAVE_PROJECT_DIR/` + name + `"`
	}
	settings := map[string]any{"hooks": map[string]any{
		"FileChanged": []any{
			map[string]any{"matcher": ".envrc", "hooks": []any{map[string]any{"type": "command", "command": record("envrc.log")}}},
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": record("all.log")}}}},
		"CwdChanged": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq '{hookSpecificOutput: {hookEventName: "CwdChanged", watchPaths: [.new_cwd + "/extra.txt"]}}'`}}}},
	}}
	e := startEditor(t, editorOpts{settings: mustJSON(settings),
		caps: map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}})
	envrc := filepath.Join(e.root, ".envrc")
	reg := e.waitRequest("client/registerCapability", func(p json.RawMessage) bool { return strings.Contains(string(p), envrc) })
	var params protocol.RegistrationParams
	require.NoError(t, json.Unmarshal(reg, &params))
	require.Equal(t, "workspace/didChangeWatchedFiles", params.Registrations[0].Method)
	sid, _ := e.startSession()

	changed := func(path string, typ protocol.FileChangeType) {
		require.NoError(t, e.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
			map[string]any{"uri": string(uri.File(path)), "type": typ},
			map[string]any{"uri": string(uri.File(filepath.Join(e.root, "unwatched.txt"))), "type": protocol.FileChangeTypeChanged},
			map[string]any{"uri": "untitled:Untitled-1", "type": protocol.FileChangeTypeChanged}}}))
	}
	changed(envrc, protocol.FileChangeTypeChanged)
	lines := waitLines(t, filepath.Join(e.root, "envrc.log"), 1)
	require.JSONEq(t, `{"file_path": "`+envrc+`", "event": "change", "session_id": "`+sid+`"}`, lines[0])

	sub := filepath.Join(e.root, "sub")
	out := e.mustCall("wave/runHooks", map[string]any{"sessionId": sid, "event": "CwdChanged", "input": map[string]any{"new_cwd": sub}})
	extra := filepath.Join(sub, "extra.txt")
	require.Equal(t, []any{extra}, out["watchPaths"])
	e.waitRequest("client/registerCapability", func(p json.RawMessage) bool { return strings.Contains(string(p), extra) })
	require.Equal(t, 1, e.countRequests("client/unregisterCapability"), "the old registration is replaced")
	changed(extra, protocol.FileChangeTypeCreated)
	all := waitLines(t, filepath.Join(e.root, "all.log"), 2)
	require.JSONEq(t, `{"file_path": "`+extra+`", "event": "add", "session_id": "`+sid+`"}`, all[1])
	require.Len(t, all, 2, "unwatched files fire nothing")
	require.Len(t, waitLines(t, filepath.Join(e.root, "envrc.log"), 1), 1, "the .envrc group's matcher leaves extra.txt alone")
}

// TestSessionStartAsksTheHost: what a SessionStart hook asks of the agent
// host — a first user turn, a title, a re-scan of skills — is in
// wave/sessionStart's result, and in the run history.
func TestSessionStartAsksTheHost(t *testing.T) {
	e := startEditor(t, editorOpts{settings: mustJSON(map[string]any{"hooks": map[string]any{
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq '{hookSpecificOutput: {hookEventName: "SessionStart", sessionTitle: ("work in " + (.cwd | split("/") | last)),
				initialUserMessage: "Summarise the open TODOs.", reloadSkills: true}}'`}}}},
	}})})
	out := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	require.Equal(t, "work in "+filepath.Base(e.root), out["sessionTitle"])
	require.Equal(t, "Summarise the open TODOs.", out["initialUserMessage"])
	require.Equal(t, true, out["reloadSkills"])
	runs := e.mustCall("wave/hookRuns", map[string]any{"sessionId": out["sessionId"]})
	require.Contains(t, mustJSON(runs), "title: work in "+filepath.Base(e.root))

	resumed := e.mustCall("wave/sessionStart", map[string]any{"sessionId": out["sessionId"], "source": "compact"})
	require.NotContains(t, resumed, "sessionTitle", "Claude Code ignores a title on compact")
	require.Equal(t, "Summarise the open TODOs.", resumed["initialUserMessage"])
}

// TestSessionStartWatchPaths: a SessionStart hook's watchPaths start
// FileChanged on files no matcher names, as Claude Code's do: the server
// watches them (real fsnotify) from the session's start on, and its hooks
// fire when one changes.
func TestSessionStartWatchPaths(t *testing.T) {
	e := startEditor(t, editorOpts{settings: mustJSON(map[string]any{"hooks": map[string]any{
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq '{hookSpecificOutput: {hookEventName: "SessionStart", watchPaths: [.cwd + "/notes.md"]}}'`}}}},
		"FileChanged": []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
			"command": `jq -r '.event + " " + .file_path' >> "$WAVE_PROJECT_DIR/changes.log"`}}}},
	}})})
	notes := filepath.Join(e.root, "notes.md")
	out := e.mustCall("wave/sessionStart", map[string]any{"source": "startup"})
	require.Equal(t, []any{notes}, out["watchPaths"])
	require.NotContains(t, out, "sessionTitle", "no hook gave one")
	require.NoError(t, os.WriteFile(notes, []byte("# notes\n"), 0o644))
	require.Equal(t, "add "+notes, waitLines(t, filepath.Join(e.root, "changes.log"), 1)[0])
}

// TestFileChangedWatchedByTheServer: with an editor that cannot register
// watchers, the server watches FileChanged's files itself (real fsnotify)
// and tells a created, changed and deleted file apart.
func TestFileChangedWatchedByTheServer(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {"FileChanged": [{"matcher": ".envrc", "hooks": [
		{"type": "command", "command": "jq -r '.event + \" \" + .file_path' >> \"$WAVE_PROJECT_DIR/changes.log\""}]}]}}`})
	envrc := filepath.Join(e.root, ".envrc")
	log := filepath.Join(e.root, "changes.log")
	require.NoError(t, os.WriteFile(envrc, []byte("export A=1\n"), 0o644))
	require.Equal(t, "add "+envrc, waitLines(t, log, 1)[0])
	require.NoError(t, os.WriteFile(envrc, []byte("export A=2\n"), 0o644))
	require.Equal(t, "change "+envrc, waitLines(t, log, 2)[1])
	require.NoError(t, os.Remove(envrc))
	require.Equal(t, "unlink "+envrc, waitLines(t, log, 3)[2])
	require.Zero(t, e.countRequests("client/registerCapability"))
	var runs struct {
		Runs []struct {
			SessionID string `json:"sessionId"`
		} `json:"runs"`
	}
	require.Eventually(t, func() bool {
		require.NoError(t, e.call("wave/hookRuns", map[string]any{"event": "FileChanged"}, &runs))
		return len(runs.Runs) == 3 // recorded once the hook has ended, after it wrote its line
	}, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, "", runs.Runs[0].SessionID, "no session was active: the hooks ran without one")
}

// TestDirectoryAddedFromWorkspaceFolders: a folder the editor adds to the
// workspace fires DirectoryAdded with source workspace_folder.
func TestDirectoryAddedFromWorkspaceFolders(t *testing.T) {
	e := startEditor(t, editorOpts{noInit: true, settings: `{"hooks": {"DirectoryAdded": [{"matcher": "workspace_folder", "hooks": [
		{"type": "command", "command": "jq -c '{directory, source, session_id}' >> \"$WAVE_PROJECT_DIR/added.log\""}]}]}}`})
	var res protocol.InitializeResult
	require.NoError(t, e.call("initialize", map[string]any{"rootUri": string(uri.File(e.root)), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"waveHome": e.home}}, &res))
	require.True(t, res.Capabilities.Workspace.WorkspaceFolders.Supported)
	require.Equal(t, true, res.Capabilities.Workspace.WorkspaceFolders.ChangeNotifications)
	require.NoError(t, e.notify("initialized", map[string]any{}))
	sid, _ := e.startSession()
	other := t.TempDir()
	require.NoError(t, e.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added":   []any{map[string]any{"uri": string(uri.File(other)), "name": "other"}, map[string]any{"uri": "https://example.com/x", "name": "web"}},
		"removed": []any{}}}))
	lines := waitLines(t, filepath.Join(e.root, "added.log"), 1)
	require.JSONEq(t, `{"directory": "`+other+`", "source": "workspace_folder", "session_id": "`+sid+`"}`, lines[0])
	// The session ended: later observed events run without one.
	e.mustCall("wave/sessionEnd", map[string]any{"sessionId": sid})
	third := t.TempDir()
	require.NoError(t, e.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{map[string]any{"uri": string(uri.File(third)), "name": "third"}}, "removed": []any{}}}))
	lines = waitLines(t, filepath.Join(e.root, "added.log"), 2)
	require.JSONEq(t, `{"directory": "`+third+`", "source": "workspace_folder", "session_id": ""}`, lines[1])
	require.Len(t, lines, 2, "the web folder is not a local directory")
}

// TestPostToolBatchMethod: wave/postToolBatch fires PostToolBatch once for
// the tool calls the session recorded.
func TestPostToolBatchMethod(t *testing.T) {
	e := startEditor(t, editorOpts{settings: `{"hooks": {"PostToolBatch": [{"hooks": [{"type": "command", "command":
		"jq -r '[.tool_calls[] | .tool_use_id + \"=\" + .tool_response] | join(\" \")' > \"$WAVE_PROJECT_DIR/batch.txt\"; echo 'lint the two files' >&2; exit 2"}]}]}}`})
	sid, _ := e.startSession()
	for _, id := range []string{"toolu_a", "toolu_b"} {
		e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Edit", "toolInput": map[string]any{"file_path": "/" + id}})
		e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Edit", "toolInput": map[string]any{"file_path": "/" + id},
			"toolResponse": "edited " + id})
	}
	out := e.mustCall("wave/postToolBatch", map[string]any{"sessionId": sid, "toolUseIds": []string{"toolu_a", "toolu_b"}})
	require.Equal(t, true, out["blocked"], "exit 2 stops the loop before the next model call")
	require.Equal(t, "lint the two files", out["reason"])
	got, err := os.ReadFile(filepath.Join(e.root, "batch.txt"))
	require.NoError(t, err)
	require.Equal(t, "toolu_a=edited toolu_a toolu_b=edited toolu_b\n", string(got))
	api := e.mustCall("wave/apiMessages", map[string]any{"sessionId": sid})
	require.Contains(t, mustJSON(api["messages"]), "lint the two files", "the reason stays in the conversation for the model")

	err = e.call("wave/postToolBatch", map[string]any{"sessionId": sid, "toolUseIds": []string{"toolu_a", "toolu_x"}}, nil)
	require.ErrorContains(t, err, `no tool call "toolu_x"`)
	err = e.call("wave/postToolBatch", map[string]any{"sessionId": sid}, nil)
	require.ErrorContains(t, err, "toolUseIds")
}

// TestEditorKnowsTheLaterEvents: completion offers all 34 events and each
// event's matcher values; hover explains a later event.
func TestEditorKnowsTheLaterEvents(t *testing.T) {
	text := "{\n  \"hooks\": {\n    \"ConfigChange\": [{\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]}],\n    \n  }\n}\n"
	e := startEditor(t, editorOpts{settings: text})
	u := uri.File(filepath.Join(e.home, "settings.json"))
	at := func(line, col int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": col}}
	}
	var hover protocol.Hover
	require.NoError(t, e.call("textDocument/hover", at(2, 8), &hover))
	require.Contains(t, hover.Contents.Value, "**ConfigChange**")
	require.Contains(t, hover.Contents.Value, "`file_path`")
	require.Contains(t, hover.Contents.Value, "`policy_settings`")
	require.Contains(t, hover.Contents.Value, "JSON: `decision: \"block\"`")

	labels := func(line, col int) []string {
		var list protocol.CompletionList
		require.NoError(t, e.call("textDocument/completion", at(line, col), &list))
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	events := labels(3, 4)
	require.Len(t, events, 34)
	for _, ev := range []string{"Setup", "UserPromptExpansion", "PermissionDenied", "PostToolBatch", "MessageDisplay", "TaskCreated",
		"TaskCompleted", "StopFailure", "TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged", "DirectoryAdded",
		"FileChanged", "WorktreeCreate", "WorktreeRemove", "Elicitation", "ElicitationResult"} {
		require.Contains(t, events, ev)
	}
	require.Equal(t, []string{"user_settings", "project_settings", "local_settings", "policy_settings", "skills"}, labels(2, 33))
}

// TestEditorLoadsEveryEventAndType: the settings file that registers all
// 34 events and all five hook types loads in the editor with every hook
// and no diagnostic, as `wavehooks lint` finds it.
func TestEditorLoadsEveryEventAndType(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "testdata", "config", "all-events.json"))
	require.NoError(t, err)
	e := startEditor(t, editorOpts{settings: string(text)})
	raw := e.waitNotification("wave/hooksChanged", func(p json.RawMessage) bool { return strings.Contains(string(p), `"hooks":38`) })
	var state lsp.HooksChangedParams
	require.NoError(t, json.Unmarshal(raw, &state))
	require.Equal(t, 0, state.Diagnostics, "no error, warning or note in %s", state.Files)
}
