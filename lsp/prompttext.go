package lsp

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wavehooks/wavehooks/hooks"
)

// Bounds of what one prompt shows: a repository's text must not push the
// part that matters off the first screen.
const (
	promptItemRunes  = 200 // one command, setting or file
	promptItems      = 10  // items per list
	promptReasonRune = 500 // a hook's reason or message
	messageRunes     = 2000
)

// oneLine makes text from a hook or a settings file safe to show in a
// prompt or message: newlines, tabs, control characters and the invisible
// format characters that reorder or hide text (bidi overrides and isolates
// U+202A–202E and U+2066–2069, U+200E/U+200F marks, zero-width characters,
// line and paragraph separators) are shown as escapes (\n, \u202e), bytes
// that are not UTF-8 as \xNN, and text longer than limit characters is cut
// with a count of what was left out. The result is always one line, and
// what it shows is what the text says.
func oneLine(s string, limit int) string {
	var b strings.Builder
	shown := 0
	for i := 0; i < len(s); {
		if shown >= limit {
			fmt.Fprintf(&b, "… (%d more characters)", utf8.RuneCountInString(s[i:]))
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var out string
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\n':
			out = `\n`
		case r == '\r':
			out = `\r`
		case r == '\t':
			out = `\t`
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			if r > 0xffff {
				out = fmt.Sprintf(`\U%08x`, r)
			} else {
				out = fmt.Sprintf(`\u%04x`, r)
			}
		default:
			out = s[i : i+size]
		}
		b.WriteString(out)
		shown += utf8.RuneCountInString(out)
		i += size
	}
	return b.String()
}

// promptList writes items as an indented list, each on one line (oneLine),
// at most promptItems of them, then how many more there are.
func promptList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for i, it := range items {
		if i == promptItems {
			fmt.Fprintf(b, "  … and %d more\n", len(items)-promptItems)
			break
		}
		b.WriteString("  • " + oneLine(it, promptItemRunes) + "\n")
	}
}

// trustMessage is the trust prompt for l: the commands the workspace would
// run, the settings it would change, the scripts whose contents the trust
// covers, and what those commands run that it does not cover, each on one
// line.
func trustMessage(root string, l *hooks.Loaded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This workspace (%s) has hooks or settings that take effect only once you trust it.\n",
		oneLine(root, promptItemRunes))
	promptList(&b, "Commands it runs on your machine:", hooks.WorkspaceCommands(l.Full))
	promptList(&b, "Settings it changes:", hooks.WorkspaceSettings(l.Full))
	promptList(&b, "Workspace scripts those commands run (trust covers their current contents):", l.Scripts())
	promptList(&b, "Not covered by the trust (review these yourself; a change to them does not ask again):", l.NotCovered())
	b.WriteString("Trust them?")
	return b.String()
}
