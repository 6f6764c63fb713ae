package hooks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/internal/hooks"
)

// Each part of a settings file is found where the parser reads it, while
// the user types too (the file need not be valid JSON). "|" marks the cursor.
func TestPlace(t *testing.T) {
	cases := []struct {
		name, text string
		want       hooks.Place
	}{
		{"root key", `{"dis|`, hooks.Place{Kind: hooks.PlaceRootKey}},
		{"root key, nothing typed", `{|`, hooks.Place{Kind: hooks.PlaceRootKey}},
		{"event name", `{"hooks": {"Pre|`, hooks.Place{Kind: hooks.PlaceEventKey}},
		{"group key", `{"hooks": {"Stop": [{"ma|`, hooks.Place{Kind: hooks.PlaceGroupKey, Event: event.Stop}},
		{"hook key", `{"hooks": {"Stop": [{"hooks": [{"ty|`, hooks.Place{Kind: hooks.PlaceHookKey, Event: event.Stop}},
		{"second hook's key", `{"hooks": {"Stop": [{"hooks": [{"type": "command"}, {"com|`, hooks.Place{Kind: hooks.PlaceHookKey, Event: event.Stop}},
		{"hook type value", `{"hooks": {"Stop": [{"hooks": [{"type": "ht|`, hooks.Place{Kind: hooks.PlaceHookValue, Event: event.Stop, Key: "type"}},
		{"matcher value", `{"hooks": {"PreToolUse": [{"matcher": "Ba|`, hooks.Place{Kind: hooks.PlaceMatcher, Event: event.PreToolUse}},
		{"a key inside env is none of them", `{"hooks": {"Stop": [{"hooks": [{"env": {"ty|`, hooks.Place{}},
		{"a root value", `{"transcriptFormat": "js|`, hooks.Place{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			off := strings.Index(c.text, "|")
			text := strings.Replace(c.text, "|", "", 1)
			require.Equal(t, c.want, hooks.Locate([]byte(text), off).Place())
		})
	}
}
