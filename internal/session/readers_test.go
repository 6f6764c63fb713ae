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

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooks"
	"github.com/wavehooks/wavehooks/internal/session"
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
				require.NoError(t, s.AddAssistantMessage([]session.Block{{Type: session.BlockTool, ID: id, Name: "Write", Input: input}}))
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
