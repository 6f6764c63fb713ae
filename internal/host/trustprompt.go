package host

import (
	"fmt"
	"strings"

	"github.com/wavehooks/wavehooks/internal/safetext"
	"github.com/wavehooks/wavehooks/internal/trust"
)

// Bounds of what one trust listing shows: a repository's text must not push
// the part that matters off the first screen.
const (
	trustItemRunes = 200 // one command, setting or file
	trustItems     = 10  // items per list
)

// trustList writes items as an indented list, each on one line (safetext.Line),
// at most trustItems of them, then how many more there are.
func trustList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for i, it := range items {
		if i == trustItems {
			fmt.Fprintf(b, "  … and %d more\n", len(items)-trustItems)
			break
		}
		b.WriteString("  • " + safetext.Line(it, trustItemRunes) + "\n")
	}
}

// TrustListing is what a person is shown before trusting the workspace at
// root as l describes it: the commands it would run, the settings it would
// change, the scripts whose contents the trust covers, and what those
// commands run that it does not cover, each on one escaped line. The
// editor's trust prompt and `wavehooks trust` show the same text, so that
// both ask about the same things; each adds its own question.
func TrustListing(root string, l *trust.Loaded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This workspace (%s) has hooks or settings that take effect only once you trust it.\n",
		safetext.Line(root, trustItemRunes))
	trustList(&b, "Commands it runs on your machine:", trust.WorkspaceCommands(l.Full))
	trustList(&b, "Settings it changes:", trust.WorkspaceSettings(l.Full))
	trustList(&b, "Workspace scripts those commands run (trust covers their current contents):", l.Scripts())
	trustList(&b, "Not covered by the trust (review these yourself; a change to them does not ask again):", l.NotCovered())
	trustList(&b, "Commands its hook test cases run through `wavehooks test`:", l.TestCommands())
	trustList(&b, "Hook test files `wavehooks test` may then use (trust covers their current contents):", l.TestFiles())
	return b.String()
}
