//go:build linux

package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The behaviour matrix every real agent is held to (issue #26 item 1), run
// through the proxy as an editor would, with real sh + jq hooks in the
// project's .wave/settings.json (trusted as --trust-workspace does):
//
//   - deny:  a PreToolUse deny stops the tool (the directory `rm -rf` names is still there);
//   - allow: an allow lets it through, and PostToolUse sees its output;
//   - ask:   an "ask" reaches the editor exactly once;
//   - block: a prompt a UserPromptSubmit hook blocks never reaches the model;
//   - stop:  a Stop block continues the turn with the hook's reason;
//   - once:  every hook runs exactly once per logical tool call (an audit
//     hook appends one line per run).
//
// A behaviour that does not hold today is checked all the same and, where
// it fails, the case ends with t.Skip("KNOWN GAP #26 …"): never a pass. A
// known gap that starts to hold fails the test, so the fix that closes it
// also turns the knownGap call into a require.

// matrixHooks are the hook scripts and the files they write.
type matrixHooks struct {
	audit    string // one JSON line per hook run: event, tool, input, response
	stopFlag string // while it exists, the Stop hook blocks once (and removes it)
	// claudeAudit is where the project's own Claude Code PreToolUse hook
	// (.claude/settings.json, run by Claude Code itself) appends its lines.
	claudeAudit string
}

const (
	denyReason   = "DENY-REASON-41: wavehooks says no"
	askReason    = "ASK-REASON-52: a human should look"
	stopReason77 = "STOP-REASON-77: one more thing"
	secret       = "SECRET-MARKER-93"
)

// writeMatrixHooks writes the project's .wave/settings.json: an audit hook
// on every event, and the deciding hooks. PreToolUse denies any input that
// mentions "rm -rf" or "DENYME", asks for "ASKME", allows the rest.
func writeMatrixHooks(t *testing.T, project string) matrixHooks {
	t.Helper()
	dir := t.TempDir()
	h := matrixHooks{audit: filepath.Join(dir, "audit.jsonl"), stopFlag: filepath.Join(dir, "stop.flag")}
	audit := hook(t, dir, "audit.sh", `jq -c '{event: .hook_event_name, tool: (.tool_name // ""), input: ((.tool_input // {}) | tostring),
	  response: ((.tool_response // "") | tostring), session: .session_id}' >> '`+h.audit+`'`)
	pre := hook(t, dir, "pre.sh", `s=$(jq -r '.tool_input | tostring')
case "$s" in
  *"rm -rf"*|*DENYME*) d=deny r='`+denyReason+`' ;;
  *ASKME*) d=ask r='`+askReason+`' ;;
  *) d=allow r='' ;;
esac
jq -n --arg d "$d" --arg r "$r" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: $d, permissionDecisionReason: $r}}'`)
	stop := hook(t, dir, "stop.sh", `cat >/dev/null
if [ -f '`+h.stopFlag+`' ]; then rm -f '`+h.stopFlag+`'; jq -n '{decision: "block", reason: "`+stopReason77+`"}'; fi
exit 0`)
	gate := hook(t, dir, "gate.sh", `jq -e '.prompt | test("`+secret+`")' >/dev/null && { echo "no secrets here" >&2; exit 2; }; exit 0`)
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"), []byte(settings(
		[3]string{"PreToolUse", "", audit}, [3]string{"PreToolUse", "", pre},
		[3]string{"PostToolUse", "", audit},
		[3]string{"Stop", "", audit}, [3]string{"Stop", "", stop},
		[3]string{"UserPromptSubmit", "", audit}, [3]string{"UserPromptSubmit", "", gate},
	)), 0o600))
	return h
}

// writeClaudeHook gives the project a PreToolUse hook of Claude Code's own,
// in .claude/settings.json: Claude Code runs it, the proxy must not (it
// would run twice).
func (h *matrixHooks) writeClaudeHook(t *testing.T, project string) {
	t.Helper()
	dir := t.TempDir()
	h.claudeAudit = filepath.Join(dir, "claude-audit.jsonl")
	own := hook(t, dir, "claude-audit.sh", `jq -c '{tool: .tool_name, input: (.tool_input | tostring)}' >> '`+h.claudeAudit+`'`)
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(settings([3]string{"PreToolUse", "", own})), 0o600))
}

// claudeRuns returns the lines of Claude Code's own hook whose input contains s.
func (h matrixHooks) claudeRuns(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(readFile(t, h.claudeAudit), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// auditLine is one line the audit hook appended.
type auditLine struct {
	Event    string `json:"event"`
	Tool     string `json:"tool"`
	Input    string `json:"input"`
	Response string `json:"response"`
	Session  string `json:"session"`
}

// runs returns the audit lines of one event whose tool input contains s.
func (h matrixHooks) runs(t *testing.T, event, s string) []auditLine {
	t.Helper()
	var out []auditLine
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, h.audit)), "\n") {
		if line == "" {
			continue
		}
		var a auditLine
		require.NoError(t, json.Unmarshal([]byte(line), &a), "%q", line)
		if a.Event == event && strings.Contains(a.Input, s) {
			out = append(out, a)
		}
	}
	return out
}

// stopRuns counts the Stop hook's runs for one session.
func (h matrixHooks) stopRuns(t *testing.T, session string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, h.audit)), "\n") {
		var a auditLine
		if line != "" && json.Unmarshal([]byte(line), &a) == nil && a.Event == "Stop" && a.Session == session {
			n++
		}
	}
	return n
}

// knownGap ends the case with a skip that names an open gap of issue #26
// when ok is false (the behaviour does not hold today), and fails it when
// ok is true: the gap is closed, and the fix must turn this into a require.
func knownGap(t *testing.T, ok bool, gap string, args ...any) {
	t.Helper()
	msg := "KNOWN GAP #26 " + fmt.Sprintf(gap, args...)
	if ok {
		t.Fatalf("%s — this now holds: replace the knownGap call with a require", msg)
	}
	t.Skip(msg)
}

// exists says whether a path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// toolFailure is the text of the last failed tool call update the editor
// got, to say why an agent refused a tool itself.
func (r *rig) toolFailure(tool string) string {
	last := tool + " failed with no message"
	for _, u := range r.updates("tool_call_update") {
		if u["status"] == "failed" {
			if c, ok := u["content"].([]any); ok && len(c) > 0 {
				last = mustJSON(c[0])
				if text, ok := c[0].(map[string]any)["content"].(map[string]any)["text"].(string); ok {
					last = text
				}
			}
		}
	}
	return last
}

// countNoted counts the editor-received messages of a method.
func (r *rig) countNoted(method string) int { return len(r.noted(method)) }

// newSession opens one more session on the rig's agent, in the project.
func (r *rig) newSession() (string, map[string]any) {
	r.t.Helper()
	res := r.call("session/new", map[string]any{"cwd": r.project, "mcpServers": []any{}})
	require.Nil(r.t, res.Error, "session/new: %s", res.Line)
	var out map[string]any
	require.NoError(r.t, json.Unmarshal(res.Result, &out))
	return out["sessionId"].(string), out
}

// initialize runs the editor's initialize with file and terminal capabilities.
func (r *rig) initialize(capabilities map[string]any) map[string]any {
	r.t.Helper()
	init := r.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": capabilities,
		"clientInfo": map[string]string{"name": "wavehooks-test", "version": "1"}})
	require.Nil(r.t, init.Error, "initialize: %s", init.Line)
	var out map[string]any
	require.NoError(r.t, json.Unmarshal(init.Result, &out))
	return out
}
