package session_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/session"
)

// AddWarning records a warn block: in the assistant message after the
// agent's text, on disk at once.
func TestAddWarning(t *testing.T) {
	st, err := session.NewStore(session.Options{WaveHome: t.TempDir(), ProjectRoot: t.TempDir()})
	require.NoError(t, err)
	defer st.Close()
	s, err := st.Create("warn-1")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "reading"}}))
	b, err := s.AddWarning("Read ran without a permission request")
	require.NoError(t, err)
	require.Equal(t, session.Block{Type: session.BlockWarn, Content: "Read ran without a permission request"}, b)

	data, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	var f struct {
		State struct {
			Messages []session.Message `json:"messages"`
		} `json:"state"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Len(t, f.State.Messages, 1)
	require.Equal(t, []session.Block{{Type: session.BlockText, Content: "reading"}, b}, f.State.Messages[0].Blocks)
}
