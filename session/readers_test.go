package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/session"
)

// Parallel tool calls fire events on one session at once: a hook of one
// event reads the transcript while another event writes it. The hook must
// never see half a write (docs/performance.md, "Saves while a hook runs").
func TestAHookNeverReadsAHalfWrittenTranscriptOfAParallelEvent(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			stop := filepath.Join(t.TempDir(), "stop")
			e := newEnv(t, format, hook{event: event.PreToolUse, matcher: "Read", command: sh("read-until.sh", stop)})
			s := e.create(t)
			ctx := context.Background()
			_, err := s.UserPromptSubmit(ctx, "edit everything")
			require.NoError(t, err)

			type result struct {
				out session.Outcome
				err error
			}
			reader := make(chan result, 1)
			go func() {
				out, err := s.PreToolUse(ctx, "toolu_read", "Read", json.RawMessage(`{"file_path":"a.txt"}`), nil)
				reader <- result{out, err}
			}()
			require.Eventually(t, func() bool { _, err := os.Stat(stop + ".started"); return err == nil },
				10*time.Second, 5*time.Millisecond, "the reading hook starts")

			// Large messages, added and then rewritten in place by a tool
			// result: an append and an overwrite, the two writes the store makes.
			big := strings.Repeat("x", 400_000)
			for i := range 30 {
				id := fmt.Sprintf("toolu_w%d", i)
				input, err := json.Marshal(map[string]string{"file_path": id, "content": big})
				require.NoError(t, err)
				require.NoError(t, s.AddAssistantMessage([]session.Block{session.ToolBlock(session.Tool{ID: id, Name: "Write", Input: input})}))
				_, err = s.PostToolUse(ctx, id, "Write", input, json.RawMessage(`{"ok":true}`))
				require.NoError(t, err)
			}
			require.NoError(t, os.WriteFile(stop, nil, 0o644))

			r := <-reader
			require.NoError(t, r.err)
			require.Equal(t, string(hooks.PermissionAllow), r.out.Permission, "the reading hook saw a torn file: %s", r.out.Reason)
			reads, err := os.ReadFile(stop + ".reads")
			require.NoError(t, err)
			n, err := strconv.Atoi(strings.TrimSpace(string(reads)))
			require.NoError(t, err)
			require.Positive(t, n, "the hook read the transcript while the writes went on")

			// Every write is there once the writes end.
			data, err := os.ReadFile(s.TranscriptPath())
			require.NoError(t, err)
			if format == session.FormatJSON {
				require.Len(t, fileMessages(t, s), len(s.Messages()))
			} else {
				lines := strings.Split(strings.TrimSpace(string(data)), "\n")
				for _, l := range lines {
					require.True(t, json.Valid([]byte(l)), "a jsonl line is not JSON")
				}
				require.Len(t, lines, len(s.APIMessages()))
			}
		})
	}
}

// While a hook of the session runs, the session writes its transcript
// through a copy renamed over it, never in place: the file a hook opened
// stays whole and unchanged under it, however the conversation grows
// meanwhile (the session hands its gate to the engine with every event).
func TestATranscriptAHookHoldsOpenIsNeverWrittenUnderIt(t *testing.T) {
	for _, format := range []session.Format{session.FormatJSON, session.FormatJSONL} {
		t.Run(string(format), func(t *testing.T) {
			stop := filepath.Join(t.TempDir(), "stop")
			e := newEnv(t, format, hook{event: event.PreToolUse, matcher: "Read", command: sh("hold-open.sh", stop)})
			s := e.create(t)
			ctx := context.Background()
			_, err := s.UserPromptSubmit(ctx, "read, then write")
			require.NoError(t, err)

			done := make(chan error, 1)
			go func() {
				_, err := s.PreToolUse(ctx, "toolu_read", "Read", json.RawMessage(`{"file_path":"a.txt"}`), nil)
				done <- err
			}()
			require.Eventually(t, func() bool { _, err := os.Stat(stop + ".started"); return err == nil },
				10*time.Second, 5*time.Millisecond, "the hook opened the transcript")
			for i := range 3 { // an append, then a tool result rewriting the message in place
				id := fmt.Sprintf("toolu_w%d", i)
				input := json.RawMessage(fmt.Sprintf(`{"file_path":%q,"content":"x"}`, id))
				require.NoError(t, s.AddAssistantMessage([]session.Block{session.ToolBlock(session.Tool{ID: id, Name: "Write", Input: input})}))
				_, err := s.PostToolUse(ctx, id, "Write", input, json.RawMessage(`{"ok":true}`))
				require.NoError(t, err)
			}
			require.NoError(t, os.WriteFile(stop, nil, 0o644))
			require.NoError(t, <-done)

			opened, err := os.ReadFile(stop + ".opened")
			require.NoError(t, err)
			held, err := os.ReadFile(stop + ".held")
			require.NoError(t, err)
			now, err := os.ReadFile(s.TranscriptPath())
			require.NoError(t, err)
			require.NotEqual(t, string(opened), string(now), "the writes reached the transcript")
			require.Equal(t, string(opened), string(held), "the file the hook held open changed under it")
		})
	}
}
