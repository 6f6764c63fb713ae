package lsp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/lsp"
)

// mirror is an editor's copy of one session, kept up to date from
// wave/sessionChanged deltas, and from wave/getSession when a delta does not
// follow on from its version.
type mirror struct {
	version  uint64
	messages []lsp.Message
	fetches  int
}

func (m *mirror) fetch(t *testing.T, e *editor, sid string) {
	t.Helper()
	var got lsp.GetSessionResult
	require.NoError(t, e.call("wave/getSession", map[string]any{"sessionId": sid}, &got))
	if got.Version >= m.version {
		m.version, m.messages = got.Version, got.Messages
	}
	m.fetches++
}

func (m *mirror) apply(t *testing.T, e *editor, sid string, p lsp.SessionChangedParams) {
	t.Helper()
	switch {
	case p.Version <= m.version:
		// already known (a fetch got ahead of it)
	case p.Full:
		m.version, m.messages = p.Version, p.Messages
	case p.Since == m.version && p.From <= len(m.messages):
		m.version, m.messages = p.Version, append(m.messages[:p.From:p.From], p.Messages...)
	default:
		m.fetch(t, e, sid)
	}
}

// sessionChanges returns the wave/sessionChanged notifications of a session from index n on.
func (e *editor) sessionChanges(sid string, n int) []lsp.SessionChangedParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []lsp.SessionChangedParams
	for _, x := range e.notifications {
		if x.Method != "wave/sessionChanged" {
			continue
		}
		var p lsp.SessionChangedParams
		if json.Unmarshal(x.Params, &p) == nil && p.SessionID == sid {
			out = append(out, p)
		}
	}
	if n > len(out) {
		return nil
	}
	return out[n:]
}

// TestSessionChangedCarriesOnlyTheChange drives a session through prompts
// (one erased by its hook), tool calls and replies, and keeps an editor's
// copy from the notifications alone: every change is announced (a prompt
// that only adds itself too), each notification carries the messages from
// the first one that changed, and the copy always ends equal to
// wave/getSession, without asking for it.
func TestSessionChangedCarriesOnlyTheChange(t *testing.T) {
	e := startEditor(t, editorOpts{settings: hookSettings(map[string][]string{
		"UserPromptSubmit": {`jq -e '.prompt | test("secret")' >/dev/null && { echo "no secrets" >&2; exit 2; }; exit 0`},
		"PostToolUse":      {"$SCRIPTS/post-context.sh"},
	})})
	sid, _ := e.startSession()
	var m mirror
	seen := 0
	catchUp := func(what string) []lsp.SessionChangedParams {
		t.Helper()
		var got lsp.GetSessionResult
		require.NoError(t, e.call("wave/getSession", map[string]any{"sessionId": sid}, &got))
		var fresh []lsp.SessionChangedParams
		require.Eventually(t, func() bool {
			for _, p := range e.sessionChanges(sid, seen) {
				m.apply(t, e, sid, p)
				fresh = append(fresh, p)
				seen++
			}
			return m.version == got.Version
		}, 10e9, 5e6, "%s: the copy never reached version %d (at %d)", what, got.Version, m.version)
		require.Equal(t, got.Messages, m.messages, what)
		return fresh
	}

	before := len(m.messages)
	e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "hello"})
	fresh := catchUp("a prompt with no context")
	require.Len(t, fresh, 1, "a prompt that only adds itself is announced")
	require.Equal(t, before, fresh[0].From)
	require.Len(t, fresh[0].Messages, 1)

	for turn := 0; turn < 30; turn++ {
		id := fmt.Sprintf("toolu_%d", turn)
		before := len(m.messages)
		e.mustCall("wave/addAssistantMessage", map[string]any{"sessionId": sid, "blocks": []any{
			map[string]any{"type": "text", "content": "Let me look."},
			map[string]any{"type": "tool", "id": id, "name": "Bash", "input": map[string]any{"command": "ls"}}}})
		e.mustCall("wave/preToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Bash", "toolInput": map[string]any{"command": "ls"}})
		e.mustCall("wave/postToolUse", map[string]any{"sessionId": sid, "toolUseId": id, "toolName": "Bash",
			"toolInput": map[string]any{"command": "ls"}, "toolResponse": "a.go"})
		for _, p := range catchUp(fmt.Sprintf("turn %d", turn)) {
			require.GreaterOrEqual(t, p.From, before, "turn %d: a turn resends nothing from before it", turn)
			require.False(t, p.Full && before > 0)
		}
	}

	before = len(m.messages)
	res := e.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "my secret"})
	require.Equal(t, true, res["blocked"])
	catchUp("an erased prompt")
	require.Len(t, m.messages, before+1, "the prompt is gone; the error block stays")
	require.NotContains(t, mustJSON(m.messages), "my secret")
	require.Zero(t, m.fetches, "the copy never needed wave/getSession")

	// A new connection that resumes the session: deltas start from the
	// version wave/getSession reports.
	e2 := startEditor(t, editorOpts{home: e.home, root: e.root})
	var got lsp.GetSessionResult
	require.NoError(t, e2.call("wave/getSession", map[string]any{"sessionId": sid}, &got))
	e2.mustCall("wave/userPromptSubmit", map[string]any{"sessionId": sid, "prompt": "resumed"})
	var p lsp.SessionChangedParams
	require.Eventually(t, func() bool {
		ch := e2.sessionChanges(sid, 0)
		if len(ch) > 0 {
			p = ch[0]
		}
		return len(ch) > 0
	}, 10e9, 5e6)
	require.Equal(t, got.Version, p.Since)
	require.Equal(t, len(got.Messages), p.From)
	require.True(t, strings.Contains(mustJSON(p.Messages), "resumed"))
}
