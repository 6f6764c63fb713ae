package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
	"github.com/wavehooks/wavehooks/session"
)

// scripts is the absolute path of testdata/session/hooks, the hook scripts
// the tests configure.
var scripts = func() string {
	p, err := filepath.Abs("../testdata/session/hooks")
	if err != nil {
		panic(err)
	}
	return p
}()

// hook is one configured hook command, usually built with sh.
type hook struct {
	event   event.Event
	command string
	timeout float64 // seconds; 0 means the default
	matcher string
}

// sh builds the command line that runs a script of testdata/session/hooks
// with quoted arguments: sh("respond.sh", "2", "", "bad").
func sh(script string, args ...string) string {
	parts := []string{"sh", quote(filepath.Join(scripts, script))}
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// env is a WAVE_HOME with a settings.json, a project root, the real hook
// engine and a store.
type env struct {
	home, root string
	engine     *hooks.Engine
	store      *session.Store
}

func newEnv(t *testing.T, format session.Format, hs ...hook) *env {
	t.Helper()
	e := &env{home: t.TempDir(), root: t.TempDir()}
	byEvent := map[string][]any{}
	for _, h := range hs {
		cmd := map[string]any{"type": "command", "command": h.command}
		if h.timeout > 0 {
			cmd["timeout"] = h.timeout
		}
		byEvent[string(h.event)] = append(byEvent[string(h.event)],
			map[string]any{"matcher": h.matcher, "hooks": []any{cmd}})
	}
	settingsJSON, err := json.MarshalIndent(map[string]any{"hooks": byEvent, "transcriptFormat": string(format)}, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "settings.json"), settingsJSON, 0o644))
	cfg := settings.Load(settings.Paths{WaveHome: e.home, ProjectRoot: e.root}, nil)
	require.Empty(t, cfg.Diagnostics(), "test settings must be valid")
	e.engine = hooks.NewEngine(cfg)
	e.store = e.newStore(t, session.Format(cfg.TranscriptFormat))
	return e
}

// newStore opens another store on the same WAVE_HOME, as a restarted server would.
func (e *env) newStore(t *testing.T, format session.Format) *session.Store {
	t.Helper()
	st, err := session.NewStore(session.Options{WaveHome: e.home, ProjectRoot: e.root, Format: format, Firer: e.engine})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

func (e *env) create(t *testing.T) *session.Session {
	t.Helper()
	s, err := e.store.Create("")
	require.NoError(t, err)
	return s
}

// blocksOf lists the blocks of one type in the conversation.
func blocksOf(msgs []session.Message, typ string) []session.Block {
	var out []session.Block
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if b.Type == typ {
				out = append(out, b)
			}
		}
	}
	return out
}

func contents(bs []session.Block) []string {
	out := []string{}
	for _, b := range bs {
		out = append(out, b.Content)
	}
	return out
}

// roles lists "role:type,type" per message, a compact picture of a conversation.
func roles(msgs []session.Message) []string {
	out := []string{}
	for _, m := range msgs {
		types := make([]string, len(m.Blocks))
		for i, b := range m.Blocks {
			types[i] = b.Type
		}
		out = append(out, m.Role+":"+strings.Join(types, ","))
	}
	return out
}

// fileMessages reads the messages from the session file the way docs/hooks.md's
// acceptance test does: `jq '.state.messages'`.
func fileMessages(t *testing.T, s *session.Session) []session.Message {
	t.Helper()
	data, err := os.ReadFile(s.TranscriptPath())
	require.NoError(t, err)
	var f struct {
		State struct {
			Messages []session.Message `json:"messages"`
		} `json:"state"`
	}
	require.NoError(t, json.Unmarshal(data, &f), "session file must be valid JSON:\n%s", data)
	return f.State.Messages
}

func ptr[T any](v T) *T { return &v }
