package event

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTableRows checks each row of the table for what its consumers take
// for granted: one row per event, a stdin whose defaults and optional
// fields are among its fields, permission decisions only where the event
// decides a permission, and the words hover and the schema show.
func TestTableRows(t *testing.T) {
	require.Len(t, table, len(Events()), "one row per event")
	seen := map[Event]bool{}
	for _, row := range Table() {
		t.Run(string(row.Event), func(t *testing.T) {
			require.False(t, seen[row.Event], "one row per event")
			seen[row.Event] = true
			require.NotEmpty(t, row.Summary, "Summary: hover and completion show it")
			require.NotEmpty(t, row.Exit2, "Exit2: hover and the schema show it")
			require.NotEmpty(t, row.Answer, "Answer: hover shows it")
			require.Contains(t, []HookTypeSet{AllHookTypes, NoModelHookTypes, StartHookTypes}, row.HookTypes, "HookTypes: lint reads it")
			for k, v := range row.Defaults {
				require.Contains(t, row.Fields, k, "a default is for one of its fields")
				require.True(t, json.Valid([]byte(v)), "default of %s is JSON", k)
			}
			for k := range row.Optional {
				require.Contains(t, row.Fields, k, "an optional field is one of its fields")
				require.NotContains(t, row.Defaults, k, "an optional field has no default")
			}
			if row.PermissionDecisions != nil {
				require.True(t, row.DecidesPermission, "permissionDecision is read only where a permission is decided")
			}
			for _, d := range row.PermissionDecisions {
				require.Contains(t, []string{"allow", "deny", "ask", "defer"}, d)
			}
			for _, f := range row.Discards {
				require.Contains(t, []string{"continue", "systemMessage"}, f)
			}
			if row.MatchField == "" {
				require.Empty(t, row.MatcherValues, "an event that ignores matchers has no matcher values")
				require.Empty(t, row.MatcherDoc)
			}
		})
	}
}

// sentWhenKnown are the typed fields the stdin carries only when the
// client gave them, and which have no default: UserPromptSubmit's source,
// Stop's last_assistant_message, the tool events' duration_ms.
var sentWhenKnown = map[Event][]string{UserPromptSubmit: {"source"}, Stop: {"last_assistant_message"},
	PostToolUse: {"duration_ms"}, PostToolUseFailure: {"duration_ms"}}

// TestStdinCarriesEveryRowsFields checks the engine's stdin builder
// against the table: for every event, the stdin of an input the client
// gave nothing for carries the common fields and every field of its row
// but the optional ones, in the row's order, and permission_mode where the
// row says so.
func TestStdinCarriesEveryRowsFields(t *testing.T) {
	for _, row := range Table() {
		t.Run(string(row.Event), func(t *testing.T) {
			in := Input{Event: row.Event, Effort: "high"}
			out, err := in.MarshalStdin()
			require.NoError(t, err)
			keys := objectKeys(out)
			for _, k := range CommonFields {
				require.Contains(t, keys, k)
			}
			var want []string
			for _, k := range row.Fields {
				if _, opt := row.Optional[k]; !opt && !slices.Contains(sentWhenKnown[row.Event], k) {
					want = append(want, k)
				}
			}
			var got []string
			for _, k := range keys {
				if slices.Contains(want, k) {
					got = append(got, k)
				}
			}
			require.Equal(t, want, got, "the row's fields, in its order")
			require.Equal(t, row.PermissionMode, slices.Contains(keys, "permission_mode"), "permission_mode")
			require.Equal(t, row.Effort, slices.Contains(keys, "effort"), "effort")
		})
	}
}

// TestParityDocHasEveryRow checks docs/parity.md against the table: each
// event has exactly one row in its event tables, whose "matcher on" column
// names the row's MatchField, or says "—" when the event ignores matchers.
func TestParityDocHasEveryRow(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "parity.md"))
	require.NoError(t, err)
	rows := map[Event][]string{}
	for _, line := range strings.Split(string(text), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		name := strings.Fields(strings.TrimPrefix(cells[0], "| "))
		if len(name) == 0 {
			continue
		}
		if _, ok := Spec(Event(name[0])); ok && (len(name) == 1 || strings.HasPrefix(name[1], "(")) {
			rows[Event(name[0])] = append(rows[Event(name[0])], cells[1])
		}
	}
	for _, row := range Table() {
		t.Run(string(row.Event), func(t *testing.T) {
			require.Len(t, rows[row.Event], 1, "docs/parity.md has one table row for %s", row.Event)
			matcher := rows[row.Event][0]
			switch {
			case row.MatchField == "":
				require.Equal(t, "—", matcher, "%s ignores matchers", row.Event)
			case row.MatcherDoc != "":
				require.NotEqual(t, "—", matcher)
			default:
				require.Contains(t, matcher, "`"+row.MatchField+"`")
			}
		})
	}
}
