package settings_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

// TestEveryConsumerReadsEveryRow checks that lint, hover, completion's
// documentation and the schema read every row of the event table
// (event.Table): a new row that one of them ignores fails here. Lint
// accepts a hook on the event, at the row's default timeout, warns about
// exactly the hook types the row refuses and about onFailure where the row
// ignores it; hover (EventDoc) says what the row says; the schema has the
// event with its matcher and summary.
func TestEveryConsumerReadsEveryRow(t *testing.T) {
	schemaText, err := os.ReadFile(filepath.Join("..", "..", "editors", "vscode", "schemas", "settings.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Hooks struct {
				Properties map[string]struct {
					Items struct {
						Properties struct {
							Matcher struct {
								Description string `json:"description"`
							} `json:"matcher"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"hooks"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(schemaText, &schema))

	for _, row := range event.Table() {
		t.Run(string(row.Event), func(t *testing.T) {
			// Lint: one hook of each type, and a blocking onFailure.
			var hooks []string
			for _, typ := range settings.HookTypes {
				hooks = append(hooks, fmt.Sprintf(`{"type": %q, "command": "true", "url": "http://127.0.0.1:9/h", "prompt": "ok?", "server": "s", "tool": "t"}`, typ))
			}
			hooks = append(hooks, `{"type": "command", "command": "true", "onFailure": "block"}`)
			text := fmt.Sprintf(`{"hooks": {%q: [{"hooks": [%s]}]}}`, row.Event, strings.Join(hooks, ", "))
			f := settings.ParseFile("/p/.wave/settings.json", settings.SourceProject, []byte(text), "/p")
			var typeWarnings, onFailure int
			for _, d := range f.Diagnostics {
				require.NotEqual(t, settings.CodeUnknownEvent, d.Code, "lint knows %s", row.Event)
				if d.Code == settings.CodeTypeNotOnEvent {
					typeWarnings++
				}
				if strings.Contains(d.Message, "onFailure is ignored on") {
					onFailure++
				}
			}
			refused := map[event.HookTypeSet]int{event.AllHookTypes: 0, event.NoModelHookTypes: 2, event.StartHookTypes: 3}
			require.Equal(t, refused[row.HookTypes], typeWarnings, "lint refuses the hook types the row refuses")
			require.Equal(t, row.OnFailureIgnored, onFailure == 1, "lint reads OnFailureIgnored")
			for _, h := range f.Hooks {
				ok, _ := settings.TypeRunsOn(h.Type, row.Event)
				require.Equal(t, ok, row.HookTypes == event.AllHookTypes || h.Type == settings.TypeCommand || h.Type == settings.TypeMCPTool ||
					(h.Type == settings.TypeHTTP && row.HookTypes != event.StartHookTypes), h.Type)
				if h.Type == settings.TypeCommand {
					want := settings.DefaultTimeout
					if row.Timeout != 0 {
						want = row.Timeout
					}
					require.Equal(t, want, h.Timeout, "the row's default timeout")
				}
			}

			// Hover.
			doc, ok := settings.EventDoc(row.Event)
			require.True(t, ok)
			for _, s := range []string{row.Summary, row.Exit2, row.Answer, row.MatcherDoc} {
				require.Contains(t, doc, s)
			}
			for _, k := range row.Fields {
				require.Contains(t, doc, "`"+k+"`")
			}
			if row.MatchField != "" && row.MatcherDoc == "" {
				require.Contains(t, doc, "compared with `"+row.MatchField+"`")
			}
			for _, v := range row.MatcherValues {
				if row.MatcherDoc == "" {
					require.Contains(t, doc, "`"+v+"`")
				}
			}

			// The schema.
			entry, ok := schema.Properties.Hooks.Properties[string(row.Event)]
			require.True(t, ok, "the schema lists %s (go test ./internal/settings -run TestVSCodeSchemaEvents -args -update)", row.Event)
			if row.MatchField != "" && row.MatcherDoc == "" {
				require.Contains(t, entry.Items.Properties.Matcher.Description, "`"+row.MatchField+"`")
			}
		})
	}
}
