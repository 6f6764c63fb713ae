package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func fsWrite(path, content string) string {
	return `{"call":{"method":"fs/write_text_file","params":{"path":` + string(mustRaw(path)) + `,"content":` + string(mustRaw(content)) + `}},
	  "ifOK":[{"say":"wrote it"}],"ifError":[{"say":"error: $error"}]}`
}

// updatedInput applies to file and terminal requests: the editor gets the
// hook's path, content or command.
func TestUpdatedInputRewritesFileAndTerminalRequests(t *testing.T) {
	dir := t.TempDir()
	rewrite := hook(t, dir, "rewrite.sh", `jq 'if .tool_name == "Write" then {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: (.tool_input + {content: (.tool_input.content + "\n// reviewed\n")})}}
	  elif .tool_name == "Bash" then {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {command: (.tool_input.command + " --dry-run")}}}
	  else {} end'`)
	target := filepath.Join(t.TempDir(), "b.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "", rewrite}),
		script: script(`[` + fsWrite(target, "code") + `,
		  {"call":{"method":"terminal/create","params":{"command":"make","args":["deploy","prod env"],"cwd":"/tmp"}},"ifOK":[{"say":"started"}],"ifError":[{"say":"$error"}]},
		  {"call":{"method":"terminal/create","params":{"command":"git status"}},"ifOK":[],"ifError":[]},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, "code\n// reviewed\n", readFile(t, target))
	terms := r.noted(methodTerminalCreate)
	require.Len(t, terms, 2)
	var p1, p2 map[string]any
	require.NoError(t, json.Unmarshal(terms[0].Params, &p1))
	require.NoError(t, json.Unmarshal(terms[1].Params, &p2))
	require.Equal(t, "sh", p1["command"])
	require.Equal(t, []any{"-c", "make deploy 'prod env' --dry-run"}, p1["args"])
	require.Equal(t, "/tmp", p1["cwd"])
	require.Equal(t, sess, p1["sessionId"])
	require.Equal(t, "git status --dry-run", p2["command"])
	require.Nil(t, p2["args"])
}

// An updatedInput that would make a relative path is refused: nothing a
// hook answers becomes a path unchecked either.
func TestUpdatedInputWithRelativePathIsRefused(t *testing.T) {
	dir := t.TempDir()
	rewrite := hook(t, dir, "rewrite.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {file_path: "../etc/x"}}}'`)
	target := filepath.Join(t.TempDir(), "c.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Write", rewrite}),
		script:   script(`[` + fsWrite(target, "x") + `,{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Empty(t, r.noted(methodWriteTextFile))
	require.Contains(t, r.chunkTexts(), `error: A PreToolUse hook's updatedInput cannot be used: file_path must be an absolute path, not "../etc/x"`)
}

// A read with no decision passes to the editor; its result is recorded.
func TestFileReadPassesWithoutDecision(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	record := hook(t, dir, "record.sh", `jq -c '{tool_name, tool_input}' >> `+seen)
	src := filepath.Join(t.TempDir(), "in.txt")
	require.NoError(t, os.WriteFile(src, []byte("content"), 0o600))
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Read", record}),
		script: script(`[{"call":{"method":"fs/read_text_file","params":{"path":` + string(mustRaw(src)) + `,"line":2,"limit":10}},
		  "ifOK":[{"say":"read"}],"ifError":[{"say":"$error"}]},{"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Len(t, r.noted(methodReadTextFile), 1)
	require.Contains(t, r.chunkTexts(), "read")
	require.Equal(t, `{"tool_name":"Read","tool_input":{"file_path":"`+src+`","limit":10,"offset":2}}`+"\n", readFile(t, seen))
	require.Eventually(t, func() bool {
		tools := blocksOf(r.transcript(sess), "tool")
		return len(tools) == 1 && tools[0]["success"] == true
	}, waitFor, tick)
}

// A hook's "ask" about a file operation is put to the user with a
// session/request_permission of the proxy's own, whose title says why.
func TestAskAboutFileWriteUsesTheEditorsPermissionPrompt(t *testing.T) {
	dir := t.TempDir()
	ask := hook(t, dir, "ask.sh", `jq '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "outside src/"}}'`)
	target := filepath.Join(t.TempDir(), "d.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Write", ask}),
		script:   script(`[`+fsWrite(target, "one")+`,{"stop":"end_turn"}]`, `[`+fsWrite(target, "two")+`,{"waitCancel":true},{"stop":"cancelled"}]`),
	})
	decision := "allow"
	r.answer = func(m *testMsg) any {
		if m.Method == methodRequestPermission {
			return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": decision}}
		}
		return r.defaultAnswer(m)
	}
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, "one", readFile(t, target))
	asks := r.noted(methodRequestPermission)
	require.Len(t, asks, 1)
	require.Contains(t, string(asks[0].ID), ownIDPrefix)
	require.Contains(t, string(asks[0].Params), `"title":"Write `+target+` — wavehooks: a hook asks you to decide: outside src/"`,
		"the question carries the hook's reason (issue #26 item 3)")

	decision = "reject"
	res := r.prompt(sess, "again")
	require.Equal(t, "cancelled", stopReason(t, res), "a user's deny ends the turn, as in serve")
	require.Equal(t, "one", readFile(t, target))
	require.Contains(t, r.chunkTexts(), "error: Denied by a PreToolUse hook: The user denied permission to run Write.")
}

// terminal/create's env is part of the Bash tool input hooks see (as ACP's
// list of {name, value}), so a guard can refuse a command by its
// environment; an updatedInput's env replaces it, and a malformed one is
// refused.
func TestTerminalEnvIsShownToHooks(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	guard := hook(t, dir, "guard.sh", `in=$(cat); printf '%s\n' "$in" | jq -c .tool_input >> `+seen+`
if printf '%s' "$in" | jq -e '[.tool_input.env[]? | select(.name == "LD_PRELOAD")] | length > 0' >/dev/null; then
  echo "no LD_PRELOAD" >&2; exit 2
fi
printf '%s' "$in" | jq 'if .tool_input.command == "env-rewrite" then {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
  updatedInput: {command: "env-rewrite", env: [{name: "SAFE", value: "1"}]}}}
  elif .tool_input.command == "env-bad" then {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
  updatedInput: {command: "env-bad", env: [{name: "X"}]}}} else {} end'`)
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Bash", guard}),
		script: script(`[
		  {"call":{"method":"terminal/create","params":{"command":"ls","env":[{"name":"LD_PRELOAD","value":"/tmp/evil.so"}]}},"ifOK":[{"say":"ls ran"}],"ifError":[{"say":"ls: $error"}]},
		  {"call":{"method":"terminal/create","params":{"command":"env-rewrite","env":[{"name":"A","value":"b"}]}},"ifOK":[{"say":"rewrite ran"}],"ifError":[{"say":"rewrite: $error"}]},
		  {"call":{"method":"terminal/create","params":{"command":"env-bad"}},"ifOK":[{"say":"bad ran"}],"ifError":[{"say":"bad: $error"}]},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, `{"command":"ls","env":[{"name":"LD_PRELOAD","value":"/tmp/evil.so"}]}`+"\n"+
		`{"command":"env-rewrite","env":[{"name":"A","value":"b"}]}`+"\n"+
		`{"command":"env-bad"}`+"\n", readFile(t, seen))
	texts := r.chunkTexts()
	require.Contains(t, texts, "ls: Denied by a PreToolUse hook: no LD_PRELOAD")
	require.Contains(t, texts, "rewrite ran")
	require.Contains(t, texts, `bad: A PreToolUse hook's updatedInput cannot be used: env[0] must be {"name": a name, "value": a string}`)
	terms := r.noted(methodTerminalCreate)
	require.Len(t, terms, 1, "only the rewritten command reached the editor")
	var p map[string]any
	require.NoError(t, json.Unmarshal(terms[0].Params, &p))
	require.Equal(t, []any{map[string]any{"name": "SAFE", "value": "1"}}, p["env"])
}

