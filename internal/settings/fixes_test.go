package settings_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/settings"
)

func applyEdits(src string, edits []settings.TextEdit) string {
	out := []byte(src)
	for i := len(edits) - 1; i >= 0; i-- { // from the end, so earlier offsets hold
		out = edits[i].Apply(out)
	}
	return string(out)
}

func codes(f settings.File) []string {
	var out []string
	for _, d := range f.Diagnostics {
		out = append(out, d.Code)
	}
	return out
}

// TestRemoveShadowedHook: the quick fix of a shadowed duplicate deletes
// it with its comma (or its whole group when it is the group's only
// hook); the file parses again with one hook left, no shadowed-hook
// warning, and the rest of the file as written.
func TestRemoveShadowedHook(t *testing.T) {
	cases := []struct{ name, text, want string }{{
		name: "second of a group",
		text: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}, {"type": "command", "command": "guard.sh"}]}]}}`,
		want: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`,
	}, {
		name: "the only hook of a later group, over several lines",
		text: "{\"hooks\": {\"PreToolUse\": [\n  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]}, // keep\n  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]}\n]}}",
		want: "{\"hooks\": {\"PreToolUse\": [\n  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]}\n]}}",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := settings.ParseFile("settings.json", settings.SourceUser, []byte(c.text), t.TempDir())
			require.Len(t, f.Hooks, 2)
			var shadowed *settings.Hook
			for _, d := range f.Diagnostics {
				if d.Code == settings.CodeShadowed {
					for i := range f.Hooks {
						if f.Hooks[i].Place.Range == d.Range {
							shadowed = &f.Hooks[i]
						}
					}
				}
			}
			require.NotNil(t, shadowed, "the diagnostic spans the shadowed hook: %v", f.Diagnostics)
			edit, err := settings.RemoveHookEdit([]byte(c.text), event.PreToolUse, shadowed.Place)
			require.NoError(t, err)
			got := string(edit.Apply([]byte(c.text)))
			require.Equal(t, c.want, got)
			again := settings.ParseFile("settings.json", settings.SourceUser, []byte(got), t.TempDir())
			require.Len(t, again.Hooks, 1)
			require.NotContains(t, codes(again), settings.CodeShadowed)
		})
	}
}

// TestMoveHookToIfTool: the quick fix of an "if" rule that the group's
// matcher never lets through gives the hook a matcher of the rule's tool:
// the group's matcher when the hook is alone in it, else a new group of
// its own, the other hooks of the group keeping theirs.
func TestMoveHookToIfTool(t *testing.T) {
	cases := []struct {
		name, text, want string
		index            int
	}{{
		name: "alone in its group",
		text: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "if": "Write(*.env)"}]}]}}`,
		want: `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "guard.sh", "if": "Write(*.env)"}]}]}}`,
	}, {
		name:  "beside another hook",
		text:  `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "log.sh"}, {"type": "command", "command": "guard.sh", "if": "Write(*.env)"}]}]}}`,
		want:  `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "log.sh"}]}, {"matcher": "Write", "hooks": [{"type": "command", "command": "guard.sh", "if": "Write(*.env)"}]}]}}`,
		index: 1,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := settings.ParseFile("settings.json", settings.SourceUser, []byte(c.text), t.TempDir())
			i := slices.IndexFunc(f.Diagnostics, func(d settings.Diagnostic) bool { return d.Code == settings.CodeIfNeverMatches })
			require.GreaterOrEqual(t, i, 0, "%v", f.Diagnostics)
			require.Equal(t, "Write", f.Diagnostics[i].Data)
			edits, err := settings.MoveHookEdits([]byte(c.text), event.PreToolUse, f.Hooks[c.index].Place, f.Diagnostics[i].Data)
			require.NoError(t, err)
			got := applyEdits(c.text, edits)
			require.Equal(t, c.want, got)
			again := settings.ParseFile("settings.json", settings.SourceUser, []byte(got), t.TempDir())
			require.Len(t, again.Hooks, len(f.Hooks))
			require.NotContains(t, codes(again), settings.CodeIfNeverMatches)
		})
	}
}
