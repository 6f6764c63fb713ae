package session

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// applyDelta is what an editor does with a delta: keep the messages before
// From, then take the delta's.
func applyDelta(have []Message, d Delta) []Message {
	return append(append([]Message{}, have[:d.From]...), d.Messages...)
}

// TestDeltasRebuildTheConversation: an editor that applies every delta, or
// only some now and then (deltas coalesce), always ends up with the session's
// messages; a delta reaches back only as far as the change did.
func TestDeltasRebuildTheConversation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	st, err := NewStore(Options{WaveHome: t.TempDir()})
	require.NoError(t, err)
	defer st.Close()
	s, err := st.Create("delta-1")
	require.NoError(t, err)
	require.Zero(t, s.FirstVersion(), "a new session starts empty at version 0")
	var ids []string
	mirror := []Message{}
	seen := s.FirstVersion()
	for step := 0; step < 400; step++ {
		s.mu.Lock()
		before := len(s.conv.msgs)
		op := randomChange(rng, s.conv, &ids)
		dirty := min(s.conv.dirty, len(s.conv.msgs), before)
		require.NoError(t, s.save())
		s.mu.Unlock()
		if rng.IntN(3) == 0 {
			continue // this change is picked up with the next
		}
		d, ok := s.ChangesSince(seen)
		if !ok {
			require.Equal(t, mirror, s.Messages(), "step %d (%s): no delta, nothing changed", step, op)
			continue
		}
		require.Equal(t, seen, d.Since)
		require.Greater(t, d.Version, seen)
		if dirty != clean && dirty <= before {
			require.LessOrEqual(t, d.From, dirty, "step %d (%s)", step, op)
		}
		mirror = applyDelta(mirror, d)
		seen = d.Version
		require.Equal(t, s.Messages(), mirror, "step %d (%s)", step, op)
	}
	if d, ok := s.ChangesSince(seen); ok {
		mirror, seen = applyDelta(mirror, d), d.Version
	}
	require.Equal(t, s.Messages(), mirror)
	_, ok := s.ChangesSince(seen)
	require.False(t, ok)

	// A version older than the changes the session remembers gets everything.
	for i := 0; i < maxChanges+1; i++ {
		s.mu.Lock()
		s.conv.addUser(Block{Type: BlockText, Content: "more"})
		require.NoError(t, s.save())
		s.mu.Unlock()
	}
	d, ok := s.ChangesSince(seen)
	require.True(t, ok)
	require.Zero(t, d.From)
	require.Equal(t, s.Messages(), d.Messages)

	// A prompt that only adds itself is a change too.
	v, _ := s.Snapshot()
	_, err = s.UserPromptSubmit(context.Background(), "just the prompt")
	require.NoError(t, err)
	d, ok = s.ChangesSince(v)
	require.True(t, ok)
	require.Len(t, d.Messages, 1)
	require.Equal(t, "just the prompt", d.Messages[0].Blocks[0].Content)

	// Another process's edit replaces the conversation: the delta is whole.
	v, _ = s.Snapshot()
	path := s.TranscriptPath()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+".new", data[:len(data)-len(jsonFoot)], 0o600))
	s.mu.Lock()
	last := s.conv.msgs[len(s.conv.msgs)-1]
	s.mu.Unlock()
	enc, err := encodeJSON(last)
	require.NoError(t, err)
	edited := append(append(append([]byte{}, data[:len(data)-len(jsonFoot)]...), jsonSep...), enc...)
	require.NoError(t, os.WriteFile(path+".new", append(edited, jsonFoot...), 0o600))
	require.NoError(t, os.Rename(path+".new", path))
	_, changed, err := st.ExternalChange(path)
	require.NoError(t, err)
	require.True(t, changed)
	d, ok = s.ChangesSince(v)
	require.True(t, ok)
	require.Zero(t, d.From)
	require.Equal(t, s.Messages(), d.Messages)

	// Opened again, the session starts at a version above all it had; an
	// editor that saw an older version of it gets the whole conversation.
	require.NoError(t, s.Close())
	s2, err := st.Open("delta-1")
	require.NoError(t, err)
	require.Greater(t, s2.FirstVersion(), d.Version)
	_, ok = s2.ChangesSince(s2.FirstVersion())
	require.False(t, ok, "nothing changed since it was opened")
	d, ok = s2.ChangesSince(d.Version)
	require.True(t, ok)
	require.Zero(t, d.From)
	require.Equal(t, s2.Messages(), d.Messages)
}
