package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/session"
)

// TestFailedSaveTakesTheChangeBack: when a change cannot be saved (here the
// sessions directory is replaced by a file, which stops root as well as
// everyone else), the caller gets an error and the change is taken back.
// Otherwise the next save that succeeds would write it: a prompt whose
// UserPromptSubmit hooks never ran would reach the model, and an editor
// that retried would see its message twice.
func TestFailedSaveTakesTheChangeBack(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			home := t.TempDir()
			st, err := session.NewStore(session.Options{WaveHome: home, Format: format})
			require.NoError(t, err)
			defer st.Close()
			s, err := st.Create("")
			require.NoError(t, err)
			ctx := context.Background()
			_, err = s.UserPromptSubmit(ctx, "acknowledged prompt")
			require.NoError(t, err)
			require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "acknowledged answer"},
				session.ToolBlock(session.Tool{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)})}))
			before := s.Messages()

			dir := filepath.Join(home, "sessions")
			require.NoError(t, os.Rename(dir, dir+".aside"))
			require.NoError(t, os.WriteFile(dir, nil, 0o644))

			_, err = s.UserPromptSubmit(ctx, "never acknowledged")
			require.Error(t, err)
			require.Error(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "never acknowledged"}}))
			_, err = s.PostToolUse(ctx, "t1", "Bash", json.RawMessage(`{"command":"ls"}`), json.RawMessage(`"never acknowledged"`))
			require.Error(t, err)
			_, err = s.PreToolUse(ctx, "t2", "Read", json.RawMessage(`{"file_path":"/x"}`), nil)
			require.Error(t, err)
			require.Equal(t, before, s.Messages(), "a change that was not saved stays in the session")

			require.NoError(t, os.Remove(dir))
			require.NoError(t, os.Rename(dir+".aside", dir))
			require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "after"}}))
			require.NoError(t, s.Close())

			st2, err := session.NewStore(session.Options{WaveHome: home})
			require.NoError(t, err)
			defer st2.Close()
			s2, err := st2.Open(s.ID())
			require.NoError(t, err)
			var texts []string
			for _, m := range s2.Messages() {
				for _, b := range m.Blocks {
					texts = append(texts, b.Content+b.Tool().Result)
				}
			}
			require.NotContains(t, texts, "never acknowledged")
			require.Contains(t, texts, "acknowledged prompt")
			require.Contains(t, texts, "after")
		})
	}
}
