package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wavehooks/wavehooks/internal/acpmsg"
)

// Issue #26 item 4: when a session opens in a project whose own hooks wait
// for trust, the proxy asks through the editor, once per project: a
// session/request_permission of its own that lists what would run (the
// listing `wavehooks trust` shows, escaped), with "Trust" and "Not now".
// "Trust" is kept in the trust store and the hooks run from then on; "Not
// now" leaves them off and is not asked again. Either way the editor is
// told how to trust from a terminal.
func TestTrustIsAskedThroughTheEditor(t *testing.T) {
	for _, c := range []struct {
		name    string
		answer  string
		change  bool // the settings change while the user is asked
		trusted bool
	}{
		{name: "trust", answer: "trust", trusted: true},
		{name: "not now", answer: "not-now", trusted: false},
		{name: "trust what changed meanwhile", answer: "trust", change: true, trusted: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, project := t.TempDir(), t.TempDir()
			ran := filepath.Join(dir, "ran")
			h := hook(t, dir, "ups.sh", `jq -r .prompt >> `+ran)
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".wave"), 0o700))
			// A second hook whose command holds a terminal escape (clear
			// screen): the question shows it escaped, never sends it raw.
			cfg := settings([3]string{"UserPromptSubmit", "", h}, [3]string{"Stop", "", "true \x1b[2J"})
			require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"), []byte(cfg), 0o600))
			r := startRig(t, rigOptions{project: project, fixed: true, script: `{"every": [{"stop":"end_turn"}]}`})
			r.answer = func(m *testMsg) any {
				if m.Method == methodRequestPermission {
					if c.change {
						changed := settings([3]string{"UserPromptSubmit", "", h}, [3]string{"Stop", "", "true ADDED"})
						require.NoError(t, os.WriteFile(filepath.Join(project, ".wave", "settings.json"), []byte(changed), 0o600))
					}
					return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": c.answer}}
				}
				return r.defaultAnswer(m)
			}
			sess := r.handshake()
			// The question comes after the session/new answer, beside the
			// session's work; the first prompt may pass before it is answered.
			for len(r.noted(methodRequestPermission)) == 0 {
				require.NotNil(t, r.read(), "the proxy asked before it ended")
			}
			asked := r.noted(methodRequestPermission)
			require.Len(t, asked, 1)
			var q struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					Title   string `json:"title"`
					Content []struct {
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"content"`
				} `json:"toolCall"`
				Options []acpmsg.PermissionOption `json:"options"`
			}
			require.NoError(t, json.Unmarshal(asked[0].Params, &q))
			require.Equal(t, sess, q.SessionID)
			require.Equal(t, "Trust the hooks of "+project+"?", q.ToolCall.Title)
			require.Equal(t, []acpmsg.PermissionOption{{OptionID: "trust", Name: "Trust", Kind: "allow_always"},
				{OptionID: "not-now", Name: "Not now", Kind: "reject_once"}}, q.Options)
			require.Len(t, q.ToolCall.Content, 1)
			listing := q.ToolCall.Content[0].Content.Text
			require.Contains(t, listing, "Commands it runs on your machine:")
			require.Contains(t, listing, h, "the listing names the hook's command")
			require.Contains(t, listing, `true \u001b[2J`, "an escape in a command is shown escaped")
			require.NotContains(t, asked[0].Line, `\u001b[2J"`, "the raw escape is not in the question")
			require.Contains(t, strings.Join(r.chunkTexts(), ""), "`wavehooks trust --project "+project+"`",
				"the editor is told how to trust from a terminal")

			// The proxy says how the answer ended, once it is in force.
			switch {
			case c.trusted:
				for !strings.Contains(strings.Join(r.chunkTexts(), ""), "its hooks run from now on") {
					require.NotNil(t, r.read())
				}
			case c.change:
				for !strings.Contains(strings.Join(r.chunkTexts(), ""), "changed while you were asked") {
					require.NotNil(t, r.read())
				}
			}
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess, "AFTER-THE-ANSWER")))
			require.Equal(t, c.trusted, strings.Contains(readFile(t, ran), "AFTER-THE-ANSWER"), "the hooks run once trusted, not before")
			store := readFile(t, filepath.Join(r.home, "trusted-workspaces.json"))
			if !c.change {
				require.Equal(t, c.trusted, strings.Contains(store, project), "the answer is kept in the trust store: %s", store)
			}

			sess2, _ := r.newSession()
			require.Equal(t, "end_turn", stopReason(t, r.prompt(sess2, "SECOND-SESSION")))
			require.Len(t, r.noted(methodRequestPermission), 1, "the project is asked about once")
			require.Equal(t, c.trusted, strings.Contains(readFile(t, ran), "SECOND-SESSION"))
		})
	}
}
