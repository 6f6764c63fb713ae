package lsp

import (
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/safetext"
)

// Bounds of what one prompt shows: a repository's text must not push the
// part that matters off the first screen.
const (
	promptItemRunes  = 200 // one command, setting or file
	promptItems      = 10  // items per list
	promptReasonRune = 500 // a hook's reason or message
	messageRunes     = 2000
)

// promptList writes items as an indented list, each on one line (safetext.Line),
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
		b.WriteString("  • " + safetext.Line(it, promptItemRunes) + "\n")
	}
}

// trustMessage is the trust prompt for l: the commands the workspace would
// run, the settings it would change, the scripts whose contents the trust
// covers, and what those commands run that it does not cover, each on one
// line.
func trustMessage(root string, l *hooks.Loaded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This workspace (%s) has hooks or settings that take effect only once you trust it.\n",
		safetext.Line(root, promptItemRunes))
	promptList(&b, "Commands it runs on your machine:", hooks.WorkspaceCommands(l.Full))
	promptList(&b, "Settings it changes:", hooks.WorkspaceSettings(l.Full))
	promptList(&b, "Workspace scripts those commands run (trust covers their current contents):", l.Scripts())
	promptList(&b, "Not covered by the trust (review these yourself; a change to them does not ask again):", l.NotCovered())
	b.WriteString("Trust them?")
	return b.String()
}