// A file or terminal request is judged on exactly the members the editor
// acts on: a "Path" beside "path" is not what the hooks see (ACP's names
// are matched exactly, as editors match them), and a request whose members
// are not of ACP's types (a path that is a number, args that are not
// strings) is refused, never passed on with an input the hooks could not read.
func TestFileAndTerminalRequestsAreReadAsTheEditorReadsThem(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	record := hook(t, dir, "record.sh", `jq -c .tool_input >> `+seen)
	target := filepath.Join(t.TempDir(), "a.txt")
	r := startRig(t, rigOptions{
		settings: settings([3]string{"PreToolUse", "Write|Bash", record}),
		script: script(`[
		  {"call":{"method":"fs/write_text_file","params":{"path":` + string(mustRaw(target)) + `,"Path":"/etc/passwd","content":"x"}},"ifOK":[{"say":"wrote"}],"ifError":[{"say":"write: $error"}]},
		  {"call":{"method":"fs/write_text_file","params":{"path":5,"content":"x"}},"ifOK":[{"say":"odd write ran"}],"ifError":[{"say":"odd write: $error"}]},
		  {"call":{"method":"terminal/create","params":{"command":"rm","args":["-rf",7]}},"ifOK":[{"say":"odd rm ran"}],"ifError":[{"say":"odd rm: $error"}]},
		  {"stop":"end_turn"}]`),
	})
	sess := r.handshake()
	require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "go")))
	require.Equal(t, `{"content":"x","file_path":`+string(mustRaw(target))+`}`+"\n", readFile(t, seen),
		"the hooks judged the path the editor writes, and nothing else")
	writes := r.noted(methodWriteTextFile)
	require.Len(t, writes, 1, "only the well-formed write reached the editor")
	texts := r.chunkTexts()
	require.Contains(t, texts, "wrote")
	var refused []string
	for _, s := range texts {
		if strings.HasPrefix(s, "odd ") {
			refused = append(refused, s)
		}
	}
	require.Len(t, refused, 2, "%q", texts)
	for _, s := range refused {
		require.Contains(t, s, "refused: its params are not what ACP says")
	}
	require.Empty(t, r.noted(methodTerminalCreate))
}
