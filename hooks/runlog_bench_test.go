package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wavehooks/wavehooks/internal/event"
)

// BenchmarkRunLogAppend is one event's line of the run log as a server
// writes it after a PreToolUse with one `true` hook: the record of about
// 1 KB, encoded and appended (docs/performance.md, the hooked call's
// budget).
func BenchmarkRunLogAppend(b *testing.B) {
	l := NewRunLog(b.TempDir())
	b.Cleanup(func() { _ = l.Close() })
	res := &Result{Event: event.PreToolUse, Continue: true, Permission: PermissionAllow,
		Stdin:        []byte(`{"session_id":"5ff608b2-02d4-4246-b146-99402b2977d1","transcript_path":"/home/u/.wave/sessions/session_2b2977d1.json","cwd":"/home/u/project","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"list the files in the working directory"},"tool_use_id":"toolu_1"}`),
		UpdatedInput: json.RawMessage(`{"command":"ls -la"}`),
		Runs:         []Run{{Command: "true", Ran: true, Stdout: strings.Repeat("x", 10)}}}
	r := NewEventRun("5ff608b2-02d4-4246-b146-99402b2977d1", "Bash", res)
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}
