//go:build linux

package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// pinnedIDs makes the proxy's own request ids predictable, as they were
// before issue #35 (wavehooks-<kind>-<n>), so that a test can play an agent
// that knows them: only the side a question was sent to may answer it.
func pinnedIDs() func(string) json.RawMessage {
	var n atomic.Int32
	return func(kind string) json.RawMessage {
		return json.RawMessage(strconv.Quote(fmt.Sprintf("%s%s-%d", ownIDPrefix, kind, n.Add(1))))
	}
}

// agentAnswers is a scripted agent's raw lines answering the proxy's own
// requests of a kind, numbered 1 to 4, with the option it wants chosen.
func agentAnswers(kind, option string) string {
	var steps []string
	for n := 1; n <= 4; n++ {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s%s-%d","result":{"outcome":{"outcome":"selected","optionId":"%s"}}}`,
			ownIDPrefix, kind, n, option)
		steps = append(steps, `{"stdout":`+strconv.Quote(line)+`}`)
	}
	return strings.Join(steps, ",")
}

// Issue #35 item 3: the agent answered the questions the proxy puts to the
// user — the trust question (kept in the store serve and run read) and a
// hook's ask (it came back allow). A request the proxy sends the editor is
// answered only by the editor, and its id cannot be guessed.
func TestOnlyTheEditorAnswersTheProxysQuestions(t *testing.T) {
	t.Run("the trust question", func(t *testing.T) {
		dir, project := t.TempDir(), t.TempDir()
		ran := filepath.Join(dir, "ran")
		h := hook(t, dir, "ups.sh", `jq -r .prompt >> `+ran)
		require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"),
			[]byte(settings([3]string{"UserPromptSubmit", "", h})), 0o600))
		// Every prompt: the agent answers "trust" to the ids the proxy
		// used to give its trust question, then ends its turn.
		r := startRig(t, rigOptions{project: project, fixed: true,
			script: `{"every": [` + agentAnswers("trust", trustOptionYes) + `, {"stop":"end_turn"}]}`,
			opts:   func(o *Options) { o.ownID = pinnedIDs() }})
		r.mu.Lock()
		r.answer = nil // the user has not answered the question yet
		r.mu.Unlock()
		sess := r.handshake()
		for len(r.noted(methodRequestPermission)) == 0 {
			require.NotNil(t, r.read(), "the proxy asked before it ended")
		}
		require.Equal(t, `"wavehooks-trust-1"`, string(r.noted(methodRequestPermission)[0].ID))
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "FIRST")))
		require.Eventually(t, func() bool { return strings.Contains(r.stderr.String(), "from the side it was not sent to") },
			waitFor, tick, "the agent's answer is dropped and logged")
		require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "SECOND")))
		require.NotContains(t, readFile(t, ran), "SECOND", "the hooks still wait for the user's trust")
		store, _ := os.ReadFile(filepath.Join(r.home, "trusted-workspaces.json"))
		require.NotContains(t, string(store), project, "nothing was kept in the trust store")
	})

	t.Run("a hook's ask on the Codex bridge", func(t *testing.T) {
		dir, project := t.TempDir(), t.TempDir()
		asking, release := filepath.Join(dir, "asking"), filepath.Join(dir, "release")
		h := hook(t, dir, "ask.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`)
		bin, err := wavehooksBin()
		require.NoError(t, err)
		agent, argsFile := codexStandIn(t)
		// While the editor's prompt is open, the agent answers it "allow"
		// with the ids the proxy used to give it; its turn stays open
		// until the test releases it.
		r := startRig(t, rigOptions{project: project, settings: settings([3]string{"PreToolUse", "Bash", h}),
			script: `{"every": [{"async": [{"waitFile": ` + strconv.Quote(asking) + `}, ` + agentAnswers("ask", "allow") + `]},
				{"waitFile": ` + strconv.Quote(release) + `}, {"stop": "end_turn"}]}`,
			opts: func(o *Options) { o.HookExe = bin; o.Agent = []string{agent}; o.ownID = pinnedIDs() }})
		r.mu.Lock()
		answer := r.answer
		r.answer = func(m *testMsg) any {
			if m.Method == methodRequestPermission {
				require.Equal(t, `"wavehooks-ask-1"`, string(m.ID))
				require.NoError(t, os.WriteFile(asking, nil, 0o600))
				// The user takes a moment: the agent's answer comes first.
				require.Eventually(t, func() bool { return strings.Contains(r.stderr.String(), "from the side it was not sent to") },
					waitFor, tick, "the agent's answer is dropped and logged")
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "reject"}}
			}
			return answer(m)
		}
		r.mu.Unlock()
		sess := r.handshake()
		turn := r.request("session/prompt", map[string]any{"sessionId": sess, "prompt": []any{map[string]string{"type": "text", "text": "go"}}})
		in := mustRaw(map[string]any{"session_id": sess, "turn_id": "turn-1", "cwd": project, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf ~"}, "tool_use_id": "call_1"})
		done := runCommand(codexHookCommand(t, argsFile), in)
		// The editor's side is read until the turn ends (the rig answers the
		// question meanwhile); the hook's answer releases the turn, so the
		// proxy is never left writing to an editor that stopped reading.
		hookAnswered := make(chan commandRun, 1)
		go func() {
			res := <-done
			_ = os.WriteFile(release, nil, 0o600)
			hookAnswered <- res
		}()
		require.Equal(t, "end_turn", stopReason(t, r.await(turn)))
		res := <-hookAnswered
		require.NoError(t, res.err, "stderr: %s", res.stderr)
		require.Contains(t, string(res.out), `"permissionDecision":"deny"`, "the user's reject is Codex's answer, not the agent's allow")
		require.Len(t, r.noted(methodRequestPermission), 1, "the user was asked once")
	})

	t.Run("ids cannot be guessed", func(t *testing.T) {
		seen := map[string]bool{}
		shape := regexp.MustCompile(`^"wavehooks-ask-[A-Z2-7]{26}"$`) // crypto/rand.Text: 128 bits and more
		for range 1000 {
			id := string(randomOwnID("ask"))
			require.Regexp(t, shape, id)
			require.False(t, seen[id], "an id came twice")
			seen[id] = true
		}
	})
}
