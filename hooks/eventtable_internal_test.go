package hooks

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/proc"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// answerFieldSamples are a value for each hookSpecificOutput field that
// only some events read (event.EventSpec.Reads).
var answerFieldSamples = map[string]string{
	"retry": `true`, "action": `"accept"`, "content": `{"a": 1}`, "displayContent": `"x"`, "worktreePath": `"/w"`,
	"watchPaths": `["/w"]`, "initialUserMessage": `"x"`, "sessionTitle": `"x"`, "reloadSkills": `true`,
	"suppressOriginalPrompt": `true`, "updatedPrompt": `"x"`, "classifierContext": `"x"`, "permissionDisplay": `{"a": 1}`,
}

// TestEngineReadsEveryRow checks that the engine reads a hook's answer as
// the event table says, for every row: the permissionDecision values it
// accepts, the hookSpecificOutput fields it reads (any other is noted as
// ignored), the top-level fields it discards, whether it discards all
// output, and whether a failure is quiet. A row the engine ignores fails.
func TestEngineReadsEveryRow(t *testing.T) {
	for _, row := range event.Table() {
		ev := row.Event
		t.Run(string(ev), func(t *testing.T) {
			for _, d := range []string{"allow", "deny", "ask", "defer"} {
				_, probs := interpretJSON(ev, []byte(fmt.Sprintf(`{"hookSpecificOutput": {"hookEventName": %q, "permissionDecision": %q}}`, ev, d)))
				require.Equal(t, slices.Contains(row.PermissionDecisions, d), probs == nil, "permissionDecision %q: %v", d, probs)
			}
			for field, val := range answerFieldSamples {
				v, probs := interpretJSON(ev, []byte(fmt.Sprintf(`{"hookSpecificOutput": {"hookEventName": %q, %q: %s}}`, ev, field, val)))
				require.Nil(t, probs, field)
				require.Equal(t, !slices.Contains(row.Reads, field), slices.Contains(v.answer.ignored, field), "%s read: %v", field, row.Reads)
			}
			if ev == event.WorktreeCreate {
				return // its stdout is the worktree's path, not an answer
			}
			h := &settings.Hook{Event: ev, Command: "table-hook", Timeout: time.Second, Type: settings.TypeCommand}
			v := interpretEvent(ev, h, proc.Exec{Stdout: `{"continue": false, "stopReason": "s", "systemMessage": "m"}`})
			for _, f := range []string{"continue", "systemMessage"} {
				require.Equal(t, slices.Contains(row.Discards, f), strings.Contains(v.summary, f+" ignored: "), "discards %s: %s", f, v.summary)
			}
			require.Equal(t, row.DiscardsOutput, strings.Contains(v.summary, "output discarded"), v.summary)
			v = interpretEvent(ev, h, proc.Exec{ExitCode: 1, Stderr: "boom"})
			require.Equal(t, row.Quiet, v.err == "", "a failure is quiet: %+v", v)
		})
	}
}
