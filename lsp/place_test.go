package lsp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wavehooks/wavehooks/internal/event"
	"github.com/wavehooks/wavehooks/lsp"
)

// Each part of a settings file is found where the parser reads it, while
// the user types too (the file need not be valid JSON). "|" marks the cursor.
func TestPlace(t *testing.T) {
	cases := []struct {
		name, text string
		want       lsp.Place
	}{
		{"root key", `{"dis|`, lsp.Place{Kind: lsp.PlaceRootKey}},
		{"root key, nothing typed", `{|`, lsp.Place{Kind: lsp.PlaceRootKey}},
		{"event name", `{"hooks": {"Pre|`, lsp.Place{Kind: lsp.PlaceEventKey}},
		{"group key", `{"hooks": {"Stop": [{"ma|`, lsp.Place{Kind: lsp.PlaceGroupKey, Event: event.Stop}},
		{"hook key", `{"hooks": {"Stop": [{"hooks": [{"ty|`, lsp.Place{Kind: lsp.PlaceHookKey, Event: event.Stop}},
		{"second hook's key", `{"hooks": {"Stop": [{"hooks": [{"type": "command"}, {"com|`, lsp.Place{Kind: lsp.PlaceHookKey, Event: event.Stop}},
		{"hook type value", `{"hooks": {"Stop": [{"hooks": [{"type": "ht|`, lsp.Place{Kind: lsp.PlaceHookValue, Event: event.Stop, Key: "type"}},
		{"matcher value", `{"hooks": {"PreToolUse": [{"matcher": "Ba|`, lsp.Place{Kind: lsp.PlaceMatcher, Event: event.PreToolUse}},
		{"a key inside env is none of them", `{"hooks": {"Stop": [{"hooks": [{"env": {"ty|`, lsp.Place{}},
		{"a root value", `{"transcriptFormat": "js|`, lsp.Place{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			off := strings.Index(c.text, "|")
			text := strings.Replace(c.text, "|", "", 1)
			require.Equal(t, c.want, lsp.Locate([]byte(text), off).Place())
		})
	}
}
