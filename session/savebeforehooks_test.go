package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// With Options.SaveBeforeHooks (the ACP proxy's store), a change no hook
// reads stays in memory; an event whose hooks may run writes everything
// first, so its hook reads the whole conversation; Flush and Close write
// what is left.
func TestSaveBeforeHooks(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen.json")
	e := newEnv(t, session.FormatJSON, hook{event: event.PostToolUse, matcher: "Bash", command: sh("transcript.sh", seen)})
	st, err := session.NewStore(session.Options{WaveHome: e.home, ProjectRoot: e.root, Firer: e.engine, SaveBeforeHooks: true})
	require.NoError(t, err)
	s, err := st.Create("")
	require.NoError(t, err)
	ctx := context.Background()

	_, err = s.UserPromptSubmit(ctx, "list the files") // no UserPromptSubmit hook
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Reading."},
		session.ToolBlock(session.Tool{ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/p/a"}`)})}))
	_, err = s.PostToolUse(ctx, "t1", "Read", json.RawMessage(`{"file_path":"/p/a"}`), json.RawMessage(`"a"`)) // matches no hook
	require.NoError(t, err)
	require.Empty(t, fileMessages(t, s), "nothing a hook reads was written yet")

	require.NoError(t, s.AddAssistantMessage([]session.Block{session.ToolBlock(session.Tool{ID: "t2", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)})}))
	_, err = s.PostToolUse(ctx, "t2", "Bash", json.RawMessage(`{"command":"ls"}`), json.RawMessage(`"a b"`))
	require.NoError(t, err)
	var hookSaw []map[string]any
	data, err := os.ReadFile(seen)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &hookSaw))
	require.Len(t, hookSaw, 3, "the hook read the prompt, both assistant messages: %v", hookSaw)
	require.Equal(t, "list the files", hookSaw[0]["blocks"].([]any)[0].(map[string]any)["content"])
	require.Len(t, fileMessages(t, s), 3)

	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Done."}}))
	require.Len(t, fileMessages(t, s), 3, "the last message waits for Flush")
	require.NoError(t, s.Flush())
	require.Len(t, fileMessages(t, s), 4)

	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Bye."}}))
	path := s.TranscriptPath()
	require.NoError(t, st.Close())
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"Bye."`, "closing the store wrote what was left")
	require.ErrorIs(t, s.Flush(), session.ErrClosed)
}

// Another process's change to a file whose session keeps changes unwritten
// does not take them away: the session's state is written whole.
func TestSaveBeforeHooksKeepsItsStateOverAnotherWriter(t *testing.T) {
	e := newEnv(t, session.FormatJSON)
	st, err := session.NewStore(session.Options{WaveHome: e.home, ProjectRoot: e.root, Firer: e.engine, SaveBeforeHooks: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	s, err := st.Create("")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "one"}}))
	require.NoError(t, s.Flush())
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "two"}}))
	data, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.TranscriptPath(), append(data, ' '), 0o600)) // another writer
	require.NoError(t, s.Flush())
	msgs := fileMessages(t, s)
	require.Len(t, msgs, 2)
	require.Equal(t, "two", msgs[1].Blocks[0].Content)
}

// wrongPlanner is the real engine with MayRun saying no: how a reload
// between an event's start and its hooks looks to the session (the
// configuration gained a hook after the session asked).
type wrongPlanner struct{ *hooks.Engine }

func (wrongPlanner) MayRun(event.Input) bool { return false }

// Even when the hooks that run were not expected when the event began, they
// read the whole conversation: the session writes it as they start.
func TestSaveBeforeHooksWritesAsHooksStart(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen.json")
	e := newEnv(t, session.FormatJSON, hook{event: event.Stop, command: sh("transcript.sh", seen)})
	st, err := session.NewStore(session.Options{WaveHome: e.home, ProjectRoot: e.root, Firer: wrongPlanner{e.engine}, SaveBeforeHooks: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	s, err := st.Create("")
	require.NoError(t, err)
	_, err = s.UserPromptSubmit(context.Background(), "hello")
	require.NoError(t, err)
	require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockText, Content: "Hi."}}))
	_, err = s.Stop(context.Background())
	require.NoError(t, err)
	data, err := os.ReadFile(seen)
	require.NoError(t, err)
	var hookSaw []map[string]any
	require.NoError(t, json.Unmarshal(data, &hookSaw))
	require.Len(t, hookSaw, 2, "the Stop hook read the prompt and the reply: %s", data)
}
